"""``HierarchicalStrategy``'s own state and pipeline (docs/model.md): construction errors, the
store view's binding and restoring, the answer-price memo across ``initialize`` and dry runs, pricing each
message once, and ``sound``'s up-front check of the custom estimator (and its absence in the faithful variants).
"""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import pytest
from builders import MAIN, SOUND, VARIANT_NAMES, msg, store, summary

from reference.estimator import content_tokens, text_tokens
from reference.model import (
    Budget,
    Config,
    Image,
    InvalidConfigError,
    Message,
    Store,
    Summary,
    Text,
    ToolResult,
    ToolUse,
    Work,
)
from strategies import Defect, HierarchicalStrategy
from strategies.defects import HYSTERESIS_A95EB55B, RAW_FORMS_CBE7032A, Behaviour, Defects, Resumed
from strategies.hierarchical import _rewritten, image_policy
from strategies.images import DROPPED_PLACEHOLDER, PLACEHOLDER
from strategies.recall import SEPARATOR

LABEL = Config().summary_context_label
UNLIMITED = Budget(max_tokens=math.inf)


def _initialized(variant: str, st: Store, config: Config | None = None) -> HierarchicalStrategy:
    strategy = HierarchicalStrategy(config or Config(), variant)
    strategy.initialize(st)
    return strategy


def _with_pair() -> Store:
    """Four messages and one L1 over m1..m2: a positioned compile prices (and memoizes) one answer."""
    return store(4, [summary("L1-1", 1, 2, tokens=30)])


# ----------------------------------------------------------------------------- construction


def test_a_config_that_is_not_a_config_is_refused_by_type_name() -> None:
    """The constructor names the type it got, so a caller passing a dict sees what went wrong."""
    with pytest.raises(TypeError, match=r"^config must be a Config, got dict$"):
        HierarchicalStrategy({"max_message_tokens": 10})  # type: ignore[arg-type]


def test_compile_before_initialize_is_refused() -> None:
    """There is no store to compile before ``initialize``; the error says what to call."""
    with pytest.raises(RuntimeError, match=r"^compile before initialize: call initialize\(store\) first$"):
        HierarchicalStrategy(Config()).compile(UNLIMITED)


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_no_view_is_bound_before_initialize_or_after_it(variant: str) -> None:
    """A new strategy has no view bound (``view`` is None, not some other falsy value); ``initialize``
    clears it too."""
    strategy = HierarchicalStrategy(Config(), variant)
    assert strategy.view is None
    strategy.initialize(store(2))
    assert strategy.view is None


# ----------------------------------------------------------------------------- the store view


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_view_is_bound_for_the_select_and_restored_to_what_was_bound_before(variant: str) -> None:
    """The store view: ``pr`` and ``sound`` bind the store's view for the whole select and restore whatever was bound
    before; ``main`` never binds it.  A compile started while another is running (from inside the custom
    estimator) finds the outer binding and must leave it in place when it returns."""
    seen: dict[str, object] = {}
    holder: list[HierarchicalStrategy] = []

    def estimator(text: str) -> int:
        strategy = holder[0]
        if "during" not in seen:
            seen["during"] = strategy.view
            strategy.compile(UNLIMITED)
            seen["after_inner"] = strategy.view
        return text_tokens(text)

    st = store(3, text_estimator=estimator)
    holder.append(_initialized(variant, st))
    holder[0].compile(UNLIMITED)
    bound = None if variant == MAIN else st
    assert seen["during"] is bound
    assert seen["after_inner"] is bound
    assert holder[0].view is None


def test_view_left_bound_when_the_restore_is_switched_off() -> None:
    """The seed-removal switch ``VIEW_NOT_RESTORED`` (a defect set given as the variant) leaves the view bound
    after the select, which the invariants must be able to see."""
    st = store(2)
    strategy = _initialized(frozenset({Defect.VIEW_NOT_RESTORED}), st)  # type: ignore[arg-type]
    strategy.compile(UNLIMITED)
    assert strategy.view is st


