"""The campaign's records: what the journal holds and the report reads (docs/architecture.md, "Records").

Every status, outcome and kind a journal record carries is named here, once; the journal stores their string
values (``StrEnum``: a member is its string, so a journal written before reads the same).
"""

from __future__ import annotations

from enum import StrEnum


class Status(StrEnum):
    """What became of a mutant."""

    KILLED = "killed"
    SURVIVED = "survived"
    TIMEOUT = "timeout"
    ERROR = "error"
    NO_COVERAGE = "no-coverage"
    SKIPPED = "skipped"  # mutmut's: not run (a reviewed equivalent whose line is unchanged)
    TYPE_CHECK = "type-check"
    EQUIVALENT = "equivalent"  # the report's: a reviewed equivalent
    PENDING = "pending"  # not run yet


#: The statuses that leave a mutant alive in the report's eyes (a survivor, or no test could run on it).
ALIVE = frozenset({Status.SURVIVED, Status.NO_COVERAGE, Status.ERROR})


class Outcome(StrEnum):
    """A test's outcome in one run (pytest's words)."""

    PASSED = "passed"
    FAILED = "failed"
    ERROR = "error"
    SKIPPED = "skipped"
    XFAILED = "xfailed"
    XPASSED = "xpassed"


#: Test outcomes that count as red.
RED = frozenset({Outcome.FAILED, Outcome.ERROR, Outcome.XFAILED})
#: Outcomes that kill a mutant.
FAILING = (Outcome.FAILED, Outcome.ERROR)


class Kind(StrEnum):
    """What a journal record is the run of."""

    BASELINE = "baseline"
    DEFECT = "defect"  # a named mutant: a known defect alone in sound
    REMOVAL = "removal"  # a named mutant: one of the seed's removals
    EXTRA = "extra"  # a patch file (--extra-mutants)
    MUTMUT = "mutmut"
    WITNESS = "witness"
    INVENTORY = "inventory"


NAMED_KINDS = frozenset({Kind.DEFECT, Kind.REMOVAL})

#: The journal key of the baseline run.
BASELINE = "baseline"

#: Why a test has no red-first witness.
NO_CODE = "covers no mutated code (calls no mutated function in its own process)"
ONLY_EQUIVALENT = "covers only code whose mutants are equivalent or survived"
REAL_GAP = "a real gap: passed under every killed mutant of the code it covers"
