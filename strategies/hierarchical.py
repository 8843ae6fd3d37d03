"""``HierarchicalStrategy``: the optimized compile, one implementation for every variant (docs/model.md).

The pipeline: price every message once, find the windows, plan the head, the selected middle
(positioned or combined) and the tail, run the structural passes over the plan (tool pairing, tool
pruning, image stripping: docs/model.md, "Structural passes"), then emit the finished items under the
grace limit (the tail newest first) and check that nothing is lost.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace

from reference.model import Budget, Config, Content, Entry, Store, Summary
from reference.numerics import Number
from strategies.cap import truncate
from strategies.checks import check_summary_texts, check_values
from strategies.defects import Behaviour, Defect, Defects, Resumed, resolve_variant
from strategies.emission import (
    CompileResult,
    Item,
    Running,
    accept_tail,
    check_coverage,
    emit_combined,
    emit_head,
    emit_positioned,
)
from strategies.images import (
    DROPPED_PLACEHOLDER,
    PLACEHOLDER,
    ImagePolicy,
    advance_watermark,
    newer_start,
    store_wide,
    strip,
    strip_start,
)
from strategies.passes import Finished, finished_item, run_passes
from strategies.pricing import Memo, Prices, grace_limit, over_budget, owned_by
from strategies.raw_forms import release_edited
from strategies.selection import Selection, candidates, complete, waterfall
from strategies.stats import render_stats
from strategies.windows import windows


class HierarchicalStrategy:
    """Compiles a store into a context under a budget, or refuses with a diagnosable error.

    State, as in the TypeScript: the store it was initialized over, the bound store view, the
    answer-price memo, and on the hysteresis line the image watermark (kept across ``initialize``, as the
    TypeScript persists it in the store). On a line with ``PRUNE_WRITES_STORE`` a compile that sends can
    rewrite the store it holds (``store``).
    """

    def __init__(self, config: Config, variant: str | frozenset[Defect] | Defects | Resumed = "sound") -> None:
        if not isinstance(config, Config):
            raise TypeError(f"config must be a Config, got {type(config).__name__}")
        self.config = config
        self.defects = resolve_variant(variant)
        self._store: Store | None = None
        self._view: Store | None = None
        self._memo: Memo = {}
        self._watermark: int | None = variant.watermark if isinstance(variant, Resumed) else None

    @property
    def store(self) -> Store | None:
        """The store the strategy holds (rewritten by a compile on a line with ``PRUNE_WRITES_STORE``)."""
        return self._store

    @property
    def watermark(self) -> int | None:
        """The image-strip hysteresis watermark: a store index (None: none)."""
        return self._watermark

    @property
    def view(self) -> Store | None:
        """The store view currently bound (None when unbound)."""
        return self._view

    @property
    def memo(self) -> Memo:
        """A read-only look at the answer-price memo (for tests and reports)."""
        return dict(self._memo)

    def initialize(self, store: Store) -> None:
        """Bind to a store and clear the view (and, unless defective, the answer-price memo)."""
        if not isinstance(store, Store):
            raise TypeError(f"initialize(store): store must be a reference.model.Store, got {type(store).__name__}")
        self._store = store
        self._view = None
        if not self.defects.on(Defect.MEMO_SURVIVES_INITIALIZE):
            self._memo.clear()

    def compile(self, budget: Budget, dry_run: bool = False) -> CompileResult:
        """Send a context that fits ``budget``, or refuse; a dry run leaves the strategy as it was."""
        if self._store is None:
            raise RuntimeError("compile before initialize: call initialize(store) first")
        if not isinstance(budget, Budget):
            raise TypeError(
                f"compile(budget): budget must be a reference.model.Budget (e.g. Budget(max_tokens=8000)), "
                f"got {type(budget).__name__}"
            )
        store, defects = self._store, self.defects
        if not defects.on(Defect.UNCHECKED_BAD_VALUES):
            check_values(self.config, budget)
        keep_memo = not dry_run or defects.on(Defect.DRY_RUN_FILLS_MEMO)
        memo = self._memo if keep_memo else dict(self._memo)
        bind = not defects.on(Defect.VIEW_NEVER_BOUND)
        prior = self._view
        if bind:
            self._view = store
        try:
            prices = Prices(store, self.config, defects, self._view, memo)
            if defects.on(Behaviour.IMAGE_STRIP_HYSTERESIS):
                self._watermark = advance_watermark(
                    prices.messages(),
                    [m.content for m in store.messages],
                    self.config,
                    image_policy(defects, self._watermark),
                    defects.on(Defect.DEPTH_RULE_OFF_BY_ONE),
                )
            writes: dict[int, Content] = {}
            result = compile_context(store, self.config, budget, prices, self._watermark, writes)
            if writes:
                self._store = _rewritten(store, writes)
            return result
        finally:
            if bind and not defects.on(Defect.VIEW_NOT_RESTORED):
                self._view = prior


def image_policy(defects: Defects, watermark: int | None = None) -> ImagePolicy:
    """The image-stripping policy of a variant's line behaviours (the watermark only under hysteresis)."""
    return ImagePolicy(
        placeholder=DROPPED_PLACEHOLDER if defects.on(Behaviour.IMAGE_PLACEHOLDER_DROPPED) else PLACEHOLDER,
        byte_wall=defects.on(Behaviour.LIVE_IMAGE_BYTE_WALL),
        first_block_first=defects.on(Behaviour.IMAGES_FIRST_BLOCK_FIRST),
        watermark=watermark if defects.on(Behaviour.IMAGE_STRIP_HYSTERESIS) else None,
    )


