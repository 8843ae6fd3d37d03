"""The campaign's records: what the journal holds and the report reads (docs/architecture.md, "Records").

Every module that writes or reads a journal record names its keys and statuses through this module.
"""

from __future__ import annotations

#: The journal key of the baseline run.
BASELINE = "baseline"
#: Test outcomes that count as red.
RED = frozenset({"failed", "error", "xfailed"})

#: Why a test has no red-first witness.
NO_CODE = "covers no mutated code (calls no mutated function in its own process)"
ONLY_EQUIVALENT = "covers only code whose mutants are equivalent or survived"
REAL_GAP = "a real gap: passed under every killed mutant of the code it covers"