# ----------------------------------------------------------------------------- the memo


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_memo_survives_initialize_only_on_main(variant: str) -> None:
    """Prices, defects: ``initialize`` clears the answer-price memo in ``pr`` and ``sound``; on ``main`` the memo
    survives (a seed defect)."""
    st = _with_pair()
    strategy = _initialized(variant, st)
    strategy.compile(UNLIMITED)
    assert strategy.memo
    strategy.initialize(st)
    assert bool(strategy.memo) is (variant == MAIN)


def test_a_plain_compile_commits_and_a_dry_run_does_not() -> None:
    """``compile(budget)`` is a committing compile (it memoizes the answer prices it computed); only
    ``dry_run=True`` leaves the strategy as it was in ``sound``."""
    st = _with_pair()
    dry = _initialized(SOUND, st)
    dry.compile(UNLIMITED, dry_run=True)
    assert dry.memo == {}
    real = _initialized(SOUND, st)
    real.compile(UNLIMITED)
    assert real.memo


# ----------------------------------------------------------------------------- the estimator


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_each_message_is_priced_once(variant: str) -> None:
    """The pipeline prices every message once and reuses that price (windows, head, middle and tail): a
    custom estimator sees each message's text exactly once when nothing is cut."""
    calls: Counter[str] = Counter()

    def estimator(text: str) -> int:
        calls[text] += 1
        return text_tokens(text)

    messages = tuple(Message(f"m{i}", "user", (Text(f"message number {i} " * 3),)) for i in range(4))
    st = Store(messages=messages, text_estimator=estimator)
    _initialized(variant, st, Config(head_window_tokens=5, recent_window_tokens=5)).compile(UNLIMITED)
    assert {m.content[0].text: calls[m.content[0].text] for m in messages} == {m.content[0].text: 1 for m in messages}


def _merged_store(estimator) -> Store:
    """m0..m3; a merged L1 over m0..m1 (its parent L2 is the live summary) with a text of its own."""
    inner = Summary(
        id="L1-1",
        level=1,
        content="merged summary text",
        tokens=10,
        source_level=0,
        source_ids=("m0", "m1"),
        source_range=("m0", "m1"),
        parent_id="L2-1",
    )
    outer = Summary(
        id="L2-1",
        level=2,
        content="live summary text",
        tokens=10,
        source_level=1,
        source_ids=("L1-1",),
        source_range=("m0", "m1"),
    )
    return store(4, [inner, outer], text_estimator=estimator)


@pytest.mark.parametrize(
    ("bad_text", "culprit"),
    [
        ("merged summary text", "summary 'L1-1'"),
        (LABEL, "summary_context_label"),
        (SEPARATOR, "separator"),
    ],
)
def test_sound_checks_the_estimator_on_every_summary_text_first(bad_text: str, culprit: str) -> None:
    """Bad-value refusals: ``sound`` runs a custom estimator over every summary's answer and question, the label and the
    separator before pricing, so a bad output is refused even for text this positioned compile never sends
    (a merged summary, the combined label, the separator); the error names its owner."""
    st = _merged_store(lambda s: -1 if s == bad_text else text_tokens(s))
    with pytest.raises(InvalidConfigError) as info:
        _initialized(SOUND, st).compile(UNLIMITED)
    assert info.value.field == "text_estimator"
    assert f"for text of {culprit}" in str(info.value)


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_only_sound_runs_the_estimator_over_unsent_summary_text(variant: str) -> None:
    """The up-front check is ``sound``'s (bad-value refusals); the faithful variants, like the TypeScript, call the
    estimator only on what they price, so a merged summary's text never reaches it there."""
    calls: Counter[str] = Counter()

    def estimator(text: str) -> int:
        calls[text] += 1
        return text_tokens(text)

    _initialized(variant, _merged_store(estimator)).compile(UNLIMITED)
    assert (calls["merged summary text"] > 0) is (variant == SOUND)
    assert (calls[SEPARATOR] > 0) is (variant == SOUND)


# ----------------------------------------------------------------------------- the plan: windows and planned prices


def _compiled(variant: str, st: Store, config: Config, max_tokens: float = math.inf):
    strategy = _initialized(variant, st, config)
    return strategy.compile(Budget(max_tokens=max_tokens))


