"""A generated case costs a few Hypothesis choices, each from a pool (invariants.generators, "Most of a case is
pooled"): the cost per case that bench_properties.py measures, pinned so that a change to the generators which
draws field by field again shows here, not only in a benchmark."""

from __future__ import annotations

import statistics

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis.control import current_build_context

from invariants.generators import cases

DRAWS = 200
#: The generators make about 5.5 choices a case; drawing one summary's fields or one config field per choice
#: makes it 11 or more.
MOST_CHOICES = 7


@pytest.mark.harness
def test_a_case_costs_a_few_choices_on_average():
    """The ``ci`` profile's first draws; the count is read from the engine's data (``current_build_context`` is
    Hypothesis's, not part of its documented API, as in bench_properties.py)."""
    counts: list[int] = []

    @settings(
        max_examples=DRAWS, derandomize=True, database=None, deadline=None, suppress_health_check=list(HealthCheck)
    )
    @given(cases())
    def collect(case):
        counts.append(len(current_build_context().data.choices))

    collect()
    assert statistics.mean(counts) <= MOST_CHOICES, (
        f"a case costs {statistics.mean(counts):.1f} Hypothesis choices on average over {len(counts)} draws"
    )
