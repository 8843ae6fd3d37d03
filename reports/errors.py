"""The tool's errors, under one root (docs/architecture.md, "Errors").

``HarnessError`` is the root of every error ``reports`` raises on purpose. ``UsageError`` is the one the
command line reports as one line on stderr naming the culprit, with exit code 2 (``reports.exit_codes``):
a bad option, an unreadable input, a name that names nothing. Code anywhere in ``reports`` may raise it;
only ``reports.cli`` catches it.
"""

from __future__ import annotations


class HarnessError(Exception):
    """The root of the tool's own errors."""


class UsageError(HarnessError):
    """A mistake in what the user asked for or gave: one line on stderr, exit 2."""