def test_a_bad_estimate_of_a_stripped_message_names_the_message() -> None:
    """Only the placeholder is new text once m0's image is stripped; the refusal still names m0."""

    def estimate(text: str) -> float:
        return -1 if text == "[image omitted]" else len(text)

    st = Store(
        messages=(Message("m0", "user", (Text("a"), Image())), Message("m1", "user", (Image(),))),
        text_estimator=estimate,
    )
    with pytest.raises(InvalidConfigError) as info:
        _compiled(SOUND, st, Config(max_live_images=1))
    assert str(info.value) == "text_estimator: returned -1 for text of message 'm0' ('[image omitted]')"


def test_the_recent_window_walks_the_prices_after_stripping() -> None:
    """docs/model.md, Windows: m0's image is stripped (one live image), so m0 costs a placeholder and the whole
    store fits a recent window of 1700 (m2 10, m1 1600, m0 the placeholder); priced whole, m0 would not."""
    st = Store(messages=(Message("m0", "user", (Image(),)), Message("m1", "user", (Image(),)), msg(2)))
    stats = _compiled(SOUND, st, Config(max_live_images=1, recent_window_tokens=1700)).stats
    assert (stats.head.messages, stats.middle_raw.messages, stats.tail.messages) == (0, 0, 3)


def test_the_head_window_keeps_a_call_with_its_result() -> None:
    """m0 (10 tokens) and m1's call (26) fill a head window of 36, which would end right after the call: it
    steps back one, so m1 and its result m2 go to the middle together."""
    use, result = ToolUse("u0", "read", {"path": "a"}), ToolResult("u0", "contents")
    st = Store(messages=(msg(0), Message("m1", "assistant", (use,)), Message("m2", "user", (result,)), msg(3)))
    assert [content_tokens(m.content, st) for m in st.messages[:2]] == [10, 26]
    config = Config(head_window_tokens=36, recent_window_tokens=0)
    stats = _compiled(SOUND, st, config).stats
    assert stats.head.messages == 1


def test_the_faithful_plan_prices_the_head_by_the_store_wide_image_count() -> None:
    """IMAGE_COUNT_STORE_WIDE in the plan too: m2's image (folded into L1-a) is the newest, so m0's is priced as a
    placeholder (9 tokens, not 1602) and under a budget of 80 the waterfall itself takes both L1s, in the store's
    order (L1-b first); coverage completion would have added them in message order."""
    m0 = Message("m0", "user", (Text("hello"), Image()))
    st = Store(
        messages=(m0, msg(1), Message("m2", "assistant", (Image(),)), msg(3), msg(4), msg(5)),
        summaries=(summary("L1-b", 3, 4), summary("L1-a", 1, 2)),
    )
    config = Config(max_live_images=1, head_window_tokens=content_tokens(m0.content, st), recent_window_tokens=10)
    result = _compiled(MAIN, st, config, 80)
    assert result.stats.head.tokens == content_tokens((Text("hello"), Text(PLACEHOLDER)), st) == 9
    assert result.selected == ("L1-b", "L1-a")


def test_the_waterfall_counts_the_planned_head() -> None:
    """Each L1 reads 50 tokens to the waterfall; after the capped head (27) a budget of 70 has room for none, so
    coverage completion adds both in message order; under 80 the waterfall takes L1-b (store order) itself."""
    st = Store(
        messages=(Message("m0", "user", (Text("a" * 290),)), *(msg(i) for i in range(1, 6))),
        summaries=(summary("L1-b", 3, 4, tokens=50), summary("L1-a", 1, 2, tokens=50)),
    )
    config = Config(max_message_tokens=10, head_window_tokens=100, recent_window_tokens=10)
    assert _compiled(SOUND, st, config, 70).selected == ("L1-a", "L1-b")
    assert _compiled(SOUND, st, config, 80).selected == ("L1-b", "L1-a")


# ----------------------------------------------------------------------------- image policy on the newer lines


def test_the_watermark_holds_only_under_hysteresis() -> None:
    assert image_policy(Defects(), watermark=3).watermark is None
    assert image_policy(Defects(behaviours=frozenset({Behaviour.IMAGE_STRIP_HYSTERESIS})), watermark=3).watermark == 3


