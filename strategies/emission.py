"""Emission: head, middle, tail under the grace limit, then coverage (docs/model.md, Emission and the grace check).

Each item is checked *before* it is added: ``T + price > grace_limit`` refuses.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from reference.model import Budget, Config, Entry, Store, Summary, Text
from reference.numerics import Number, js_blank
from strategies.clearing import cleared_by, head_cleared_by, leaves_of, refused_prefix
from strategies.defects import Behaviour, Defect, Defects
from strategies.errors import EMISSION_STAGE, Diagnostics, MiddleUnit, OverBudgetError, UncoveredDropError
from strategies.pricing import Prices, owned_by
from strategies.recall import QUESTION_PARTICIPANT, combined_answer, header, positioned_answer
from strategies.selection import Selection, combined_order, position
from strategies.stats import Charge, RenderStats, level_bucket


@dataclass(frozen=True)
class CompileResult:
    """What a compile sends, and what it charged where."""

    entries: tuple[Entry, ...]
    stats: RenderStats
    #: The summaries the selection chose, in selection order (what the reference rendering is given).
    selected: tuple[str, ...] = ()


@dataclass(frozen=True)
class Item:
    """One unit of emission: a raw message or a recall pair, with its price and its stats charges."""

    name: str
    entries: tuple[Entry, ...]
    price: Number
    charges: tuple[Charge, ...]
    level: int = 0
    raw_ids: tuple[str, ...] = ()
    pairs: tuple[Summary, ...] = ()


@dataclass
class Running:
    """The running total and what has been emitted so far (local to one compile)."""

    limit: Number
    total: Number = 0
    head_total: Number = 0
    items: list[Item] = field(default_factory=list)

    def fits(self, price: Number) -> bool:
        return not self.total + price > self.limit

    def add(self, item: Item) -> None:
        self.items.append(item)
        self.total += item.price


@dataclass(frozen=True)
class Site:
    """Where a middle refusal happens and what it reports there."""

    unit: MiddleUnit
    count: int
    within: frozenset[str] | None


# ----------------------------------------------------------------------------- items


def positioned_item(s: Summary, config: Config, prices: Prices) -> Item:
    question = (Text(header(s, config, prices.defects)),)
    answer = positioned_answer(s, config)
    with owned_by(f"summary {s.id!r}"):
        price = prices.question(question) + prices.answer(s, answer)
    entries = (
        Entry(QUESTION_PARTICIPANT, question, "question"),
        Entry(config.summary_participant, answer, "answer", summary_ids=(s.id,)),
    )
    charge = Charge(level_bucket(s.level), price, messages=2, count=1)
    return Item(f"recall pair for {s.id!r}", entries, price, (charge,), level=s.level, pairs=(s,))


def combined_item(selected: Sequence[Summary], ordered: Sequence[Summary], config: Config, prices: Prices) -> Item:
    answer = combined_answer(ordered, config)
    question = (Text(config.summary_context_label),)
    floored = selected if prices.defects.on(Defect.FLOOR_UNHELD) else answer.held
    with owned_by("the combined recall pair"):
        price = prices.combined(question, answer.content, floored)
    entries = (
        Entry(QUESTION_PARTICIPANT, question, "question"),
        Entry(config.summary_participant, answer.content, "answer", summary_ids=tuple(s.id for s in answer.held)),
    )
    if prices.defects.on(Defect.COMBINED_STATS_TOKENS):
        charges = tuple(Charge(level_bucket(s.level), s.tokens, count=1) for s in selected)
        charges += (Charge("combined", 0, messages=2),)
    else:
        charges = (Charge("combined", price, messages=2),)
        charges += tuple(Charge(level_bucket(s.level), 0, count=1) for s in answer.held)
    level = max((s.level for s in answer.held), default=0)
    return Item(
        f"the combined recall pair ({len(answer.held)} of {len(selected)} summaries)",
        entries,
        price,
        charges,
        level=level,
        pairs=answer.held,
    )


# ----------------------------------------------------------------------------- refusals


def _diagnostics(
    run: Running,
    price: Number,
    store: Store,
    budget: Budget,
    *,
    site: Site | None,
    level: int,
    cleared: frozenset[str],
    defects: Defects,
) -> Diagnostics:
    """A refusal's diagnostics: at the head where ``site`` is None, else at that middle site."""
    actual = run.total + price
    if site is None:
        head_tokens, middle_tokens, count, unit = actual, 0, 0, "selection-items"
    else:
        head_tokens = 0 if defects.on(Defect.HEAD_AS_MIDDLE) else run.head_total
        middle_tokens = actual - head_tokens
        count, unit = site.count, site.unit
    deepest, counts = inventory(store) if defects.on(Behaviour.BUDGET_DIAGNOSTICS) else (None, None)
    return Diagnostics(
        head_tokens=head_tokens,
        tail_tokens=0,
        middle_tokens=middle_tokens,
        middle_count=count,
        middle_count_unit=unit,
        deepest_level=level,
        configured_budget=budget.max_tokens,
        reserve_for_response=budget.reserve_for_response,
        input_budget=budget.input_budget,
        cleared_by=cleared,
        deepest_available_level=deepest,
        summary_counts_by_level=counts,
    )


