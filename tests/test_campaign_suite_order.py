"""The suite's order from the campaign (issue 6): ranked tests first, then the others file by file, the harness
last; the order file ranks test functions by the mutants they killed."""

from __future__ import annotations

from dataclasses import replace

import pytest
from campaign_helpers import MUTANTS

from reports.render.report_model import build

pytestmark = pytest.mark.harness


# ----------------------------------------------------------------------------- the suite's order


def test_the_suite_runs_the_ranked_tests_in_rank_order_then_the_others_file_by_file_and_the_harness_last(pytester):
    from invariants.plugin import suite_order

    pytester.makepyfile(
        test_a="import pytest\n\ndef test_weak():\n    pass\n\n"
        "@pytest.mark.harness\ndef test_tool():\n    pass\n\ndef test_strong():\n    pass\n\n"
        "def test_unranked():\n    pass\n",
        test_b="def test_mid():\n    pass\n\ndef test_other():\n    pass\n",
    )
    items, _ = pytester.inline_genitems()
    suite_order(items, ["test_a.py::test_strong", "test_b.py::test_mid", "test_a.py::test_weak"])
    assert [it.nodeid for it in items] == [
        "test_a.py::test_strong",
        "test_b.py::test_mid",
        "test_a.py::test_weak",
        "test_a.py::test_unranked",
        "test_b.py::test_other",
        "test_a.py::test_tool",
    ]


def test_the_order_file_ranks_test_functions_by_mutants_killed(campaign):
    from reports.campaign.suite_order import order_file

    _, fp, records = campaign

    def ranked(seconds_of_add: float) -> dict:
        """The order with the baseline's timings fixed (as measured they move with the machine's load): each test
        a hundredth of a second, the property test (which kills OFF_FOR_LARGE) a tenth, ``test_add`` as given."""
        rows = tuple(
            replace(
                row,
                duration=0.1
                if "test_add_zero" in row.nodeid
                else seconds_of_add
                if "::test_add[" in row.nodeid
                else 0.01,
            )
            for row in records["baseline"].tests
        )
        timed = {**records, "baseline": replace(records["baseline"], tests=rows)}
        return order_file(timed, build(timed, fp, MUTANTS, equivalents={}).fp)

    order = ranked(0.01)
    assert order["tests"][0] == "tests/test_calc.py::test_add"  # kills OFF_BY_ONE
    assert "tests/test_calc.py::test_plain" not in order["tests"]
    assert len(order["kills"]) == len(order["tests"]) and all(n > 0 for n in order["kills"])
    slow = ranked(1.0)["tests"]  # per second: a slow test_add goes after the property test
    assert slow.index("tests/test_calc.py::test_add") > slow.index("tests/test_calc.py::test_add_zero")
