"""``cleared_by`` and the refused prefix: what clears a refusal (docs/model.md, Compression work and cleared_by)."""

from __future__ import annotations

from collections.abc import Iterable

from reference.model import Store, Summary
from strategies.defects import Defect, Defects

COMPRESSION = frozenset({"compression"})
NOTHING: frozenset[str] = frozenset()


def compression_work_queued(store: Store, within: frozenset[str] | None, defects: Defects) -> bool:
    """Any work at all (``within`` None), or work folding a message in ``within``, or one in flight unrecorded."""
    if within is None:
        return bool(store.work)
    for w in store.work:
        if w.folds is None:
            return True
        if w.kind == "chunk" and (defects.on(Defect.NARROW_NO_CHUNK) or w.folds & within):
            return True
        if w.kind == "merge" and (defects.on(Defect.NARROW_NO_MERGE) or any(store.leaves(s) & within for s in w.folds)):
            return True
    return False


def cleared_by(store: Store, within: frozenset[str] | None, defects: Defects) -> frozenset[str]:
    return COMPRESSION if compression_work_queued(store, within, defects) else NOTHING


def head_cleared_by(store: Store, defects: Defects) -> frozenset[str]:
    """Compression never folds the head away; faithfully, any work anywhere is named."""
    if defects.on(Defect.HEAD_CLEARED_BY_ANYWHERE):
        return cleared_by(store, None, defects)
    return NOTHING


def leaves_of(store: Store, summaries: Iterable[Summary]) -> frozenset[str]:
    return frozenset().union(*(store.leaves(s.id) for s in summaries))


def refused_prefix(
    store: Store,
    *,
    raw_before: Iterable[str],
    pairs_before: Iterable[Summary],
    refused_raw: Iterable[str],
    refused_pairs: Iterable[Summary],
    defects: Defects,
) -> frozenset[str] | None:
    """The messages the refused prefix holds: raw messages and pairs' leaves up to and including the refused item.

    None (any work anywhere) when middle refusals are not narrowed.
    """
    if defects.on(Defect.CLEARED_BY_ANYWHERE):
        return None
    within: set[str] = set()
    if not defects.on(Defect.PREFIX_NO_RAW):
        within.update(raw_before)
    if not defects.on(Defect.PREFIX_NO_LEAVES):
        within |= leaves_of(store, pairs_before)
    if not defects.on(Defect.PREFIX_NO_REFUSED):
        within.update(refused_raw)
        within |= leaves_of(store, refused_pairs)
    return frozenset(within)
