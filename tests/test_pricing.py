"""What each item is charged (docs/model.md, Prices and the floor): raw messages, the floor's excess, the faithful
positioned answer, the combined pair, the answer-price memo, the grace limit and ``over_budget``.

Expected prices are computed from the formulas in docs/model.md with the reference estimator (``content_tokens`` is
``E``, ``fallback_tokens`` the unbound view), never copied from a run.
"""

from __future__ import annotations

import json
import math

import pytest
from builders import FAITHFUL, MAIN, SOUND, VARIANT_NAMES, carriers, msg, prose, store, summary

from reference.estimator import content_tokens, fallback_tokens
from reference.model import Budget, Config, InvalidConfigError, Message, Store, Text
from reference.price import reference_price
from strategies import HierarchicalStrategy, OverBudgetError
from strategies.cap import truncate
from strategies.defects import parse_variant, resolve_variant
from strategies.emission import CompileResult
from strategies.pricing import BadEstimate, Prices, grace_limit, over_budget, owned_by
from strategies.recall import wrap

LABEL = Config().summary_context_label
INF = math.inf


def compiled(
    variant: str, st: Store, config: Config, max_tokens: float = INF
) -> tuple[HierarchicalStrategy, CompileResult]:
    """A strategy of ``variant`` that has compiled ``st`` once (and must have sent), and what it sent."""
    strategy = HierarchicalStrategy(config, variant)
    strategy.initialize(st)
    return strategy, strategy.compile(Budget(max_tokens=max_tokens))


def refusal(variant: str, st: Store, config: Config, max_tokens: float) -> OverBudgetError:
    strategy = HierarchicalStrategy(config, variant)
    strategy.initialize(st)
    with pytest.raises(OverBudgetError) as info:
        strategy.compile(Budget(max_tokens=max_tokens))
    return info.value


# ----------------------------------------------------------------------------- bad estimates


def test_bad_estimate_names_the_value_and_the_first_40_units_of_the_text() -> None:
    """The internal error carries what the estimator returned and for which text (cut to 40 characters)."""
    text = "0123456789" * 4 + "TAIL"
    err = BadEstimate(text, -2.5)
    assert err.text == text and err.value == -2.5
    assert str(err) == f"text estimator returned -2.5 for {text[:40]!r}"
    assert "TAIL" not in str(err)


@pytest.mark.parametrize("bad", [-3, math.nan, math.inf, "12"])
def test_sound_refuses_a_bad_estimate_naming_the_value_and_the_message(bad: object) -> None:
    """Bad-value refusals: a custom estimator output that is not a finite number >= 0 is refused with
    ``InvalidConfigError`` naming the field, the value returned and the message it priced."""
    st = store(3, text_estimator=lambda s: bad)
    strategy = HierarchicalStrategy(Config(), SOUND)
    strategy.initialize(st)
    with pytest.raises(InvalidConfigError) as info:
        strategy.compile(Budget(max_tokens=INF))
    assert info.value.field == "text_estimator"
    assert f"returned {bad!r} for text of message 'm0'" in str(info.value)


# ----------------------------------------------------------------------------- raw messages


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_raw_message_price_under_a_cap(variant: str) -> None:
    """Prices: a raw message is charged ``E`` of what is sent in ``sound`` (the cut text when the cap cuts,
    the original when it does not), and ``min(E, cap + 50)`` in the faithful variants."""
    cap = 6
    long = Message("m0", "user", (Text(prose(100)),))
    short = Message("m1", "assistant", (Text("ok"),))
    st = Store(messages=(long, short))
    config = Config(max_message_tokens=cap)
    stats = compiled(variant, st, config)[1].stats
    sent_long = truncate(long.content, cap)
    assert sent_long != long.content and truncate(short.content, cap) is short.content
    if variant == SOUND:
        expected = content_tokens(sent_long, st) + content_tokens(short.content, st)
    else:
        expected = min(content_tokens(long.content, st), cap + 50) + min(content_tokens(short.content, st), cap + 50)
    assert stats.total.tokens == expected


# ----------------------------------------------------------------------------- recall answers