def test_a_resumed_strategy_starts_from_the_watermark_earlier_compiles_left() -> None:
    """``Resumed``: another strategy (a judge's) starts where the checked one stands; a variant by name starts
    with none."""
    line = Defects(behaviours=frozenset({Behaviour.IMAGE_STRIP_HYSTERESIS}))
    resumed = HierarchicalStrategy(Config(), Resumed(line, 3))
    assert (resumed.watermark, resumed.defects) == (3, line)
    assert HierarchicalStrategy(Config(), HYSTERESIS_A95EB55B).watermark is None
    assert HierarchicalStrategy(Config(), line).watermark is None


def test_a_rewritten_store_keeps_everything_but_the_written_content() -> None:
    st = Store(
        messages=(msg(0),),
        calibration=2.0,
        pricing_epoch=0,
        text_estimator=len,
        work=(Work("chunk", "queued", frozenset({"m0"})),),
    )
    out = _rewritten(st, {0: (Text("b"),)})
    assert out.messages[0].content == (Text("b"),)
    assert (out.calibration, out.pricing_epoch, out.text_estimator, out.work) == (2.0, 0, len, st.work)


@pytest.mark.parametrize("variant", [HYSTERESIS_A95EB55B, RAW_FORMS_CBE7032A])
@pytest.mark.parametrize("recent", [0, 10_000])
def test_the_newer_lines_send_their_own_placeholder(variant: str, recent: int) -> None:
    """m0's image is stripped (one live image): sent and priced as the newer placeholder, from the middle or tail."""
    st = Store(messages=(Message("m0", "user", (Text("a"), Image())), Message("m1", "user", (Image(),))))
    result = _compiled(variant, st, Config(max_live_images=1, recent_window_tokens=recent))
    assert result.entries[0].content == (Text("a"), Text(DROPPED_PLACEHOLDER))
    if not recent:  # a tail image sent as a placeholder is priced whole on these lines (a known defect)
        assert result.stats.total.tokens == sum(content_tokens(e.content, st) for e in result.entries)


def test_the_recent_window_prices_the_newer_placeholder() -> None:
    """m1's image costs 1600 and m0 sent with the newer placeholder 13: a window of 1613 holds both, 1612 only m1."""
    st = Store(messages=(Message("m0", "user", (Text("a"), Image())), Message("m1", "user", (Image(),))))
    tails = [
        _compiled(RAW_FORMS_CBE7032A, st, Config(max_live_images=1, recent_window_tokens=w)).stats.tail.messages
        for w in (1612, 1613)
    ]
    assert tails == [1, 2]


def test_the_newer_lines_price_the_first_image_kept() -> None:
    """Counting from the first block, m0 keeps its cheap first image; the price is that of what is sent."""
    st = Store(messages=(Message("m0", "user", (Image(token_estimate=100), Image(token_estimate=2000))),))
    result = _compiled(RAW_FORMS_CBE7032A, st, Config(max_live_images=1))
    assert result.entries[0].content == (Image(token_estimate=100), Text(DROPPED_PLACEHOLDER))
    assert result.stats.total.tokens == content_tokens(result.entries[0].content, st)


def test_the_hysteresis_line_moves_its_watermark_by_the_newer_messages_depth() -> None:
    """Each image costs 1600: summing only newer messages, m0 reaches 1600 (not past the depth), so no image misfits,
    the watermark stays unset and m1's image stays live; counting the message itself would strip it."""
    st = Store(messages=(Message("m0", "user", (Image(),)), Message("m1", "user", (Image(),))))
    config = Config(image_strip_depth_tokens=1600, image_strip_hysteresis_ratio=0.5)
    assert _compiled(HYSTERESIS_A95EB55B, st, config).entries[-1].content == (Image(),)


def readme_compile_example() -> str:
    """The README's example of the Python interface (the block after ``<!-- compile-example -->``)."""
    text = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    return text.split("<!-- compile-example -->", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]


def test_the_readmes_compile_example_runs_and_sends_its_two_messages_at_their_price(capsys):
    namespace: dict = {}
    exec(compile(readme_compile_example(), "README.md", "exec"), namespace)
    store = namespace["store"]
    sent = [("raw", m.id) for m in store.messages]
    price = sum(content_tokens(m.content, store) for m in store.messages)
    assert capsys.readouterr().out == f"{sent} {price}\n"