def inventory(store: Store) -> tuple[int, dict[int, int]]:
    """The summary inventory (``BUDGET_DIAGNOSTICS``): the highest level stored (0 with none) and how many
    summaries each level holds, merged ones included (summaryInventoryDiagnostics, a95eb55b)."""
    counts = Counter(s.level for s in store.summaries)
    return max(counts, default=0), dict(sorted(counts.items()))


def _refuse(run: Running, item: Item, diagnostics: Diagnostics) -> OverBudgetError:
    return OverBudgetError(
        budget=run.limit,
        actual=run.total + item.price,
        stage=EMISSION_STAGE,
        diagnostics=diagnostics,
        item=item.name,
        refused=item.raw_ids or tuple(s.id for s in item.pairs),
    )


def emit_head(run: Running, item: Item, store: Store, budget: Budget, defects: Defects) -> None:
    if not run.fits(item.price):
        diag = _diagnostics(
            run,
            item.price,
            store,
            budget,
            site=None,
            level=0,
            cleared=head_cleared_by(store, defects),
            defects=defects,
        )
        raise _refuse(run, item, diag)
    run.add(item)
    run.head_total = run.total


def middle_refusal(
    run: Running, item: Item, site: Site, store: Store, budget: Budget, defects: Defects
) -> OverBudgetError:
    diag = _diagnostics(
        run,
        item.price,
        store,
        budget,
        site=site,
        level=item.level,
        cleared=cleared_by(store, site.within, defects),
        defects=defects,
    )
    return _refuse(run, item, diag)


# ----------------------------------------------------------------------------- the middle


def _middle_sent(run: Running, head_items: int) -> tuple[list[str], list[Summary]]:
    middle = run.items[head_items:]
    return ([m for it in middle for m in it.raw_ids], [s for it in middle for s in it.pairs])


def emit_positioned(
    run: Running,
    store: Store,
    selection: Selection,
    raw_items: Sequence[Item],
    config: Config,
    budget: Budget,
    prices: Prices,
    made: dict[str, Item],
) -> tuple[Summary, ...]:
    """One pair per selected summary and each raw message, in position order (pairs first on a tie).

    A blank summary gets no pair (it still counts as a middle item); returns the summaries sent. ``made`` holds the
    pairs made so far in this compile, by summary id: a pair is made (and priced) once, the plan's is the run's.
    """
    defects = prices.defects
    keyed = [((position(store, s), 0, k), s) for k, s in enumerate(selection.summaries)]
    keyed += [((store.index(it.raw_ids[0]), 1, k), it) for k, it in enumerate(raw_items)]
    keyed.sort(key=lambda kv: kv[0])
    start = len(run.items)
    for _, thing in keyed:
        if isinstance(thing, Summary) and js_blank(thing.content):
            continue
        if isinstance(thing, Summary):
            if thing.id not in made:
                made[thing.id] = positioned_item(thing, config, prices)
            item = made[thing.id]
        else:
            item = thing
        if not run.fits(item.price):
            raw_before, pairs_before = _middle_sent(run, start)
            within = refused_prefix(
                store,
                raw_before=raw_before,
                pairs_before=pairs_before,
                refused_raw=item.raw_ids,
                refused_pairs=item.pairs,
                defects=defects,
            )
            site = Site("selection-items", len(keyed), within)
            raise middle_refusal(run, item, site, store, budget, defects)
        run.add(item)
    return tuple(s for it in run.items[start:] for s in it.pairs)