def _floored_store(tokens: float) -> Store:
    """One L1 over m1..m2 whose reply has reasoning carriers (so the floor applies when ``tokens`` > 0)."""
    return store(4, [summary("L1-1", 1, 2, tokens=tokens, carriers=carriers())])


def _prose_price() -> int:
    return content_tokens(carriers(), store(1))


@pytest.mark.parametrize("tokens", [1, "exact", 500])
def test_sound_positioned_pair_adds_only_a_positive_excess(tokens: object) -> None:
    """Prices (sound): a positioned pair costs ``E(question) + E(answer) + max(0, tokens - E(live_prose))``;
    measured tokens below the estimate neither lower the price nor add anything."""
    t = _prose_price() if tokens == "exact" else tokens
    st = _floored_store(t)
    config = Config()
    strategy = HierarchicalStrategy(config, SOUND)
    strategy.initialize(st)
    result = strategy.compile(Budget(max_tokens=INF))
    question, answer = (e for e in result.entries if e.kind != "raw")
    excess = max(0, t - content_tokens(carriers(), st))
    assert result.stats.l1.tokens == content_tokens(question.content, st) + content_tokens(answer.content, st) + excess
    assert result.stats.total.tokens == reference_price(result.entries, st, config)


@pytest.mark.parametrize("tokens", [1, 500])
@pytest.mark.parametrize("variant", FAITHFUL)
def test_faithful_positioned_pair_is_label_plus_floored_uncapped_estimate(variant: str, tokens: int) -> None:
    """Prices (faithful): ``V(Text(label)) + max(s.tokens, V(wrap(live_prose(s))))`` when the floor applies;
    ``V`` is the fallback in ``main`` (never bound) and ``E`` in ``pr``."""
    st = _floored_store(tokens)
    config = Config(recall_envelope="xml")
    s = st.summary("L1-1")

    def view(content):
        return fallback_tokens(content) if variant == MAIN else content_tokens(content, st)

    expected = view((Text(LABEL),)) + max(tokens, view(wrap(carriers(), s, config)))
    assert compiled(variant, st, config)[1].stats.l1.tokens == expected


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_combined_pair_floor_per_variant(variant: str) -> None:
    """Prices, defects: the combined pair is ``V(label) + V(answer)`` in ``main`` (no floor, not checked, so the
    raw message after it refuses), and adds the held summary's excess in ``pr`` and ``sound`` (it refuses)."""
    st = store(3, [summary("L1-1", 0, 1, tokens=500, carriers=carriers())])
    config = Config(positioned_recall_pairs=False, over_budget_grace_ratio=0)
    err = refusal(variant, st, config, 35)
    raw = content_tokens(msg(2).content, st)
    if variant == MAIN:
        pair = fallback_tokens((Text(LABEL),)) + fallback_tokens(carriers())
        assert (err.actual, err.diagnostics.middle_count_unit) == (pair + raw, "raw-messages")
    else:
        estimate = content_tokens(carriers(), st)
        pair = content_tokens((Text(LABEL),), st) + estimate + max(0, 500 - estimate)
        assert (err.actual, err.diagnostics.middle_count_unit) == (pair, "selection-items")


# ----------------------------------------------------------------------------- the memo


def _json(value: object) -> str:
    """``JSON.stringify`` of a list of simple values (NaN becomes null)."""

    def js(v: object) -> object:
        return None if isinstance(v, float) and not math.isfinite(v) else v

    return json.dumps([js(v) for v in value], separators=(",", ":"), ensure_ascii=False)


