"""``sound`` refuses bad values before pricing (docs/model.md, The bad-value refusals), naming field, value and culprit.

A budget, grace ratio or window the compile cannot price against is an ``InvalidConfigError`` whose
``field`` names the setting and whose message shows the value. A custom estimator returning anything
but a finite number >= 0 is refused naming whose text it was: a summary by id, the label by its config
field, the separator as ``"separator"``.
"""

from __future__ import annotations

import dataclasses
import math
import re

import pytest
from builders import SOUND, store, summary
from hypothesis import given
from hypothesis import strategies as st

from reference.model import Budget, Config, InvalidConfigError, Store
from strategies import HierarchicalStrategy, OverBudgetError, UncoveredDropError

INF, NAN = math.inf, math.nan
SEPARATOR = "\n\n---\n\n"  # docs/model.md, Recall answers and the envelope
MARK = "<bad>"


def _refusal(st: Store, config: Config, budget: Budget) -> InvalidConfigError:
    strategy = HierarchicalStrategy(config, SOUND)
    strategy.initialize(st)
    with pytest.raises(InvalidConfigError) as info:
        strategy.compile(budget)
    return info.value


@pytest.mark.parametrize(
    ("budget", "config", "field", "shown"),
    [
        (Budget(max_tokens=-1), Config(), "max_tokens", ["-1"]),
        (Budget(max_tokens=NAN), Config(), "max_tokens", ["nan"]),
        (Budget(max_tokens=-INF), Config(), "max_tokens", ["-inf"]),
        (Budget(max_tokens=100, reserve_for_response=-1), Config(), "reserve_for_response", ["-1"]),
        (Budget(max_tokens=100, reserve_for_response=NAN), Config(), "reserve_for_response", ["nan"]),
        (Budget(max_tokens=INF, reserve_for_response=INF), Config(), "reserve_for_response", ["inf"]),
        (
            Budget(max_tokens=100, reserve_for_response=250),
            Config(),
            "reserve_for_response",
            ["250", "input budget", "-150", "max_tokens 100"],
        ),
        (Budget(max_tokens=100), Config(over_budget_grace_ratio=-0.5), "over_budget_grace_ratio", ["-0.5"]),
        (Budget(max_tokens=100), Config(over_budget_grace_ratio=INF), "over_budget_grace_ratio", ["inf"]),
        (Budget(max_tokens=100), Config(over_budget_grace_ratio=NAN), "over_budget_grace_ratio", ["nan"]),
    ],
)
def test_bad_budget_or_grace_is_refused_naming_field_and_value(
    budget: Budget, config: Config, field: str, shown: list[str]
) -> None:
    """Each bad value is refused with its field named and the offending value in the message.

    An infinite reserve is refused as not finite even against an unlimited budget (where the input
    budget would be NaN and nothing else would catch it); an infinite grace ratio likewise. The
    estimator is never called: the refusal comes before anything is priced.
    """
    calls: list[str] = []
    st = store(2, text_estimator=lambda s: calls.append(s) or len(s))
    err = _refusal(st, config, budget)
    assert err.field == field
    assert str(err).startswith(f"{field}: ")
    for fragment in shown:
        assert fragment in str(err)
    assert calls == []


@pytest.mark.parametrize("name", ["head_window_tokens", "recent_window_tokens"])
def test_nan_window_is_refused(name: str) -> None:
    """A NaN window size is refused naming the window and saying it must not be NaN."""
    err = _refusal(store(2), Config(**{name: NAN}), Budget(max_tokens=100))
    assert err.field == name
    assert str(err) == f"{name}: must not be NaN"


def _estimator(bad_text: str):
    """A custom estimator that returns NaN for any text containing ``bad_text``, else its length."""
    return lambda s: NAN if bad_text in s else len(s)


@pytest.mark.parametrize(
    ("content", "config", "bad_text", "culprit"),
    [
        (f"answer {MARK}", Config(), MARK, "summary 'L1-0'"),
        ("answer", Config(recall_header_template="[Recall {id}] " + MARK), MARK, "summary 'L1-0'"),
        ("answer", Config(summary_context_label="Earlier? " + MARK), MARK, "summary_context_label"),
        ("answer", Config(), SEPARATOR, "separator"),
    ],
    ids=["answer", "question", "label", "separator"],
)
@pytest.mark.parametrize("positioned", [True, False])
def test_bad_estimate_names_whose_text_it_was(
    content: str, config: Config, bad_text: str, culprit: str, positioned: bool
) -> None:
    """A bad estimate on a summary's answer or question names the summary; on the label, its config field;
    on the separator, ``"separator"`` -- checked up front, whatever the mode, before any budget matters."""
    s = dataclasses.replace(summary("L1-0", 1, 2), content=content)
    st = dataclasses.replace(store(4), summaries=(s,), text_estimator=_estimator(bad_text))
    config = dataclasses.replace(config, positioned_recall_pairs=positioned)
    err = _refusal(st, config, Budget(max_tokens=INF))
    assert err.field == "text_estimator"
    assert "returned nan" in str(err)
    assert re.search(rf"(?<!\w){re.escape(culprit)}(?!\w)", str(err)), str(err)


#: The settings the refusals read, and numbers ordinary and bad (negative, infinite, NaN) for them.
SETTINGS = (
    "max_tokens",
    "reserve_for_response",
    "over_budget_grace_ratio",
    "head_window_tokens",
    "recent_window_tokens",
)
ordinary = st.sampled_from([0, 1, 7.5, 100])
bad = st.sampled_from([-1, -0.5, INF, -INF, NAN])


def contract_refusal(config: Config, budget: Budget) -> str | None:
    """The field the contract (docs/model.md, The bad-value refusals) refuses first, in its order, or None."""
    if not budget.max_tokens >= 0:
        return "max_tokens"
    if not (math.isfinite(budget.reserve_for_response) and budget.reserve_for_response >= 0):
        return "reserve_for_response"
    if budget.input_budget < 0:
        return "reserve_for_response"
    if not (math.isfinite(config.over_budget_grace_ratio) and config.over_budget_grace_ratio >= 0):
        return "over_budget_grace_ratio"
    return next((n for n in ("head_window_tokens", "recent_window_tokens") if math.isnan(getattr(config, n))), None)


@pytest.mark.parametrize("spoilt", SETTINGS)
@given(data=st.data())
def test_sound_refuses_exactly_what_the_contract_refuses_naming_the_first(spoilt, data):
    """One setting of the budget, the grace ratio and the windows bad (negative, infinite, NaN), each other one
    ordinary or bad: ``sound`` refuses with the field the contract names first, and nothing else as a bad value."""
    value = {name: data.draw(bad if name == spoilt else ordinary | bad, label=name) for name in SETTINGS}
    budget = Budget(max_tokens=value["max_tokens"], reserve_for_response=value["reserve_for_response"])
    config = Config(**{name: value[name] for name in SETTINGS[2:]})
    strategy = HierarchicalStrategy(config, SOUND)
    strategy.initialize(store(4))
    expected = contract_refusal(config, budget)
    try:
        strategy.compile(budget)
    except InvalidConfigError as refused:
        assert refused.field == expected, f"refused {refused.field!r}: {refused}"
    except (OverBudgetError, UncoveredDropError):
        assert expected is None, f"{expected} was not refused as a bad value"
    else:
        assert expected is None, f"{expected} was not refused"
