"""Selection of the middle (docs/model.md, Selection): candidates, waterfall, coverage completion, order."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from reference.model import Config, Store, Summary
from reference.numerics import Number, is_number, js_blank
from strategies.defects import Defect, Defects
from strategies.windows import Windows

WATERFALL_LEVELS = (3, 2, 1)


@dataclass(frozen=True)
class Selection:
    """The selected summaries in selection order, and the middle's raw messages in store order."""

    summaries: tuple[Summary, ...]
    raw: tuple[int, ...]


def candidates(store: Store, win: Windows, defects: Defects) -> list[Summary]:
    """Unmerged summaries with content, less those whose leaves touch a window (L1s only, faithfully).

    Blank content (JavaScript's ``trim``) is no content; faithfully it still enters (``BLANK_SUMMARIES_SELECTED``).
    """
    in_window = frozenset(m.id for m in (*store.messages[: win.head_end], *store.messages[win.middle_end :]))
    out = []
    for s in store.unmerged():
        if js_blank(s.content) and not defects.on(Defect.BLANK_SUMMARIES_SELECTED):
            continue
        excluded_level = s.level == 1 or not defects.on(Defect.DEEP_WINDOW_CANDIDATES)
        if excluded_level and not in_window.isdisjoint(store.leaves(s.id)):
            continue
        out.append(s)
    return out


def waterfall_tokens(s: Summary, defects: Defects) -> Number:
    """``s.tokens`` as the waterfall reads it: verbatim faithfully, else 0 unless a finite number >= 0."""
    if defects.on(Defect.UNCHECKED_BAD_VALUES):
        return s.tokens
    t = s.tokens
    return t if is_number(t) and math.isfinite(t) and t >= 0 else 0


def waterfall(
    pool: Sequence[Summary],
    config: Config,
    head_tokens: Number,
    input_budget: Number,
    over_budget: Callable[[Number, Number], bool],
    defects: Defects,
) -> list[Summary]:
    """L3s, then L2s, then L1s, each level against its budget plus what the level above left."""
    level_budgets = {3: config.l3_budget_tokens, 2: config.l2_budget_tokens, 1: config.l1_budget_tokens}
    chosen: list[Summary] = []
    selected: Number = 0
    carry: Number = 0
    for level in WATERFALL_LEVELS:
        budget = level_budgets[level] + carry
        used: Number = 0
        for s in (c for c in pool if c.level == level):
            t = waterfall_tokens(s, defects)
            if used + t > budget or over_budget(head_tokens + selected + t, input_budget):
                break
            chosen.append(s)
            used += t
            selected += t
        carry = budget - used
    return chosen


def complete(store: Store, chosen: Sequence[Summary], win: Windows) -> Selection:
    """Coverage completion: each uncovered middle message's claimer joins, or the message goes raw.

    A claimer (``Store.claimers``) covers its own message, and a selected summary covers all its leaves, so a
    claimer met here is never selected yet: only the summaries not chosen are read for claims.
    """
    chosen_ids = {s.id for s in chosen}
    claimers = {
        m: s for s in store.unmerged() if s.id not in chosen_ids and not js_blank(s.content) for m in store.leaves(s.id)
    }
    selected = list(chosen)
    covered: set[str] = set().union(*(store.leaves(s.id) for s in selected))
    raw: list[int] = []
    for i in range(win.head_end, win.middle_end):
        mid = store.messages[i].id
        if mid in covered:
            continue
        claimer = claimers.get(mid)
        if claimer is None:
            raw.append(i)
        else:
            selected.append(claimer)
            covered |= store.leaves(claimer.id)
    return Selection(tuple(selected), tuple(raw))


def position(store: Store, s: Summary) -> int:
    """Where a summary's pair stands: the index of its first leaf."""
    return store.index(s.source_range[0])


def combined_order(store: Store, selection: Selection, defects: Defects) -> tuple[Summary, ...]:
    """The combined answer's order: by position (ties in creation order), or faithfully the selection's."""
    if defects.on(Defect.COMBINED_SELECTION_ORDER):
        return selection.summaries
    created = {s.id: k for k, s in enumerate(store.summaries)}
    return tuple(sorted(selection.summaries, key=lambda s: (position(store, s), created[s.id])))
