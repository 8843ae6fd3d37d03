"""``cleared_by`` and the refused prefix (docs/model.md, Compression work and cleared_by).

A middle refusal names compression when queued work folds a message of the *refused prefix*: the middle's raw
messages up to and including the refused one, and the leaves of the pairs sent up to and including it (``pr``,
``sound``); ``main`` names it for any work anywhere.  The seed-removal switches each undo one part of that.
"""

from __future__ import annotations

import pytest
from builders import MAIN, VARIANT_NAMES, store, summary

from reference.model import Budget, Config, Store, Work
from strategies import Defect, HierarchicalStrategy, OverBudgetError
from strategies.clearing import compression_work_queued, head_cleared_by, refused_prefix
from strategies.defects import Defects

COMPRESSION = frozenset({"compression"})
NOTHING: frozenset[str] = frozenset()
CONFIG = Config(over_budget_grace_ratio=0)


def _refusal(variant: str, st: Store, max_tokens: int) -> OverBudgetError:
    strategy = HierarchicalStrategy(CONFIG, variant)
    strategy.initialize(st)
    with pytest.raises(OverBudgetError) as info:
        strategy.compile(Budget(max_tokens=max_tokens))
    return info.value


@pytest.mark.parametrize(
    ("work", "in_prefix"),
    [
        (Work("chunk", "queued", frozenset({"m0"})), True),  # a raw message sent before the refused one
        (Work("chunk", "running", frozenset({"m2"})), True),  # the refused message itself
        (Work("chunk", "queued", frozenset({"m3"})), False),  # after the refused one
        (Work("chunk", "running", None), True),  # in flight, nothing recorded
    ],
)
@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_raw_prefix_names_compression(variant: str, work: Work, in_prefix: bool) -> None:
    """Four raw middle messages of 10 at B = 20: m0 and m1 go out, m2 refuses.  Work folding m0 or m2 could
    clear it, work folding only m3 could not (``main`` names any work)."""
    err = _refusal(variant, store(4, work=[work]), 20)
    assert err.refused == ("m2",)
    expected = COMPRESSION if in_prefix or variant == MAIN else NOTHING
    assert err.diagnostics.cleared_by == expected


@pytest.mark.parametrize(
    ("work", "in_prefix"),
    [
        (Work("chunk", "queued", frozenset({"m1"})), True),  # a leaf of the pair sent before
        (Work("merge", "queued", frozenset({"L1-1"})), True),  # a merge of that pair's summary
        (Work("merge", "queued", frozenset({"L1-2"})), False),  # a merge of a summary after the refusal
    ],
)
@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_leaves_of_pairs_sent_before_are_in_the_prefix(variant: str, work: Work, in_prefix: bool) -> None:
    """A pair over m0..m1 goes out, then raw m2 refuses at B = 24 (the pair costs at most 22 in every
    variant).  Work over the pair's leaves is in the prefix; work over the later L1-2 (m4..m5) is not."""
    st = store(6, [summary("L1-1", 0, 1), summary("L1-2", 4, 5)], work=[work])
    err = _refusal(variant, st, 24)
    assert err.refused == ("m2",)
    expected = COMPRESSION if in_prefix or variant == MAIN else NOTHING
    assert err.diagnostics.cleared_by == expected


# ----------------------------------------------------------------------------- the functions and the switches


def _st() -> Store:
    return store(6, [summary("L1-1", 0, 1), summary("L1-2", 4, 5)])


SWITCHED_PREFIX = {
    # switch: the prefix for raw m2 before, pair L1-1 (m0, m1) before, refused raw m3
    None: {"m2", "m0", "m1", "m3"},
    Defect.PREFIX_NO_RAW: {"m0", "m1", "m3"},
    Defect.PREFIX_NO_LEAVES: {"m2", "m3"},
    Defect.PREFIX_NO_REFUSED: {"m2", "m0", "m1"},
}


@pytest.mark.parametrize("switch", list(SWITCHED_PREFIX))
def test_refused_prefix_and_its_removal_switches(switch: Defect | None) -> None:
    """The prefix holds raw messages before, leaves of pairs before, and the refused item; each seed-removal
    switch leaves out exactly its part."""
    st = _st()
    defects = Defects(frozenset() if switch is None else frozenset({switch}))
    within = refused_prefix(
        st, raw_before=["m2"], pairs_before=[st.summary("L1-1")], refused_raw=["m3"], refused_pairs=[], defects=defects
    )
    assert within == frozenset(SWITCHED_PREFIX[switch])


def test_refused_pairs_leaves_are_in_the_prefix_and_cleared_by_anywhere_gives_none() -> None:
    """A refused pair contributes its leaves; with ``CLEARED_BY_ANYWHERE`` there is no prefix (any work)."""
    st = _st()
    kw = dict(raw_before=[], pairs_before=[], refused_raw=[], refused_pairs=[st.summary("L1-2")])
    assert refused_prefix(st, defects=Defects(), **kw) == frozenset({"m4", "m5"})
    assert refused_prefix(st, defects=Defects(frozenset({Defect.CLEARED_BY_ANYWHERE})), **kw) is None


@pytest.mark.parametrize(
    ("work", "switch"),
    [
        (Work("chunk", "queued", frozenset({"m3"})), Defect.NARROW_NO_CHUNK),
        (Work("merge", "queued", frozenset({"L1-2"})), Defect.NARROW_NO_MERGE),
    ],
)
def test_narrowing_switches_count_work_whatever_it_folds(work: Work, switch: Defect) -> None:
    """Work folding nothing in the prefix {m0} does not count; with its kind's seed-removal switch on it does,
    and the other kind's switch changes nothing."""
    st = store(6, [summary("L1-1", 0, 1), summary("L1-2", 4, 5)], work=[work])
    within = frozenset({"m0"})
    other = Defect.NARROW_NO_MERGE if switch is Defect.NARROW_NO_CHUNK else Defect.NARROW_NO_CHUNK
    assert compression_work_queued(st, within, Defects()) is False
    assert compression_work_queued(st, within, Defects(frozenset({other}))) is False
    assert compression_work_queued(st, within, Defects(frozenset({switch}))) is True
    assert compression_work_queued(st, None, Defects()) is True


@pytest.mark.parametrize("switched", [False, True])
def test_head_cleared_by(switched: bool) -> None:
    """cleared_by: compression never folds the head away, so ``sound`` names nothing at a head refusal; with
    ``HEAD_CLEARED_BY_ANYWHERE`` (the faithful variants) any work anywhere is named, and no work is not."""
    defects = Defects(frozenset({Defect.HEAD_CLEARED_BY_ANYWHERE}) if switched else frozenset())
    busy = store(3, work=[Work("chunk", "queued", frozenset({"m2"}))])
    assert head_cleared_by(busy, defects) == (COMPRESSION if switched else NOTHING)
    assert head_cleared_by(store(3), defects) == NOTHING
