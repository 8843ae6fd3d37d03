"""Render stats (docs/model.md, Stats): each bucket holds what was charged to it, levels 3+ share ``l3``.

In ``sound`` each bucket gets exactly the prices it charged, so every bucket is checked against the
reference price of the entries it stands for, and the total counts raw messages plus two per pair.
"""

from __future__ import annotations

import math
from itertools import pairwise

import pytest
from builders import SOUND, compile_with, store, summary
from hypothesis import given
from hypothesis import strategies as st

from reference.model import Config, Entry, Store
from reference.price import reference_price
from strategies.stats import Charge, LevelBucket, RawBucket, Total, level_bucket, render_stats


@pytest.mark.parametrize(("level", "bucket"), [(1, "l1"), (2, "l2"), (3, "l3"), (4, "l3"), (7, "l3")])
def test_level_bucket(level: int, bucket: str) -> None:
    """Levels 1 and 2 have their own bucket; level 3 and deeper count in ``l3``."""
    assert level_bucket(level) == bucket


def test_render_stats_folds_charges_per_bucket() -> None:
    """Charges to one bucket add up (messages, count, tokens); the total sums every bucket."""
    charges = [
        Charge("head", 10, messages=1),
        Charge("head", 12, messages=1),
        Charge("middle_raw", 7, messages=1),
        Charge("tail", 5, messages=1),
        Charge("tail", 6, messages=1),
        Charge("tail", 4, messages=1),
        Charge("combined", 40, messages=2),
        Charge("l1", 30, messages=2, count=1),
        Charge("l1", 0, count=1),
        Charge("l1", 20, messages=2, count=1),
        Charge("l2", 25, messages=2, count=1),
        Charge("l3", 11, messages=2, count=1),
        Charge("l3", 13, messages=2, count=1),
    ]
    stats = render_stats(iter(charges))
    assert stats.head == RawBucket(messages=2, tokens=22)
    assert stats.middle_raw == RawBucket(messages=1, tokens=7)
    assert stats.tail == RawBucket(messages=3, tokens=15)
    assert stats.combined == RawBucket(messages=2, tokens=40)
    assert stats.l1 == LevelBucket(count=3, tokens=50)
    assert stats.l2 == LevelBucket(count=1, tokens=25)
    assert stats.l3 == LevelBucket(count=2, tokens=24)
    assert stats.total == Total(messages=sum(c.messages for c in charges), tokens=sum(c.tokens for c in charges))


def test_render_stats_of_nothing_is_all_zero() -> None:
    """No charges: every bucket and the total are zero."""
    stats = render_stats(())
    assert stats.head == stats.tail == stats.middle_raw == stats.combined == RawBucket(0, 0)
    assert stats.l1 == stats.l2 == stats.l3 == LevelBucket(0, 0)
    assert stats.total == Total(0, 0)


def _leveled_store() -> Store:
    """Head m0-m1, tail m10-m11 (windows of 20), and a middle with an L1, an L2, an L3, an L4 and a raw m9."""
    return store(
        12,
        [
            summary("L1-0", 2, 3),
            summary("L1-1", 4, 5, parent="L2-0"),
            summary("L2-0", 4, 5, level=2, sources=("L1-1",)),
            summary("L1-2", 6, 7, parent="L2-1"),
            summary("L2-1", 6, 7, level=2, sources=("L1-2",), parent="L3-0"),
            summary("L3-0", 6, 7, level=3, sources=("L2-1",)),
            summary("L1-3", 8, 8, parent="L2-2"),
            summary("L2-2", 8, 8, level=2, sources=("L1-3",), parent="L3-1"),
            summary("L3-1", 8, 8, level=3, sources=("L2-2",), parent="L4-0"),
            summary("L4-0", 8, 8, level=4, sources=("L3-1",)),
        ],
    )


def _pairs(entries: tuple[Entry, ...]) -> list[tuple[Entry, Entry]]:
    return [(q, a) for q, a in pairwise(entries) if q.kind == "question"]


