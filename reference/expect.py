"""What a scenario file expects of each variant: it sends (and what), it refuses (and how), invariants.

Every field of ``Sends`` and ``Refuses`` is optional: None means "not checked". An expectation is
keyed by a variant name, ``faithful`` (both faithful seed variants) or ``all`` (the three seed variants);
a variant's own key wins
over ``faithful``, which wins over ``all`` (see ``expectation_for``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from reference.blocks import Content
from reference.numerics import Number
from reference.variant_names import FAITHFUL, SEED_VARIANTS, VARIANT_NAMES

__all__ = [
    "ERRORS",
    "FAITHFUL",
    "GROUPS",
    "SEED_VARIANTS",
    "SITES",
    "VARIANT_NAMES",
    "Expectation",
    "Refuses",
    "Sends",
    "expectation_for",
    "variants_named",
]

GROUPS: Mapping[str, tuple[str, ...]] = {"faithful": FAITHFUL, "all": SEED_VARIANTS}
#: Where an over-budget refusal happens: a head message, a raw middle message, a recall pair, the combined pair.
SITES: tuple[str, ...] = ("head", "middle-raw", "positioned-pair", "combined-pair")
ERRORS: tuple[str, ...] = ("OverBudgetError", "UncoveredDropError", "InvalidConfigError")


@dataclass(frozen=True)
class Sends:
    """The compile sends; optionally how many entries, the stats total, the raw ids, each answer's summaries,
    the images sent (``images``: per top-level image or image placeholder, in order, ``I`` live or ``.``
    stripped) and every entry's blocks (``content``)."""

    entries: int | None = None
    total: Number | None = None
    raw_ids: tuple[str, ...] | None = None
    summaries: tuple[tuple[str, ...], ...] | None = None
    images: str | None = None
    content: tuple[Content, ...] | None = None


@dataclass(frozen=True)
class Refuses:
    """The compile refuses; optionally with which error, where, and what the error reports."""

    error: str | None = None
    site: str | None = None
    unit: str | None = None
    cleared_by: tuple[str, ...] | None = None
    head_tokens: Number | None = None
    middle_tokens: Number | None = None
    actual: Number | None = None
    refused: tuple[str, ...] | None = None
    dropped: tuple[str, ...] | None = None
    categories: Mapping[str, str] | None = None
    field: str | None = None
    budget: Number | None = None
    configured_budget: Number | None = None
    reserve_for_response: Number | None = None
    input_budget: Number | None = None
    #: How many middle items (``unit``) the refusal counts (the TypeScript's ``middleChunkCount``).
    middle_count: int | None = None
    #: The summary inventory a line with the budget diagnostics reports (docs/model.md, Emission and the grace
    #: check): the highest stored level, and the number of stored summaries per level.
    deepest_available_level: int | None = None
    summary_counts_by_level: Mapping[int, int] | None = None
    #: The error's message, whole; ``message_matches``: patterns (Python ``re``, searched) it must each match.
    message: str | None = None
    message_matches: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Expectation:
    """At most one of ``sends`` / ``refuses``; ``breaks`` (invariants that must break, by the names the judges declare:
    ``invariants.reproduce`` refuses one it does not know) or ``holds`` (none breaks)."""

    sends: Sends | None = None
    refuses: Refuses | None = None
    breaks: tuple[str, ...] | None = None
    holds: bool = False


def variants_named(expect: Mapping[str, Expectation]) -> tuple[str, ...]:
    """The variants an ``expect`` section speaks about, in the usual order."""
    named = {v for key in expect for v in GROUPS.get(key, (key,))}
    return tuple(v for v in VARIANT_NAMES if v in named)


def expectation_for(expect: Mapping[str, Expectation], variant: str) -> Expectation | None:
    """The expectation that applies to ``variant``: its own, else ``faithful``'s, else ``all``'s."""
    if variant in expect:
        return expect[variant]
    if variant in FAITHFUL and "faithful" in expect:
        return expect["faithful"]
    return expect.get("all")
