"""``HierarchicalStrategy``: the optimized compile, one implementation for every variant (SPEC 6-13).

The pipeline: price every message once, find the windows, emit the head, select the middle, emit
it (positioned or combined), accept the tail newest first, then check that nothing is lost.
"""

from __future__ import annotations

from reference.model import Budget, Config, Store
from strategies.checks import check_summary_texts, check_values
from strategies.defects import Defect, Defects, resolve_variant
from strategies.emission import (
    CompileResult,
    Running,
    accept_tail,
    check_coverage,
    emit_combined,
    emit_head,
    emit_positioned,
    raw_item,
)
from strategies.pricing import Memo, Prices, grace_limit, over_budget, owned_by
from strategies.selection import candidates, complete, waterfall
from strategies.stats import render_stats
from strategies.windows import windows


class HierarchicalStrategy:
    """Compiles a store into a context under a budget, or refuses with a diagnosable error.

    State, as in the TypeScript: the store it was initialized over, the bound store view, and the
    answer-price memo.
    """

    def __init__(self, config: Config, variant: str | frozenset[Defect] | Defects = "sound") -> None:
        if not isinstance(config, Config):
            raise TypeError(f"config must be a Config, got {type(config).__name__}")
        self.config = config
        self.defects = resolve_variant(variant)
        self._store: Store | None = None
        self._view: Store | None = None
        self._memo: Memo = {}

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
        self._store = store
        self._view = None
        if not self.defects.on(Defect.MEMO_SURVIVES_INITIALIZE):
            self._memo.clear()

    def compile(self, budget: Budget, dry_run: bool = False) -> CompileResult:
        """Send a context that fits ``budget``, or refuse; a dry run leaves the strategy as it was."""
        if self._store is None:
            raise RuntimeError("compile before initialize: call initialize(store) first")
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
            return compile_context(store, self.config, budget, Prices(store, self.config, defects,
                                                                       self._view, memo))
        finally:
            if bind and not defects.on(Defect.VIEW_NOT_RESTORED):
                self._view = prior


def compile_context(store: Store, config: Config, budget: Budget, prices: Prices) -> CompileResult:
    """The compile itself, over a fixed pricing (view and memo chosen by the caller)."""
    defects = prices.defects
    message_prices = []
    for m in store.messages:
        with owned_by(f"message {m.id!r}"):
            message_prices.append(prices.E(m.content))
    if store.text_estimator is not None and not defects.on(Defect.UNCHECKED_BAD_VALUES):
        check_summary_texts(store, config, prices)
    win = windows(message_prices, config.head_window_tokens, config.recent_window_tokens)
    run = Running(grace_limit(budget.input_budget, config))

    def item(i: int, region: str):
        return raw_item(store, i, region, message_prices[i], config, prices)

    for i in range(win.head_end):
        emit_head(run, item(i, "head"), store, budget, defects)

    pool = candidates(store, win, defects)
    chosen = waterfall(pool, config, run.head_total, budget.input_budget, over_budget(config), defects)
    selection = complete(store, chosen, win, store.claimers())
    middle_raw = [item(i, "middle") for i in selection.raw]
    if config.positioned_recall_pairs:
        emit_positioned(run, store, selection, middle_raw, config, budget, prices)
        recorded = selection.summaries
    else:
        held = emit_combined(run, store, selection, middle_raw, config, budget, prices)
        recorded = selection.summaries if defects.on(Defect.COVERAGE_COUNTS_LEFT_OUT) else held

    tail = [item(i, "tail") for i in range(win.middle_end, len(store.messages))]
    accepted, evicted = accept_tail(run, tail, config)
    for it in accepted:
        run.add(it)
    sent_raw = frozenset(m for it in run.items for m in it.raw_ids)
    check_coverage(store, sent_raw, recorded, evicted)
    entries = tuple(e for it in run.items for e in it.entries)
    return CompileResult(entries, render_stats(c for it in run.items for c in it.charges),
                         tuple(s.id for s in selection.summaries))