def _rewritten(store: Store, writes: dict[int, Content]) -> Store:
    """The store with the given messages' content replaced (what ``PRUNE_WRITES_STORE`` leaves behind)."""
    messages = tuple(replace(m, content=writes.get(i, m.content)) for i, m in enumerate(store.messages))
    return Store(messages, store.summaries, store.calibration, store.pricing_epoch, store.text_estimator, store.work)


def compile_context(
    store: Store,
    config: Config,
    budget: Budget,
    prices: Prices,
    watermark: int | None = None,
    writes: dict[int, Content] | None = None,
) -> CompileResult:
    """The compile itself, over a fixed pricing (view and memo chosen by the caller).

    It plans the whole context first (no grace check: a compile that sends, sends all of it), runs
    the structural passes over the plan, then emits the finished items under the grace limit. When it
    sends, ``writes`` (if given) receives what pruning wrote into messages' own content.
    """
    defects = prices.defects
    policy = image_policy(defects, watermark)
    message_prices = prices.messages()
    if store.text_estimator is not None and not defects.on(Defect.UNCHECKED_BAD_VALUES):
        check_summary_texts(store, config, prices)
    contents = [m.content for m in store.messages]
    start = strip_start(message_prices, config.image_strip_depth_tokens)
    estimate_start = newer_start(message_prices, config.image_strip_depth_tokens)
    store_kept = store_wide(
        contents, estimate_start if defects.on(Defect.DEPTH_RULE_OFF_BY_ONE) else start, config, policy
    )

    def estimate(i: int) -> Callable[[Content], Number]:
        """The store's ``E`` for message ``i``'s item, its own content answered from its price."""
        return _priced_once(prices, contents[i], message_prices[i])

    pse = list(message_prices)  # a message's own price, unless the store-wide count strips an image of it
    for i, k in enumerate(store_kept):
        if k is not None:
            with owned_by(f"message {store.messages[i].id!r}"):
                pse[i] = estimate(i)(strip(contents[i], k, policy.placeholder))
    win = windows(
        message_prices,
        config.head_window_tokens,
        config.recent_window_tokens,
        recent_prices=pse,
        messages=store.messages,
    )

    def planned(i: int, region: str):
        fin = _unrepaired(store, i, config, defects.on(Behaviour.RAW_FORMS_RELEASED))
        return finished_item(store, i, region, fin, store_kept[i], config, prices, estimate(i), policy.placeholder)

    plan = Running(math.inf)  # no limit: the plan never refuses
    for i in range(win.head_end):
        plan.add(planned(i, "head"))
    plan.head_total = plan.total
    pool = candidates(store, win, defects)
    chosen = waterfall(pool, config, plan.head_total, budget.input_budget, over_budget(config), defects)
    selection = complete(store, chosen, win)
    pairs: dict[str, Item] = {}
    _emit_middle(plan, store, selection, [planned(i, "middle") for i in selection.raw], config, budget, prices, pairs)
    plan.items.extend(planned(i, "tail") for i in range(win.middle_end, len(store.messages)))
    finished = run_passes(store, plan.items, config, start, defects, policy)

    def item(i: int, region: str):
        return finished_item(
            store, i, region, finished[i], store_kept[i], config, prices, estimate(i), policy.placeholder
        )

    run = Running(grace_limit(budget.input_budget, config))
    for i in range(win.head_end):
        emit_head(run, item(i, "head"), store, budget, defects)
    recorded = _emit_middle(
        run, store, selection, [item(i, "middle") for i in selection.raw], config, budget, prices, pairs
    )
    tail = [item(i, "tail") for i in range(win.middle_end, len(store.messages))]
    accepted, evicted = accept_tail(run, tail, config)
    for it in accepted:
        run.add(it)
    sent_raw = frozenset(m for it in run.items for m in it.raw_ids)
    check_coverage(store, sent_raw, recorded, evicted)
    entries = tuple(e for it in run.items for e in it.entries)
    if writes is not None:
        writes.update({i: f.written for i, f in finished.items() if f.written is not None})
    return CompileResult(
        entries, render_stats(c for it in run.items for c in it.charges), tuple(s.id for s in selection.summaries)
    )


def _emit_middle(
    run: Running,
    store: Store,
    selection: Selection,
    middle_raw: list,
    config: Config,
    budget: Budget,
    prices: Prices,
    pairs: dict[str, Item],
) -> tuple[Summary, ...]:
    """The middle, positioned (each pair made once a compile, kept in ``pairs``) or combined; returns the summaries
    the coverage check counts."""
    if config.positioned_recall_pairs:
        return emit_positioned(run, store, selection, middle_raw, config, budget, prices, pairs)
    held = emit_combined(run, store, selection, middle_raw, config, budget, prices)
    return selection.summaries if prices.defects.on(Defect.COVERAGE_COUNTS_LEFT_OUT) else held


def _priced_once(prices: Prices, own: Content, price: Number) -> Callable[[Content], Number]:
    """``prices.E`` for one message's item: its own content object answers from the price the message already has,
    so each message is priced once however often it is read (any other content is priced where it is made)."""

    def E(content: Content) -> Number:
        return price if content is own else prices.E(content)

    return E


def _unrepaired(store: Store, i: int, config: Config, release: bool = False) -> Finished:
    """A raw message as planned: cut by the cap (``release``: with the raw forms the cut made untrue released)."""
    m = store.messages[i]
    content = truncate(m.content, config.cap)
    entry = Entry(m.participant, release_edited(m.content, content) if release else content, "raw", message_id=m.id)
    return Finished((entry,), (entry,), None)
