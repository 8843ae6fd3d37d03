"""The generators reach every refusal site: each in at least 2% of the ``ci`` profile's draws.

The draws are the ``ci`` profile's (derandomized, so the figure is the same on every run); 400 of
them, four times what one ``ci`` property test draws, so that a share of 2% is measured, not guessed.
"""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings

from invariants.generators import cases
from invariants.reach import SITES, site_of

DRAWS = 400
LEAST_SHARE = 0.02


def drawn_sites() -> Counter[str]:
    got: Counter[str] = Counter()

    @settings(max_examples=DRAWS, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(cases())
    def collect(case):
        got[site_of(case)] += 1

    collect()
    return got


@pytest.mark.search
def test_every_refusal_site_is_reached_in_at_least_two_percent_of_the_draws():
    got = drawn_sites()
    total = sum(got.values())
    short = {site: got[site] for site in SITES if got[site] < LEAST_SHARE * total}
    assert not short, f"sites reached in under {LEAST_SHARE:.0%} of {total} draws: {short} (all: {dict(got)})"
