"""The mutation campaign's runner (issue 6): statuses, killing tests, the baseline; the mutant plugin
(switching a defect on, the quick-killer order, collection); the named mutants."""

from __future__ import annotations

import pytest

from reports.campaign.named_mutants import SEED_REMOVALS, named_mutants
from reports.campaign.plugins import mutant_plugin
from reports.campaign.records import BASELINE
from reports.render.report_model import counterexamples
from strategies import defects

pytestmark = pytest.mark.harness


# ----------------------------------------------------------------------------- the runner


def test_statuses_killed_survived_timeout(campaign):
    _, _, records = campaign
    assert records["defect:OFF_BY_ONE"].status == "killed"
    assert records["defect:HARMLESS"].status == "survived"
    assert records["defect:HANGS"].status == "timeout"
    assert records["defect:HANGS"].timed_out is True


def test_a_kill_names_every_killing_test_of_its_variant_only(campaign):
    _, _, records = campaign
    killed = records["defect:OFF_BY_ONE"]
    # every failing example test; the property test is skipped once one has failed
    assert sorted(killed.killed_by) == [
        "tests/test_calc.py::test_add[sound]",
        "tests/test_calc.py::test_marked_but_never_red[sound]",
    ]
    assert killed.outcomes["tests/test_calc.py::test_add_zero"] == "skipped"
    assert killed.time_to_kill is not None and 0 <= killed.time_to_kill <= killed.duration
    assert killed.shrunk == ()
    # no example test fails: the property test kills, found without shrinking, then shrunk alone
    large = records["defect:OFF_FOR_LARGE"]
    assert large.killed_by == ("tests/test_calc.py::test_add_zero",)
    assert large.shrunk == ("tests/test_calc.py::test_add_zero",)
    examples = counterexamples(large.failures["tests/test_calc.py::test_add_zero"])
    assert len(examples) == 1 and "test_add_zero(\n    x=5," in examples[0]


def test_a_named_mutant_runs_only_the_tests_that_look_its_variant_up(campaign):
    _, _, records = campaign
    rows = {r.nodeid: r for r in records[BASELINE].tests}
    assert rows["tests/test_calc.py::test_add[pr-8bb01ab8]"].variants_used == ("pr-8bb01ab8",)
    assert rows["tests/test_calc.py::test_add_zero"].variants_used == ("sound",)  # the default argument
    assert rows["tests/test_calc.py::test_plain"].variants_used == ()
    assert rows["tests/test_calc.py::test_table"].reads_table is True  # sees every named mutant: left out
    # test_add[sound], test_marked_but_never_red[sound] and test_add_zero; not test_plain nor pr's
    assert records["defect:HARMLESS"].ran == 3


def test_quick_tests_run_first_in_an_order_drawn_from_the_mutant():
    class Item:
        def __init__(self, nodeid: str) -> None:
            self.nodeid = nodeid

    durations = {f"t{i}": 0.001 * i for i in range(20)} | {"slow": 2.0, "slower": 5.0}
    names = ["slower", "unknown", "slow", *(f"t{i}" for i in range(20))]

    def order(mutant: str) -> list[str]:
        items = [Item(n) for n in names]
        mutant_plugin.fastest_first(items, durations, mutant)  # type: ignore[arg-type]
        return [it.nodeid for it in items]

    first, second = order("m.x_f__mutmut_1"), order("m.x_f__mutmut_2")
    assert first[-3:] == second[-3:] == ["slow", "slower", "unknown"]
    assert sorted(first[:20]) == sorted(second[:20]) == sorted(f"t{i}" for i in range(20))
    assert first[:20] != second[:20]
    assert first == order("m.x_f__mutmut_1")


def test_quick_killers_run_every_example_test_and_skip_the_property_tests_after_a_failure(pytester):
    pytester.makepyfile(
        test_k="""
        from hypothesis import given, strategies as st

        @given(st.integers())
        def test_property_pass(x):
            pass

        def test_example_fail():
            assert False

        @given(st.integers())
        def test_property_fail(x):
            assert False

        def test_example_fail_too():
            assert False
    """
    )
    result = pytester.runpytest("-p", "reports.campaign.plugins.mutant_plugin", "--cm-quick-killers", "-rs")
    result.assert_outcomes(failed=2, skipped=2)
    result.stdout.fnmatch_lines(["*an example test has already killed this mutant*"])
    without = pytester.runpytest("-p", "reports.campaign.plugins.mutant_plugin")
    without.assert_outcomes(failed=3, passed=1)


