"""``cmharness fuzz``'s verdict, apart from the campaign that feeds it: when a failure is an expected red, which
failures are findings, when ``--stop-on-failure`` stops, and the exit code. The rules alone, so that the red-first
report (``cmharness report``) mutates them and a surviving mutant here shows up in it."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from reports.exit_codes import Exit


@dataclass(frozen=True)
class Target:
    """One fuzz target: its node id, database key, and whether a failure there is an expected red (``red_on``)."""

    nodeid: str
    key: bytes
    expected_red: bool


@dataclass(frozen=True)
class Finding:
    """A target with a failing input in the database (shrunk, or not yet shrunk when a worker was stopped);
    ``in_fuzzer`` when every failure saved there was raised inside HypoFuzz itself, not by the test."""

    target: Target
    shrunk: int
    unshrunk: int
    in_fuzzer: bool = False
    origin: str = ""


def expected_red(red_on: Sequence[str], variant: str | None) -> bool:
    """Whether a failure of a test on ``variant`` is excused: only when its ``red_on`` names that very variant
    (``red_on`` empty when the test has no such mark; ``variant`` None when it is not parametrized by one)."""
    return variant in red_on


def unexpected(targets: Iterable[Target]) -> frozenset[str]:
    """The node ids whose failure is not excused: the targets that are not an expected red."""
    return frozenset(t.nodeid for t in targets if not t.expected_red)


def stops(unexpected_ids: frozenset[str], failed: Iterable[str]) -> bool:
    """``--stop-on-failure``: whether a failed node id is one of ``unexpected_ids`` (an expected red never stops)."""
    return any(nodeid in unexpected_ids for nodeid in failed)


def is_finding(finding: Finding) -> bool:
    """A failure the user must look at: not an expected red, and raised by the test rather than inside HypoFuzz."""
    return not finding.target.expected_red and not finding.in_fuzzer


def new_findings(findings: Iterable[Finding]) -> list[Finding]:
    """The findings, in their order (what the command prints with a replay command)."""
    return [f for f in findings if is_finding(f)]


def expected_reds(findings: Iterable[Finding]) -> list[Finding]:
    """The failures excused by ``red_on``, in their order."""
    return [f for f in findings if f.target.expected_red]


def inside_fuzzer(findings: Iterable[Finding]) -> list[Finding]:
    """The failures that are no finding because HypoFuzz itself raised them (an expected red is counted as one)."""
    return [f for f in findings if f.in_fuzzer and not f.target.expected_red]


def exit_code(findings: Iterable[Finding]) -> Exit:
    """1 when any failure is a finding, else 0 (every failure an expected red, or raised inside HypoFuzz)."""
    return Exit.FAILURE_FOUND if any(is_finding(f) for f in findings) else Exit.OK