def emit_combined(
    run: Running,
    store: Store,
    selection: Selection,
    raw_items: Sequence[Item],
    config: Config,
    budget: Budget,
    prices: Prices,
) -> tuple[Summary, ...]:
    """The combined pair (when anything is selected), then the raw middle messages; returns what it holds."""
    defects = prices.defects
    held: tuple[Summary, ...] = ()
    if selection.summaries:
        ordered = combined_order(store, selection, defects)
        pair = combined_item(selection.summaries, ordered, config, prices)
        held = pair.pairs
        if not defects.on(Defect.COMBINED_UNCHECKED) and not run.fits(pair.price):
            at_pair = () if defects.on(Defect.COMBINED_PREFIX_AT_PAIR) else held
            within = refused_prefix(
                store, raw_before=(), pairs_before=(), refused_raw=(), refused_pairs=at_pair, defects=defects
            )
            site = Site("selection-items", len(selection.summaries), within)
            raise middle_refusal(run, pair, site, store, budget, defects)
        run.add(pair)
    pairs_before = () if defects.on(Defect.COMBINED_PREFIX_AT_RAW) else held
    for k, item in enumerate(raw_items):
        if not run.fits(item.price):
            raw_before = [m for it in raw_items[:k] for m in it.raw_ids]
            within = refused_prefix(
                store,
                raw_before=raw_before,
                pairs_before=pairs_before,
                refused_raw=item.raw_ids,
                refused_pairs=(),
                defects=defects,
            )
            site = Site("raw-messages", len(raw_items), within)
            raise middle_refusal(run, item, site, store, budget, defects)
        run.add(item)
    return held


# ----------------------------------------------------------------------------- the tail and coverage


def accept_tail(run: Running, tail_items: Sequence[Item], config: Config) -> tuple[list[Item], list[str]]:
    """Accept tail messages newest first while they fit; the first that does not, and all older, are evicted."""
    accepted: list[Item] = []
    sum_accepted: Number = 0
    for k in range(len(tail_items) - 1, -1, -1):
        item = tail_items[k]
        if config.enforce_budget and run.total + sum_accepted + item.price > run.limit:
            return accepted[::-1], [m for it in tail_items[: k + 1] for m in it.raw_ids]
        accepted.append(item)
        sum_accepted += item.price
    return accepted[::-1], []


def check_coverage(store: Store, sent_raw: frozenset[str], recorded: Sequence[Summary], evicted: Sequence[str]) -> None:
    """Every message is sent raw or a leaf of a recorded summary; evicted ones are lost whatever covers them.

    Ids are unique, so when nothing is evicted and the covered and the other sent ids number the messages, none
    is lost (and no message is read).
    """
    covered = leaves_of(store, recorded)
    if not evicted and len(covered) + len(sent_raw - covered) == len(store.messages):
        return
    evicted_set = frozenset(evicted)
    recorded_ids = {s.id for s in recorded}
    unrecorded = leaves_of(store, (s for s in store.unmerged() if s.id not in recorded_ids))
    dropped: list[str] = []
    categories: dict[str, str] = {}
    for m in store.messages:
        if m.id in evicted_set:
            categories[m.id] = "in-tail-not-rendered"
        elif m.id in sent_raw or m.id in covered:
            continue
        elif m.id in unrecorded:
            categories[m.id] = "covered-by-unemitted-summary"
        else:
            categories[m.id] = "not-covered"
        dropped.append(m.id)
    if dropped:
        raise UncoveredDropError(tuple(dropped), categories)
