"""The campaign's named mutants: each known defect alone in ``sound``, and the seed's fourteen removals.

A named mutant is a variant plus switches (``strategies.defects.Defect``): the tests build strategies
by variant name, so ``reports.campaign.plugins.mutant_plugin`` adds the switches to that variant's defect set inside
one pytest subprocess (``--cm-mutant VARIANT+DEFECT``), and nothing on disk changes.

- ``defect:NAME``: each defect of ``KNOWN`` switched on alone in ``sound``. A suite that kills it can
  tell that defect from the sound compile.
- ``removal:SLUG``: one of the fourteen removals the seed's description lists ("each of fourteen
  removals fails at least one test"), each undoing one part of the change: the ``pr-8bb01ab8``
  variant plus one switch. ``SEED_REMOVALS`` keeps the seed's own wording beside each switch; it
  is the one place this table lives.

Generic operator mutants (mutmut) are named ``mutmut:<mutmut's name>``; see ``reports.campaign.mutmut.run``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from reference.variant_names import PR as SEED_PR
from reference.variant_names import SOUND
from reports.campaign.records import BaselineRecord, Kind, Outcome, TestRow
from strategies.defects import KNOWN, Defect

PR = SEED_PR


@dataclass(frozen=True)
class Mutant:
    """One named mutant: ``variant`` with ``defects`` switched on (``spec`` is the plugin's argument)."""

    id: str
    kind: str  # "defect" | "removal"
    variant: str
    defects: tuple[str, ...]
    wording: str  # what it undoes, in the seed's words (removals) or the defect's description

    @property
    def spec(self) -> str:
        """The ``--cm-mutant`` argument: ``VARIANT+DEFECT[+DEFECT...]``."""
        return "+".join((self.variant, *self.defects))


#: The seed's fourteen removals in the order its description lists them: (slug, the seed's words, switch).
SEED_REMOVALS: tuple[tuple[str, str, Defect], ...] = (
    ("the-guard", "the guard", Defect.COMBINED_UNCHECKED),
    ("the-floor", "the floor", Defect.COMBINED_NO_FLOOR),
    ("flooring-unheld", "flooring summaries the answer doesn't hold", Defect.FLOOR_UNHELD),
    ("binding-the-view", "binding the view", Defect.VIEW_NEVER_BOUND),
    ("putting-it-back", "putting it back", Defect.VIEW_NOT_RESTORED),
    ("initialize-clearing-the-memo", "initialize clearing the memo", Defect.MEMO_SURVIVES_INITIALIZE),
    ("the-split", "the split", Defect.HEAD_AS_MIDDLE),
    ("prefix-raw", "the prefix's three parts: the middle's raw messages up to the refused one", Defect.PREFIX_NO_RAW),
    (
        "prefix-leaves",
        "the prefix's three parts: the leaves of the summaries sent up to there",
        Defect.PREFIX_NO_LEAVES,
    ),
    ("prefix-refused", "the prefix's three parts: the refused item itself", Defect.PREFIX_NO_REFUSED),
    ("narrow-chunk", "the two ways of narrowing it: a chunk's folded messages", Defect.NARROW_NO_CHUNK),
    ("narrow-merge", "the two ways of narrowing it: a merge's summaries' leaves", Defect.NARROW_NO_MERGE),
    (
        "combined-prefix-at-pair",
        "the combined pair's summaries in the prefix, at the pair",
        Defect.COMBINED_PREFIX_AT_PAIR,
    ),
    (
        "combined-prefix-at-raw",
        "the combined pair's summaries in the prefix, at the raw message after it",
        Defect.COMBINED_PREFIX_AT_RAW,
    ),
)


def defect_mutants() -> list[Mutant]:
    """Each defect of ``KNOWN`` alone in ``sound``, in the enum's order."""
    return [Mutant(f"defect:{d.name}", Kind.DEFECT, SOUND, (d.name,), d.description) for d in Defect if d in KNOWN]


def removal_mutants() -> list[Mutant]:
    """The seed's fourteen removals, each the PR variant plus one switch."""
    return [Mutant(f"removal:{slug}", Kind.REMOVAL, PR, (d.name,), words) for slug, words, d in SEED_REMOVALS]


def named_mutants() -> list[Mutant]:
    return defect_mutants() + removal_mutants()


def parse_shard(text: str) -> tuple[int, int]:
    """``"I/N"`` (1 <= I <= N) as ``(I, N)``; ValueError otherwise."""
    try:
        i_text, n_text = text.split("/")
        i, n = int(i_text), int(n_text)
    except ValueError:
        raise ValueError(f"a shard is I/N with 1 <= I <= N, got {text!r}") from None
    if not 1 <= i <= n:
        raise ValueError(f"a shard is I/N with 1 <= I <= N, got {text!r}")
    return i, n


def shard_of(key: str, n: int) -> int:
    """The shard (1..n) that owns ``key``: a stable hash, so it never depends on the list's order."""
    return int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) % n + 1


def in_shard(ids: Iterable[str], shard: tuple[int, int]) -> list[str]:
    i, n = shard
    return [x for x in ids if shard_of(x, n) == i]


def by_id(mutants: Sequence[Mutant]) -> dict[str, Mutant]:
    return {m.id: m for m in mutants}


def tests_for(mutant: Mutant, baseline: BaselineRecord, all_variants: bool) -> list[TestRow]:
    """The baseline rows a mutant runs: passed on the baseline, not reading the defect table itself (a named
    mutant is an edit of that table: such a test would kill every one of them by construction) and, unless
    ``all_variants``, looked up the mutant's variant (a test that never builds a strategy of that variant
    cannot see its switches)."""
    return [
        r
        for r in baseline.tests
        if r.outcome == Outcome.PASSED
        and not r.reads_table
        and (all_variants or r.variants_used is None or mutant.variant in r.variants_used)
    ]
