"""The tool's errors, under one root (docs/architecture.md, "Errors").

``HarnessError`` is the root of every error ``reports`` raises on purpose; the command line reports each as one
line on stderr naming the culprit, with its class's exit code (``reports.exit_codes``), never a traceback.
``UsageError`` (exit 2) is a mistake in what the user asked for or gave: a bad option, an unreadable input, a name
that names nothing. ``CampaignError`` (exit 3) is a campaign that cannot go on: its baseline did not run. Code
anywhere in ``reports`` may raise them; only ``reports.cli`` catches them.
"""

from __future__ import annotations

from typing import ClassVar

from reports.exit_codes import Exit


class HarnessError(Exception):
    """The root of the tool's own errors."""

    exit: ClassVar[Exit] = Exit.SEVERE


class UsageError(HarnessError):
    """A mistake in what the user asked for or gave: one line on stderr, exit 2."""

    exit = Exit.USAGE


class CampaignError(HarnessError):
    """A campaign cannot go on (its baseline did not run): one line on stderr naming where its output went, exit 3."""

    exit = Exit.SEVERE
