"""The generators reach every refusal site and every shape of work, each in at least 2% of the ``ci`` profile's
draws, and every shape of the reach report (invariants/reach.py, ``SHAPES``) in at least 1%; the tool generators reach
what they exist for (``TOOL_CASE_SHAPES``, ``PARALLEL_CASE_SHAPES``) in at least 1% of theirs.

The draws are the ``ci`` profile's (derandomized, so the figure is the same on every run); 1,000 of them, ten times
what one ``ci`` property test draws, so that a share of 1% is measured, not guessed.
"""

from __future__ import annotations

from collections import Counter

import pytest

from invariants.generators import Case, cases
from invariants.generators.config_mix import caps
from invariants.generators.content import ASTRAL_TEXTS
from invariants.generators.tool_cycles import tool_cases
from invariants.reach import (
    PARALLEL_CASE_SHAPES,
    SHAPE_GROUPS,
    SHAPES,
    SITES,
    TOOL_CASE_SHAPES,
    WORK_SHAPES,
    first_draws,
    shapes_of,
    site_of,
    work_shapes,
)
from reference.model import Budget, Config, Message, Store, Text

DRAWS = 1000
LEAST_SHARE = 0.02
#: The least share of the draws every shape of the reach report must reach (benchmarks/bench_reach.py prints them).
LEAST_SHAPE_SHARE = 0.01


@pytest.fixture(scope="module")
def drawn() -> list[Case]:
    """The ``ci`` profile's first ``DRAWS`` cases."""
    return first_draws(cases(), DRAWS)


def short_of(counts: Counter[str], names: tuple[str, ...], total: int, least: float = LEAST_SHARE) -> dict[str, int]:
    """The ``names`` counted in under ``least`` (by default ``LEAST_SHARE``) of ``total``."""
    return {name: counts[name] for name in names if counts[name] < least * total}


@pytest.mark.search
def test_every_refusal_site_is_reached_in_at_least_two_percent_of_the_draws(drawn):
    got = Counter(site_of(c) for c in drawn)
    short = short_of(got, SITES, len(drawn))
    assert not short, f"sites reached in under {LEAST_SHARE:.0%} of {len(drawn)} draws: {short} (all: {dict(got)})"


@pytest.mark.harness
def test_every_shape_of_work_is_drawn_in_at_least_two_percent_of_the_draws(drawn):
    """A check of the generators alone: it reads only the stores' work, which no model code computes."""
    got = Counter(shape for c in drawn for shape in work_shapes(c))
    short = short_of(got, WORK_SHAPES, len(drawn))
    assert not short, f"work shapes in under {LEAST_SHARE:.0%} of {len(drawn)} draws: {short} (all: {dict(got)})"


@pytest.mark.search
def test_every_shape_of_the_reach_report_is_drawn_in_at_least_one_percent_of_the_draws(drawn):
    """Each shape is read from the case and from what the reference sends (``shapes_of``)."""
    got = Counter(shape for c in drawn for shape in shapes_of(c))
    short = short_of(got, SHAPES, len(drawn), LEAST_SHAPE_SHARE)
    assert not short, f"shapes in under {LEAST_SHAPE_SHARE:.0%} of {len(drawn)} draws: {short}"


@pytest.mark.search
@pytest.mark.parametrize("parallel", [False, True], ids=["tool cases", "parallel tool cases"])
def test_the_tool_generators_draw_every_shape_they_exist_for_in_at_least_one_percent(parallel):
    """``tool_cases`` reach the tool passes' shapes, images kept and stripped by depth and windows of 0 among tool
    cycles; with ``parallel``, calls moved beside their sibling's result and calls stubbed beside it."""
    tool_drawn = first_draws(tool_cases(parallel=parallel), DRAWS)
    got = Counter(shape for c in tool_drawn for shape in shapes_of(c))
    names = PARALLEL_CASE_SHAPES if parallel else TOOL_CASE_SHAPES
    short = short_of(got, names, DRAWS, LEAST_SHAPE_SHARE)
    assert not short, f"shapes in under {LEAST_SHAPE_SHARE:.0%} of {DRAWS} tool-case draws: {short}"


#: The sound compile's outcome (``site_of``) each refusal shape stands for.
OUTCOME_OF = {
    "sent": "sent",
    "refused at the head": "head",
    "refused at a middle raw message": "positioned",
    "refused at a positioned pair": "positioned",
    "refused at the combined pair": "combined-pair",
    "refused at a raw message after the combined pair": "raw-after-combined",
    "tail evicted": "UncoveredDropError",
    "summary left out of the combined answer": "UncoveredDropError",
    "bad budget": "InvalidConfigError",
    "bad grace ratio or window": "InvalidConfigError",
    "bad estimate": "InvalidConfigError",
}


@pytest.mark.search
def test_the_reports_refusal_reading_is_what_the_sound_compile_does(drawn):
    """The report reads refusals from the reference alone; on every draw, the sound compile does the same."""
    assert set(OUTCOME_OF) == set(SHAPE_GROUPS["refusals"])
    wrong = []
    for case in drawn:
        read = {OUTCOME_OF[s] for s in shapes_of(case) if s in OUTCOME_OF}
        if read != {site_of(case)}:
            wrong.append((sorted(read), site_of(case)))
    assert not wrong, f"{len(wrong)} of {len(drawn)} draws read otherwise than the sound compile does: {wrong[:5]}"


def _cut_at_an_astral_character(text: str, cap: int) -> bool:
    one = Store(messages=(Message("m1", "user", (Text(text),)),))
    return "the cut at an astral character" in shapes_of(Case(one, Config(max_message_tokens=cap), Budget(10**6, 0)))


def test_every_small_whole_cap_drawn_cuts_some_astral_text_at_an_astral_character():
    """The cap counts UTF-16 units and a text holds code points: they part at an astral character, the cap's
    hardest cut. The astral pool reaches it under each whole cap of 1 to 20 tokens the configs draw, not only
    under the smallest (a share of all draws would not see the larger ones go)."""
    small = sorted({c for c in caps.elements if type(c) is int and 0 < c <= 20})
    assert len(small) >= 5
    assert [cap for cap in small if not any(_cut_at_an_astral_character(t, cap) for t in ASTRAL_TEXTS)] == []