@pytest.mark.parametrize("tokens", [30, math.nan])
@pytest.mark.parametrize("variant", FAITHFUL)
def test_memo_key_is_the_json_of_the_spec_key_list(variant: str, tokens: float) -> None:
    """Prices (docs/model.md): the faithful memo key is the JSON text of ``(id, tokens, label, envelope, carrier_policy,
    calibration)``, the calibration being the bound view's (``pr``), or 1 when unbound (``main``)."""
    st = store(4, [summary("L1-1", 1, 2, tokens=tokens)], calibration=1.5)
    config = Config(recall_envelope="xml", carrier_policy="live-strip")
    keys = {key for _, key in compiled(variant, st, config)[0].memo}
    calibration = 1 if variant == MAIN else 1.5
    assert keys == {_json(["L1-1", tokens, LABEL, "xml", "live-strip", calibration])}


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_memo_holds_the_forms_each_variant_prices(variant: str) -> None:
    """A positioned answer's price is memoized per form: the faithful variants price the uncapped wrapped
    prose (``"wrapped"``); ``sound`` prices the answer as sent (``"sent"``) plus the excess against the
    prose (``"prose"``)."""
    forms = {form for form, _ in compiled(variant, _floored_store(500), Config())[0].memo}
    assert forms == ({"sent", "prose"} if variant == SOUND else {"wrapped"})


# ----------------------------------------------------------------------------- the grace limit


@pytest.mark.parametrize(
    ("budget", "grace", "expected"),
    [
        (1000, 0.1, 1100),  # 1000 * 1.1 == 1100.0000000000002 in doubles; floored
        (101, 0.02, 103),  # 103.02 floored
        (77, 0.5, 115),  # 115.5 floored
        (50, 0, 50),
        (100, -0.5, 100),  # a negative grace is max(0, g) == 0
    ],
)
def test_grace_limit_is_the_floor_of_budget_times_one_plus_grace(budget: int, grace: float, expected: int) -> None:
    """docs/model.md, Config and budget: ``grace_limit = floor(B * (1 + max(0, g)))`` in doubles."""
    limit = grace_limit(budget, Config(over_budget_grace_ratio=grace))
    assert limit == expected and limit == math.floor(limit)


def test_grace_limit_nan_and_unenforced() -> None:
    """Config: a NaN grace makes the limit NaN; an unenforced budget is unlimited; an infinite budget stays so."""
    assert math.isnan(grace_limit(100, Config(over_budget_grace_ratio=math.nan)))
    assert grace_limit(100, Config(enforce_budget=False)) == INF
    assert grace_limit(INF, Config()) == INF


def test_compile_refuses_against_the_grace_limit() -> None:
    """Three messages of 10 (30 in all) with grace 0.1: B = 28 gives floor(30.8) = 30 and sends; B = 27 gives
    floor(29.7) = 29 and the last message refuses, reporting that limit."""
    st, config = store(3), Config(over_budget_grace_ratio=0.1)
    assert compiled(SOUND, st, config, 28)[1].stats.total.tokens == 30
    err = refusal(SOUND, st, config, 27)
    assert (err.budget, err.actual) == (29, 30)


@pytest.mark.parametrize(("x", "limit", "expected"), [(10, 10, False), (10.5, 10, True), (9, 10, False)])
def test_over_budget_is_strict(x: float, limit: float, expected: bool) -> None:
    """Config and budget: ``over_budget(x, limit)`` is ``x > limit`` (strict) when the budget is enforced."""
    assert over_budget(Config())(x, limit) is expected
    assert over_budget(Config(enforce_budget=False))(x, limit) is False


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_waterfall_takes_a_summary_whose_tokens_exactly_fill_the_budget(variant: str) -> None:
    """Selection: a level stops at ``over_budget(head + selected + s.tokens, B)``, strict.  An L2 whose tokens
    equal B is taken first (then the L1 joins by coverage); one token less and the L1 comes first.  The
    faithful combined answer follows that selection order; ``sound`` orders by position."""
    l1 = summary("L1-1", 0, 1)
    inner = summary("L1-2", 2, 3, parent="L2-1")
    l2 = summary("L2-1", 2, 3, level=2, sources=("L1-2",), tokens=200)
    st = store(4, [l1, inner, l2])
    config = Config(positioned_recall_pairs=False)
    for budget, faithful_order in ((200, ("L2-1", "L1-1")), (199, ("L1-1", "L2-1"))):
        strategy = HierarchicalStrategy(config, variant)
        strategy.initialize(st)
        (answer,) = (e for e in strategy.compile(Budget(max_tokens=budget)).entries if e.kind == "answer")
        assert answer.summary_ids == (("L1-1", "L2-1") if variant == SOUND else faithful_order)


# ----------------------------------------------------------------------------- the estimator's errors and purity


