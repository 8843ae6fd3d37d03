"""The newer lines never took the seed's change (docs/model.md, Variants): on the seed's own minimal cases each
newer variant does what main does, and the same variant with that one defect switched off does otherwise. Read
at a95eb55b and cbe7032a: the combined pair unchecked and priced by its estimate, refusals reporting a head of 0,
no store view bound on the path, a memo no initialize clears."""

from __future__ import annotations

import pytest
from builders import MAIN, PR, carriers, compile_with, store, summary

from reference.model import Budget, Config
from strategies import HierarchicalStrategy
from strategies.defects import HYSTERESIS_A95EB55B, RAW_FORMS_CBE7032A, Defect, parse_variant

NEWER = (HYSTERESIS_A95EB55B, RAW_FORMS_CBE7032A)
COMBINED = Config(positioned_recall_pairs=False, over_budget_grace_ratio=0)
POSITIONED = Config(positioned_recall_pairs=True, over_budget_grace_ratio=0)


def _with(config: Config, **changes: object) -> Config:
    return Config(**{**config.__dict__, **changes})


def _per_char(s: str) -> int:
    return len(s)


def _what(variant, case) -> str:
    """What one compile of ``case`` does, in a line: sent (with its stats total) or refused (with the split)."""
    st, config, budget = case
    outcome = compile_with(variant, st, config, budget)
    if outcome.result is not None:
        return f"sent {len(outcome.result.entries)} entries, total {outcome.result.stats.total.tokens}"
    err, d = outcome.error, outcome.error.diagnostics
    return f"refused at {err.item}: head {d.head_tokens}, middle {d.middle_tokens}"


#: Each seed-fixed defect (the memo's aside) and a case of the seed's where main and the pull request differ.
CASES = {
    Defect.COMBINED_UNCHECKED: (store(4, [summary("L1-1", 0, 3)]), COMBINED, 21),
    Defect.COMBINED_NO_FLOOR: (
        store(5, [summary("L1-1", 1, 3, tokens=500, carriers=carriers())]),
        _with(COMBINED, head_window_tokens=10),
        300,
    ),
    Defect.HEAD_AS_MIDDLE: (store(5, [summary("L1-1", 1, 3)]), _with(POSITIONED, head_window_tokens=10), 15),
    Defect.VIEW_NEVER_BOUND: (store(4, [summary("L1-1", 0, 3)], text_estimator=_per_char), POSITIONED, 30),
}


@pytest.mark.parametrize("line", NEWER)
@pytest.mark.parametrize("defect", list(CASES), ids=lambda d: d.name)
def test_each_newer_line_does_what_main_does_where_the_seed_changed_the_compile(line, defect):
    case = CASES[defect]
    assert _what(MAIN, case) != _what(PR, case), "the case no longer tells main from the pull request"
    assert _what(line, case) == _what(MAIN, case)
    assert _what(parse_variant(f"{line}-{defect.name}"), case) != _what(line, case)


@pytest.mark.parametrize("line", NEWER)
def test_the_answer_price_memo_survives_initialize_on_the_newer_lines(line):
    st = store(4, [summary("L1-1", 1, 2, tokens=30)])
    for variant, survives in ((line, True), (parse_variant(f"{line}-MEMO_SURVIVES_INITIALIZE"), False)):
        strategy = HierarchicalStrategy(Config(), variant)
        strategy.initialize(st)
        strategy.compile(Budget(max_tokens=float("inf")))
        assert strategy.memo
        strategy.initialize(st)
        assert bool(strategy.memo) is survives
