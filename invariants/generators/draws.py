"""The drawing helpers the generators share: weighted choices, and the pools of seeded samples.

A pooled draw is one Hypothesis choice: an index into a tuple built once by a seeded sampler of the
same mix, so a case costs a few choices rather than one per field.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from hypothesis import strategies as st


def weighted(*options: tuple[int, st.SearchStrategy]) -> st.SearchStrategy:
    """One of ``options`` with integer weights (a branch listed ``w`` times); shrinks toward the first option.

    The branch is one ``sampled_from`` choice: cheaper to draw than ``one_of``, which filters its branches.
    """
    branches = tuple(strat for _, strat in options)
    return _weighted(st.sampled_from([k for k, (w, _) in enumerate(options) for _ in range(w)]), branches)


@st.composite
def _weighted(draw: st.DrawFn, index: st.SearchStrategy[int], branches: tuple[st.SearchStrategy, ...]) -> object:
    return draw(branches[draw(index)])


def weights(*options: tuple[int, object]) -> st.SearchStrategy:
    """One of constant ``options`` with integer weights, in one choice; shrinks toward the first."""
    return st.sampled_from([value for w, value in options for _ in range(w)])


def choice(*groups: tuple[int, list]) -> st.SearchStrategy:
    """One draw from constant values: group ``k`` (weight ``w``) gets ``w`` parts in 12 of the mass.

    Shrinks toward the first value of the first group.
    """
    values: list = []
    for w, items in groups:
        n = w * 12
        values.extend((list(items) * (n // len(items) + 1))[:n])
    return st.sampled_from(values)


def pool_of(make: Callable[[random.Random], object], n: int, seed: int) -> tuple:
    """``n`` samples of ``make``, simplest (shortest) first, so that shrinking lands on the plain case."""
    r = random.Random(seed)
    return tuple(sorted((make(r) for _ in range(n)), key=lambda x: len(repr(x))))


def simplest_first(simplest: object, make: Callable[[random.Random], object], n: int, seed: int) -> tuple:
    """``simplest`` (where shrinking lands), then ``n`` samples of ``make`` in the order drawn.

    Hypothesis draws a long pool's index biased toward the start, so a pool sorted by simplicity would be
    drawn simple-heavy; in drawn order, the biased index still sees the sampler's mix.
    """
    r = random.Random(seed)
    return (simplest, *(make(r) for _ in range(n)))


def spread(ordered: tuple, rare: tuple) -> tuple:
    """``ordered`` (simplest first) with the ``rare`` samples spread evenly through it after its first entry.

    Hypothesis draws a long pool's index biased toward the start (the median index of a pool of 4,000 is about 600),
    so a sample at the end of a sorted pool is drawn a few times less often than its share; spread evenly, each
    ``rare`` kind is drawn about as often as the sampler made it, and the pool still shrinks toward its first entry.
    """
    if not ordered or not rare:
        return (*ordered, *rare)
    out = [ordered[0]]
    rest = ordered[1:]
    for k, sample in enumerate(rare):
        start, end = len(rest) * k // len(rare), len(rest) * (k + 1) // len(rare)
        out += [*rest[start:end], sample] if k % 2 else [sample, *rest[start:end]]
    return tuple(out)
