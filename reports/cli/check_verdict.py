"""``cmharness check``'s verdict, apart from compiling, explaining and printing: which invariants a check runs, the
breaks it lists for a variant, the exit code and its line. The rules alone, so that the red-first report
(``cmharness report``) mutates them and a surviving mutant here shows up in it."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from invariants.properties import CHEAP_FIRST, INVARIANTS, Violation
from reference.model import Budget, Config, Store
from reference.names import unknown
from reports.errors import UsageError
from reports.exit_codes import Exit
from strategies.defects import Defect, Defects

#: The verdict line's words for each exit code.
WORDS = {
    Exit.OK: "nothing breaks",
    Exit.REPRODUCED: "breaks only where defects are switched on",
    Exit.SOUND_BROKE: "a variant with no defect breaks",
}


def chosen_invariants(asked: Sequence[str] | None) -> list[str]:
    """The invariants a check runs, cheapest first: those ``asked`` for (``--invariant``), or every one; an unknown
    name is a ``UsageError`` naming it."""
    for name in asked or ():
        if name not in INVARIANTS:
            raise UsageError(unknown("invariant", name, CHEAP_FIRST))
    return [n for n in CHEAP_FIRST if not asked or n in asked]


def breaks(
    store: Store, config: Config, budget: Budget, carried: Defects, invariants: Sequence[str]
) -> list[Violation]:
    """Every violation the judges of ``invariants`` report on a variant carrying ``carried`` (its defects and line
    behaviours), in their order."""
    return [v for name in invariants for v in INVARIANTS[name](store, config, budget, carried)]


def verdict(carriers_break: bool, defect_free_breaks: bool) -> Exit:
    """The exit code of a judgement, ``check``'s and ``prove``'s alike: 3 when a variant with no defect breaks an
    invariant, else 1 when a variant that carries defects does, else 0."""
    if defect_free_breaks:
        return Exit.SOUND_BROKE
    return Exit.REPRODUCED if carriers_break else Exit.OK


def exit_code(variants: Iterable[tuple[frozenset[Defect], Sequence[Violation]]]) -> Exit:
    """Over each variant checked (the defects it carries, its breaks): its ``verdict``."""
    checked = [(bool(carried), bool(found)) for carried, found in variants]
    return verdict(any(c and f for c, f in checked), any(f and not c for c, f in checked))


def verdict_line(code: Exit) -> str:
    """The text output's last line: the exit code and what it means."""
    return f"exit {code}: {WORDS[code]}"