def test_bad_estimate_names_what_the_estimator_raised() -> None:
    err = BadEstimate("some text", error=ValueError("boom"))
    assert str(err) == "text estimator raised ValueError: boom for 'some text'"


def test_owned_by_names_the_culprit_and_the_first_40_units_of_its_text() -> None:
    text = "0123456789" * 4 + "TAIL"
    with pytest.raises(InvalidConfigError) as info, owned_by("message 'm7'"):
        raise BadEstimate(text, -1)
    assert str(info.value) == f"text_estimator: returned -1 for text of message 'm7' ({text[:40]!r})"


def test_owned_by_lets_any_other_exception_through() -> None:
    with pytest.raises(KeyError), owned_by("message 'm0'"):
        raise KeyError("not an estimate")


def _estimator(calls: list[str], pure: bool | None = None, value: float = 7):
    def estimate(text: str) -> float:
        calls.append(text)
        return value if pure else value + len(calls)

    if pure is not None:
        estimate.pure = pure
    return estimate


def _prices(st: Store, variant: str = SOUND) -> Prices:
    return Prices(st, Config(), parse_variant(variant), None, {})


def test_message_prices_of_the_default_estimator_are_kept_on_the_store() -> None:
    st = store(3)
    first = _prices(st).messages()
    assert first == tuple(content_tokens(m.content, st) for m in st.messages)
    assert _prices(st).messages() is first


def test_a_custom_estimator_that_says_it_is_pure_prices_each_message_once() -> None:
    calls: list[str] = []
    st = store(3, text_estimator=_estimator(calls, pure=True))
    assert _prices(st).messages() == _prices(st).messages()
    assert len(calls) == 3


def test_a_custom_estimator_that_does_not_say_it_is_pure_is_asked_again() -> None:
    """Each compile reads the messages' prices afresh: the estimator's second answers are the ones used."""
    calls: list[str] = []
    st = store(2, text_estimator=_estimator(calls))
    first, second = _prices(st).messages(), _prices(st).messages()
    assert len(calls) == 4
    assert first != second
    calls_pure_false: list[str] = []
    st = store(2, text_estimator=_estimator(calls_pure_false, pure=False))
    assert _prices(st).messages() != _prices(st).messages()
    assert len(calls_pure_false) == 4


def test_kept_message_prices_of_an_unchecked_variant_do_not_reach_a_checking_one() -> None:
    calls: list[str] = []
    st = store(2, text_estimator=_estimator(calls, pure=True, value=-1))
    unchecked = SOUND + "+UNCHECKED_BAD_VALUES"  # differs from sound in nothing else the prices read
    assert _prices(st, unchecked).messages() == (-1, -1)  # used verbatim
    with pytest.raises(InvalidConfigError, match="returned -1 for text of message 'm0'"):
        _prices(st, SOUND).messages()
    assert _prices(st, unchecked).messages() == (-1, -1)


# ----------------------------------------------------------------------------- a raw entry's charge


def test_a_raw_entry_sent_as_stored_is_charged_the_price_already_known() -> None:
    calls: list[str] = []
    st = Store(messages=(Message("m0", "user", (Text("hello"),)),), text_estimator=_estimator(calls, pure=True))
    content = st.messages[0].content
    assert _prices(st).raw(12, content, content) == 12
    assert calls == []


def test_a_raw_entry_sent_changed_is_charged_its_own_estimate() -> None:
    st = Store(messages=(Message("m0", "user", (Text(prose(100)),)),))
    content = st.messages[0].content
    sent = truncate(content, 6)
    assert _prices(st).raw(content_tokens(content, st), content, sent) == content_tokens(sent, st)


def test_raw_cap_plus_50_is_the_original_price_without_a_cap() -> None:
    st = Store(messages=(Message("m0", "user", (Text(prose(100)),)),))
    content = st.messages[0].content
    faithful = Prices(st, Config(), resolve_variant(MAIN), None, {})
    assert faithful.raw(100, content, content) == 100
    capped = Prices(st, Config(max_message_tokens=6), resolve_variant(MAIN), None, {})
    assert capped.raw(100, content, truncate(content, 6)) == 56
