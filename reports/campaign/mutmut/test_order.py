"""The order in which a mutmut mutant's covering tests run (it stops at the first failure): the tests that
killed the function's mutants in the last complete report first (``reports.campaign.hints``), then the module's own
test files (``tests/test_<module>.py``, ``tests/test_<folder>_<module>.py``, and a judge's
``tests/test_judge_<module>.py``), then the rest; within each part
the quick tests in an order drawn from the mutant's name (``reports.campaign.plugins.mutant_plugin.drawn``: the
first-killer
credit spreads over the tests), then the others by baseline duration."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from reports.campaign.plugins.mutant_plugin import quick_first


def own_test_files(mutant: str) -> frozenset[str]:
    """``reference.cap.x__units__mutmut_1`` -> ``tests/test_cap.py`` and ``tests/test_reference_cap.py`` (and
    ``tests/test_judge_cap.py``, where the judges of ``invariants/properties/cap.py`` are tested)."""
    module = mutant.rsplit("__mutmut_", 1)[0].rsplit(".", 1)[0]
    top, _, name = module.rpartition(".")
    return frozenset(
        {f"tests/test_{name}.py", f"tests/test_{top.split('.')[0]}_{name}.py", f"tests/test_judge_{name}.py"}
    )


def running_order(
    mutant: str, tests: Sequence[str], durations: Mapping[str, float], first: Sequence[str] = ()
) -> Iterator[str]:
    """``tests`` in the order mutant ``mutant`` runs them, each part ordered only when it is reached (most mutants
    fall to a known killer, and ordering a function's hundreds of covering tests would cost more than running it)."""
    hinted = {t: k for k, t in enumerate(first)}
    own = own_test_files(mutant)
    parts: tuple[list[str], list[str], list[str]] = ([], [], [])
    for t in tests:
        parts[0 if t in hinted else 1 if t.split("::", 1)[0] in own else 2].append(t)
    yield from sorted(parts[0], key=lambda t: (hinted[t], *quick_first(mutant, t, durations)))
    for part in parts[1:]:
        yield from sorted(part, key=lambda t: quick_first(mutant, t, durations))