def test_under_a_mutmut_mutant_only_the_named_test_functions_are_collected(pytester, monkeypatch):
    pytester.makepyfile(
        test_k="""
        def pytest_generate_tests(metafunc):
            if metafunc.function.__name__ == "test_other":
                raise RuntimeError("test_other was collected")

        def test_named():
            pass

        def test_other():
            pass
    """
    )
    monkeypatch.setenv("MUTANT_UNDER_TEST", "m.x_f__mutmut_1")
    pytester.runpytest("-p", "reports.campaign.plugins.mutant_plugin", "test_k.py::test_named").assert_outcomes(
        passed=1
    )
    # a whole file
    pytester.runpytest("-p", "reports.campaign.plugins.mutant_plugin", "test_k.py").assert_outcomes(errors=1)
    monkeypatch.delenv("MUTANT_UNDER_TEST")
    pytester.runpytest("-p", "reports.campaign.plugins.mutant_plugin", "test_k.py::test_named").assert_outcomes(
        errors=1
    )


def test_requested_functions_by_file(tmp_path):
    wanted = mutant_plugin.requested_functions(
        [
            "tests/a.py::test_x[1-sound]",
            "tests/a.py::test_y",
            "tests/b.py::TestC::test_z",
            "tests/c.py",
            "tests/c.py::test_w",
        ],
        tmp_path,
    )
    assert wanted == {
        (tmp_path / "tests/a.py").resolve(): {"test_x", "test_y"},
        (tmp_path / "tests/b.py").resolve(): {"TestC", "test_z"},
    }


def test_baseline_records_outcome_variant_and_red_on(campaign):
    _, _, records = campaign
    rows = {r.nodeid: r for r in records[BASELINE].tests}
    add_pr = rows["tests/test_calc.py::test_add[pr-8bb01ab8]"]
    assert (add_pr.outcome, add_pr.variant) == ("passed", "pr-8bb01ab8")
    assert add_pr.base == "tests/test_calc.py::test_add"
    assert rows["tests/test_calc.py::test_red_on_baseline"].outcome == "failed"
    assert rows["tests/test_calc.py::test_marked_but_never_red[sound]"].red_on == ("pr-8bb01ab8",)


# ----------------------------------------------------------------------------- the plugin


def test_plugin_switches_a_defect_on_in_one_variant(monkeypatch):
    monkeypatch.setitem(defects.VARIANTS, "pr-8bb01ab8", defects.VARIANTS["pr-8bb01ab8"])
    new = mutant_plugin.apply_mutant("pr-8bb01ab8+VIEW_NOT_RESTORED")
    assert defects.VARIANTS["pr-8bb01ab8"] == new == defects.SEED_LEFT | {defects.Defect.VIEW_NOT_RESTORED}
    assert defects.VARIANTS["sound"] == frozenset()


@pytest.mark.parametrize("spec", ["sound", "sound+", "nope+COMBINED_UNCHECKED", "sound+NOT_A_DEFECT"])
def test_plugin_refuses_a_bad_mutant(spec):
    with pytest.raises(ValueError):
        mutant_plugin.apply_mutant(spec)


@pytest.mark.parametrize(
    ("nodeid", "variant", "base"),
    [
        ("t.py::f[sound]", "sound", "t.py::f"),
        ("t.py::f[at-pair-main-48bb87a1]", "main-48bb87a1", "t.py::f[at-pair]"),
        ("t.py::f[pr-8bb01ab8-nan]", "pr-8bb01ab8", "t.py::f[nan]"),
        ("t.py::f[x]", None, "t.py::f[x]"),
    ],
)
def test_base_id_drops_the_variant(nodeid, variant, base):
    assert mutant_plugin.base_id(nodeid, variant) == base


# ----------------------------------------------------------------------------- the named mutants


def test_named_mutants_are_each_known_defect_and_the_fourteen_removals():
    mutants = named_mutants()
    kinds = {k: [m for m in mutants if m.kind == k] for k in ("defect", "removal")}
    assert {m.defects[0] for m in kinds["defect"]} == {d.name for d in defects.KNOWN}
    assert all(m.variant == "sound" for m in kinds["defect"])
    assert len(kinds["removal"]) == len(SEED_REMOVALS) == 14
    assert all(m.variant == "pr-8bb01ab8" for m in kinds["removal"])
    switches = {defects.Defect[m.defects[0]] for m in kinds["removal"]}
    assert defects.REMOVALS <= switches <= defects.REMOVALS | defects.SEED_FIXED
    assert len({m.id for m in mutants}) == len(mutants)