@pytest.mark.parametrize("positioned", [True, False])
def test_sound_stats_charge_each_bucket_its_price(positioned: bool) -> None:
    """Every bucket equals the reference price of its entries; pairs count in their level's bucket.

    Positioned: each pair's price goes to its summary's level (L4 into ``l3``). Combined: the pair's
    price goes to ``combined`` and each held summary counts in its level with 0 tokens.
    """
    st = _leveled_store()
    config = Config(head_window_tokens=20, recent_window_tokens=20, positioned_recall_pairs=positioned)
    result = compile_with(SOUND, st, config, math.inf).result
    assert result is not None
    stats, entries = result.stats, result.entries

    def raw(ids: set[str]) -> RawBucket:
        sent = [e for e in entries if e.kind == "raw" and e.message_id in ids]
        return RawBucket(messages=len(sent), tokens=reference_price(sent, st, config))

    assert stats.head == raw({"m0", "m1"}) == RawBucket(2, stats.head.tokens)
    assert stats.tail == raw({"m10", "m11"}) == RawBucket(2, stats.tail.tokens)
    assert stats.middle_raw == raw({"m9"}) == RawBucket(1, stats.middle_raw.tokens)
    levels = {"L1-0": "l1", "L2-0": "l2", "L3-0": "l3", "L4-0": "l3"}
    pairs = _pairs(entries)
    if positioned:
        assert sorted(a.summary_ids[0] for _, a in pairs) == sorted(levels)
        assert stats.combined == RawBucket(0, 0)
        for bucket in ("l1", "l2", "l3"):
            mine = [p for p in pairs if levels[p[1].summary_ids[0]] == bucket]
            price = reference_price([e for p in mine for e in p], st, config)
            assert getattr(stats, bucket) == LevelBucket(count=len(mine), tokens=price)
        assert stats.l3.count == 2
    else:
        assert len(pairs) == 1
        assert stats.combined == RawBucket(messages=2, tokens=reference_price(pairs[0], st, config))
        held = pairs[0][1].summary_ids
        for bucket in ("l1", "l2", "l3"):
            count = sum(levels[s] == bucket for s in held)
            assert getattr(stats, bucket) == LevelBucket(count=count, tokens=0)
        assert stats.l3.count == 2
    assert stats.total == Total(messages=5 + 2 * len(pairs), tokens=reference_price(entries, st, config))


@st.composite
def summary_chains(draw: st.DrawFn) -> Store:
    """Twelve messages (head m0-m1, tail m10-m11 under windows of 20) and, over disjoint runs of the middle, chains
    of one to five summaries, each level summarising the one below: the top of each chain is its run's candidate."""
    summaries = []
    first = 2
    for k in range(draw(st.integers(1, 4), label="chains")):
        if first > 9:
            break
        last = draw(st.integers(first, min(first + 2, 9)), label="run end")
        top = draw(st.integers(1, 5), label="levels")
        summaries += [
            summary(
                f"L{level}-{k}",
                first,
                last,
                level=level,
                sources=None if level == 1 else (f"L{level - 1}-{k}",),
                parent=f"L{level + 1}-{k}" if level < top else None,
            )
            for level in range(1, top + 1)
        ]
        first = last + 1 + draw(st.integers(0, 1), label="gap")
    return store(12, summaries)


def contract_bucket(level: int) -> str:
    """docs/model.md, Stats: level 1 in l1, 2 in l2, 3 and deeper in l3."""
    return {1: "l1", 2: "l2"}.get(level, "l3")


@given(chained=summary_chains(), positioned=st.booleans())
def test_each_level_bucket_counts_its_pairs_or_held_summaries_at_their_reference_price(chained, positioned):
    """Over chains of up to five levels: positioned, each pair's reference price goes to its summary's level
    bucket; combined, each held summary counts in its level's bucket with 0 tokens."""
    config = Config(head_window_tokens=20, recent_window_tokens=20, positioned_recall_pairs=positioned)
    result = compile_with(SOUND, chained, config, math.inf).result
    assert result is not None
    levels = {s.id: s.level for s in chained.summaries}
    pairs = _pairs(result.entries)
    for bucket in ("l1", "l2", "l3"):
        if positioned:
            mine = [p for p in pairs if contract_bucket(levels[p[1].summary_ids[0]]) == bucket]
            expected = LevelBucket(len(mine), reference_price([e for p in mine for e in p], chained, config))
        else:
            held = [sid for _, answer in pairs for sid in answer.summary_ids]
            expected = LevelBucket(sum(contract_bucket(levels[sid]) == bucket for sid in held), 0)
        assert getattr(result.stats, bucket) == expected, bucket
