"""The campaign's journal (issue 6): resuming without rerunning, the budget, the fingerprint, shards journaled
apart and merged, and the incremental keys that rerun only what a change touches."""

from __future__ import annotations

import json
import re
import shutil
import time

import pytest
from campaign_helpers import FAKE_HASHED, FAKE_TESTS, MUTANTS, make_project, run_named_mutants, settings_for

from reports.campaign.fingerprint import fingerprint, harness_only, hashed_files, walk
from reports.campaign.journal import Journal, load_journals
from reports.campaign.named_mutants import in_shard, named_mutants, parse_shard, shard_of
from reports.campaign.records import BASELINE, dumps
from reports.campaign.settings import ROOT, NamedEngine

pytestmark = pytest.mark.harness


def test_journal_resumes_without_rerunning(campaign):
    settings, fp, records = campaign
    journal = settings.journal_dir / "all.jsonl"
    lines = journal.read_text().count("\n")
    again = run_named_mutants(settings, MUTANTS, fp=fp)
    assert journal.read_text().count("\n") == lines
    assert {k: v.status for k, v in again.items() if k != BASELINE} == {
        k: v.status for k, v in records.items() if k != BASELINE
    }


def test_interrupted_journal_runs_only_what_is_missing(campaign, tmp_path):
    settings, fp, records = campaign
    out = tmp_path / "out"
    (out / "journal").mkdir(parents=True)
    keep = [records[BASELINE], records["defect:HANGS"], records["defect:HARMLESS"], records["defect:OFF_FOR_LARGE"]]
    text = "".join(dumps(r) + "\n" for r in keep) + '{"mutant": "defect:OFF_BY'  # a line cut by the kill
    (out / "journal" / "all.jsonl").write_text(text)
    seen = []
    resumed = settings_for(settings.root, out=out)
    done = run_named_mutants(resumed, MUTANTS, fp=fp, on_record=lambda r: seen.append(r.key))
    assert seen == ["defect:OFF_BY_ONE"]
    assert done["defect:OFF_BY_ONE"].status == "killed"


def test_the_budget_stops_runs_without_journaling_them(campaign, tmp_path):
    settings, fp, records = campaign
    budgeted = settings_for(settings.root, out=tmp_path / "out")
    Journal(budgeted.journal_dir, "all").write(records[BASELINE])
    start = time.time()
    done = run_named_mutants(budgeted, [m for m in MUTANTS if m.id == "defect:HANGS"], fp=fp, deadline=start + 2)
    assert time.time() - start < 15
    assert "defect:HANGS" not in done
    assert "defect:HANGS" not in load_journals(budgeted.journal_dir, fp)
    assert "budget reached: 1 named mutant(s) left" in budgeted.progress.getvalue()


def test_a_changed_test_changes_the_fingerprint(tmp_path):
    root = make_project(tmp_path / "p")
    settings = settings_for(root)
    before = fingerprint(settings)
    (root / "tests" / "test_calc.py").write_text(FAKE_TESTS + "\n\ndef test_new():\n    pass\n")
    assert fingerprint(settings) != before
    (root / "out").mkdir()
    (root / "out" / "report.html").write_text("not hashed")
    assert all("out" not in f.relative_to(root).parts for f in hashed_files(root, FAKE_HASHED))


def test_the_campaigns_own_files_stay_out_of_the_fingerprint(tmp_path):
    """What no test of the selection can import is the harness's: a test module marked ``harness`` and a helper only
    such tests import change nothing; an unmarked test, or a helper it imports (lazily too), changes the fingerprint."""
    root = make_project(tmp_path / "p")
    settings = settings_for(root)
    before = fingerprint(settings)
    harness = "import pytest\n\npytestmark = pytest.mark.harness\n\n\ndef test_tooling():\n    import tooling\n"
    (root / "tests" / "test_campaign_new.py").write_text(harness)
    (root / "tests" / "tooling.py").write_text("HELPER = 1\n")
    assert fingerprint(settings) == before
    (root / "tests" / "tooling.py").write_text("HELPER = 2\n")
    assert fingerprint(settings) == before
    (root / "tests" / "test_model.py").write_text("def test_model():\n    import tooling\n")  # not marked
    after = fingerprint(settings)
    assert after != before
    (root / "tests" / "tooling.py").write_text("HELPER = 3\n")  # now the selection's
    assert fingerprint(settings) != after


def test_a_test_marked_harness_alone_and_an_unused_fixture_import_nothing_for_the_selection(tmp_path):
    root = make_project(tmp_path / "p")
    tests = root / "tests"
    (tests / "only_harness.py").write_text("X = 1\n")
    (tests / "by_fixture.py").write_text("Y = 1\n")
    (tests / "test_mixed.py").write_text(
        "import pytest\n\n\n@pytest.mark.harness\ndef test_tool():\n    import only_harness\n\n\n"
        "def test_model(shared):\n    pass\n"
    )
    (tests / "conftest.py").write_text(
        "import pytest\n\n\n@pytest.fixture\ndef shared():\n    import by_fixture\n\n\n"
        "@pytest.fixture\ndef unused():\n    import only_harness\n"
    )
    harness = harness_only(root, walk(root, FAKE_HASHED))
    assert "tests/only_harness.py" in harness and "tests/by_fixture.py" not in harness
    assert "tests/test_mixed.py" not in harness and "tests/conftest.py" not in harness


def test_shards_partition_the_mutants_stably():
    ids = [m.id for m in named_mutants()]
    for n in (1, 2, 3, 5):
        parts = [in_shard(ids, (i, n)) for i in range(1, n + 1)]
        assert sorted(x for p in parts for x in p) == sorted(ids)
        assert parts == [in_shard(list(reversed(ids)), (i, n))[::-1] for i in range(1, n + 1)]
    assert shard_of("defect:COMBINED_UNCHECKED", 4) == shard_of("defect:COMBINED_UNCHECKED", 4)
    assert parse_shard("2/3") == (2, 3)
    for bad in ("0/2", "3/2", "x", "1/0"):
        with pytest.raises(ValueError):
            parse_shard(bad)


def test_shards_journal_apart_and_merge(campaign, tmp_path):
    settings, fp, records = campaign
    quick = [m for m in MUTANTS if m.id != "defect:HANGS"]
    sharded = settings_for(settings.root, out=tmp_path / "out")
    Journal(sharded.journal_dir, "baseline").write(records[BASELINE])  # as if each machine had run it
    for i in (1, 2):
        run_named_mutants(sharded, quick, shard=(i, 2), fp=fp)
        written = (
            [json.loads(x)["mutant"] for x in (sharded.journal_dir / f"shard-{i}-of-2.jsonl").read_text().splitlines()]
            if (sharded.journal_dir / f"shard-{i}-of-2.jsonl").exists()
            else []
        )
        assert written == in_shard([m.id for m in quick], (i, 2))
    merged = load_journals(sharded.journal_dir, fp)
    assert set(merged) == {BASELINE, *(m.id for m in quick)}
    assert {k: merged[k].status for k in merged if k != BASELINE} == {m.id: records[m.id].status for m in quick}
    assert load_journals(sharded.journal_dir, "another-fingerprint") == {}


# ----------------------------------------------------------------------------- incremental


def test_after_a_change_only_the_named_mutants_it_touches_run_again(campaign, tmp_path):
    settings, fp, records = campaign
    root = tmp_path / "copy"
    shutil.copytree(settings.root, root)
    again = settings_for(root)
    tests = root / "tests" / "test_calc.py"
    tests.write_text(tests.read_text().replace("assert 1 + 1 == 2", "assert 2 + 2 == 4"))  # no mutant runs it
    seen: list[str] = []
    new_fp = fingerprint(again)
    assert new_fp != fp
    done = run_named_mutants(again, MUTANTS, fp=new_fp, on_record=lambda r: seen.append(r.key))
    assert seen == []
    assert "incremental: 4 named mutant(s) kept" in again.progress.getvalue()
    assert {k: v.status for k, v in done.items() if k != BASELINE} == {
        k: v.status for k, v in records.items() if k != BASELINE
    }
    # a switch's site changed (outside any function: every test runs again on the baseline, so every mutant too)
    defects_py = root / "strategies" / "defects.py"
    defects_py.write_text(defects_py.read_text().replace('"changes nothing a test sees"', '"still nothing"'))
    quick = [m for m in MUTANTS if m.id != "defect:HANGS"]
    run_named_mutants(again, quick, fp=fingerprint(again), on_record=lambda r: seen.append(r.key))
    assert sorted(seen) == sorted(m.id for m in quick)
    assert "2 run again on the tests whose code changed (0 test run(s) filed as before); 1 re-run: defect:HARMLESS" in (
        again.progress.getvalue()
    )
    tests.write_text(tests.read_text().replace("assert add(1, 2, variant) == 3", "assert add(2, 1, variant) == 3"))
    seen.clear()
    run_named_mutants(again, quick, fp=fingerprint(again), on_record=lambda r: seen.append(r.key))
    assert sorted(seen) == sorted(m.id for m in quick)  # test_add[sound] runs under every sound mutant


TOTAL = """
def total(a, b, extra):
    return a + b + extra


def other(x):
    return x
"""

OTHER_TEST = """
from calc import add
from strategies.helper import other


def test_other():
    assert other(add(0, 0)) == 0
"""


def _with_a_helper(root):
    """The fake project with ``calc.add`` adding through ``strategies.helper.total`` (code traced function by
    function, unlike ``calc.py``), and a test of the helper's ``other`` that looks the variants up too."""
    calc = root / "calc.py"
    calc.write_text(
        "from strategies.helper import total\n"
        + calc.read_text().replace("return a + b + (1 if off else 0)", "return total(a, b, 1 if off else 0)")
    )
    (root / "strategies" / "helper.py").write_text(TOTAL)
    (root / "tests" / "test_other.py").write_text(OTHER_TEST)
    return root


SAME_IN_EVERY_RUN = ("status", "killed_by", "failures", "outcomes", "shrunk", "ran", "passed")


@pytest.mark.parametrize(
    ("old", "new", "statuses"),
    [
        # the helper drops what the defects add: their switch sites are unchanged, and they survive now
        (
            "return a + b + extra",
            "return a + b + min(extra, 0)",
            {"defect:OFF_BY_ONE": "survived", "defect:OFF_FOR_LARGE": "survived"},
        ),
        # the helper doubles it: the killing tests fail with other values
        (
            "return a + b + extra",
            "return a + b + 2 * extra",
            {"defect:OFF_BY_ONE": "killed", "defect:OFF_FOR_LARGE": "killed"},
        ),
        # a function only one test calls: the rest of each run is filed as it was (the shrunk example too)
        ("return x", "return x * 1", {"defect:OFF_BY_ONE": "killed", "defect:OFF_FOR_LARGE": "killed"}),
    ],
    ids=["masks-the-defects", "changes-the-failures", "one-test"],
)
def test_a_named_mutant_runs_again_where_its_tests_code_changed_and_reads_as_a_fresh_run(tmp_path, old, new, statuses):
    """A change to code the named mutants' tests call (not their switch sites, not their tests) runs each of them
    again on the tests that call it, the other rows filed as the earlier run saw them: the records are a fresh
    run's, whether the change hides a defect, changes its failures or touches one test."""
    quick = [m for m in MUTANTS if m.id != "defect:HANGS"]
    root = _with_a_helper(make_project(tmp_path / "p"))
    settings = settings_for(root)
    first = run_named_mutants(settings, quick, fp=fingerprint(settings))
    assert first["defect:OFF_BY_ONE"].status == "killed" and first["defect:OFF_FOR_LARGE"].shrunk
    helper = root / "strategies" / "helper.py"
    helper.write_text(TOTAL.replace(old, new))
    again = run_named_mutants(settings, quick, fp=fingerprint(settings))
    fresh_root = _with_a_helper(make_project(tmp_path / "fresh"))
    (fresh_root / "strategies" / "helper.py").write_text(helper.read_text())
    fresh_settings = settings_for(fresh_root)
    fresh = run_named_mutants(fresh_settings, quick, fp=fingerprint(fresh_settings))
    assert {k: again[k].status for k in statuses} == statuses
    for m in quick:
        assert {f: getattr(again[m.id], f) for f in SAME_IN_EVERY_RUN} == {
            f: getattr(fresh[m.id], f) for f in SAME_IN_EVERY_RUN
        }, m.id
    said = settings.progress.getvalue()
    filed = re.search(r"3 run again on the tests whose code changed \((\d+) test run\(s\) filed as before\)", said)
    assert filed and (int(filed[1]) > 0) == (old == "return x")  # only there do some tests of theirs call nothing new


BUMP = """
def bump():
    return 1
"""


def _bumping(root):
    """The fake project with the defects' one added by ``strategies.helper.bump``, which only a defect's path calls:
    no test calls it on the baseline (the fake variants carry no defect), only under the named mutants."""
    calc = root / "calc.py"
    calc.write_text(
        "from strategies.helper import bump\n"
        + calc.read_text().replace("return a + b + (1 if off else 0)", "return a + b + (bump() if off else 0)")
    )
    (root / "strategies" / "helper.py").write_text(BUMP)
    return root


@pytest.mark.parametrize("engine", list(NamedEngine))
def test_a_change_to_code_only_a_mutant_reaches_runs_its_tests_again_under_it(tmp_path, engine):
    """A function that no test calls on the baseline but the tests call under a named mutant (code only a defect's
    path runs, outside its switch site): a change to it runs those tests again under the mutant, and the records read
    as a fresh run's (here the change hides the defects, which survive)."""
    quick = [m for m in MUTANTS if m.id in ("defect:OFF_BY_ONE", "defect:OFF_FOR_LARGE")]
    root = _bumping(make_project(tmp_path / "p"))
    settings = settings_for(root, named_engine=engine)
    first = run_named_mutants(settings, quick, fp=fingerprint(settings))
    assert {m.id: first[m.id].status for m in quick} == {m.id: "killed" for m in quick}
    assert all("strategies.helper.bump" in fs for m in quick for fs in first[m.id].reached.values())
    (root / "strategies" / "helper.py").write_text(BUMP.replace("return 1", "return 0"))
    again = run_named_mutants(settings, quick, fp=fingerprint(settings))
    fresh_root = _bumping(make_project(tmp_path / "fresh"))
    (fresh_root / "strategies" / "helper.py").write_text(BUMP.replace("return 1", "return 0"))
    fresh_settings = settings_for(fresh_root, named_engine=engine)
    fresh = run_named_mutants(fresh_settings, quick, fp=fingerprint(fresh_settings))
    assert {m.id: fresh[m.id].status for m in quick} == {m.id: "survived" for m in quick}
    for m in quick:
        assert {f: getattr(again[m.id], f) for f in SAME_IN_EVERY_RUN} == {
            f: getattr(fresh[m.id], f) for f in SAME_IN_EVERY_RUN
        }, m.id
    assert "baseline: 0 test(s) run again" in settings.progress.getvalue()  # the baseline alone would not see it


def test_with_a_process_a_mutant_a_named_mutant_whose_tests_code_changed_runs_again_whole(tmp_path):
    """The process engine cannot file an earlier run's rows: a named mutant whose tests call changed code runs again
    whole, and reads as a fresh run."""
    one = [m for m in MUTANTS if m.id == "defect:OFF_BY_ONE"]
    root = _with_a_helper(make_project(tmp_path / "p"))
    settings = settings_for(root, named_engine=NamedEngine.PROCESS)
    assert run_named_mutants(settings, one, fp=fingerprint(settings))["defect:OFF_BY_ONE"].status == "killed"
    (root / "strategies" / "helper.py").write_text(
        TOTAL.replace("return a + b + extra", "return a + b + min(extra, 0)")
    )
    again = run_named_mutants(settings, one, fp=fingerprint(settings))["defect:OFF_BY_ONE"]
    assert again.status == "survived" and again.ran == again.passed
    assert "0 run again on the tests whose code changed; 1 re-run: defect:OFF_BY_ONE" in settings.progress.getvalue()


SHOWN_CALC = """
from strategies.defects import VARIANTS, Defect
from strategies.helper import shown


def add(a, b, variant="sound"):
    off = Defect.OFF_BY_ONE in VARIANTS[variant]
    return a + b + (1 if off else 0)


def show(a, variant="sound"):
    return shown(add(a, 0, variant))
"""

SHOWN_HELPER = """
def shown(x):
    return str(x)
"""

SHOWN_TESTS = """
from hypothesis import given, settings, strategies as st

from calc import add, show


def test_show():
    assert show(2) == "2"


@settings(database=None, derandomize=True, max_examples=20)
@given(st.integers(min_value=0, max_value=10))
def test_add_zero(x):
    assert add(x, 0) == x
"""


def test_a_property_test_an_earlier_run_never_reached_runs_when_the_example_that_killed_first_passes(tmp_path):
    """``OFF_BY_ONE`` is first killed by an example test, so its property test is skipped; a change to what only the
    example calls makes it pass under the mutant: the property test, unchanged, now runs and kills, as in a fresh
    run."""
    root = make_project(tmp_path / "p")
    (root / "calc.py").write_text(SHOWN_CALC)
    (root / "strategies" / "helper.py").write_text(SHOWN_HELPER)
    (root / "tests" / "test_calc.py").write_text(SHOWN_TESTS)
    settings = settings_for(root)
    one = [m for m in MUTANTS if m.id == "defect:OFF_BY_ONE"]
    first = run_named_mutants(settings, one, fp=fingerprint(settings))["defect:OFF_BY_ONE"]
    assert first.killed_by == ("tests/test_calc.py::test_show",)
    assert first.outcomes["tests/test_calc.py::test_add_zero"] == "skipped"
    (root / "strategies" / "helper.py").write_text(SHOWN_HELPER.replace("return str(x)", 'return "2"'))
    again = run_named_mutants(settings, one, fp=fingerprint(settings))["defect:OFF_BY_ONE"]
    assert again.killed_by == ("tests/test_calc.py::test_add_zero",) and again.shrunk
    assert "0 re-run" in settings.progress.getvalue()  # run again on its changed test, the other one not filed


def test_the_harness_of_this_project_is_its_marked_tests_and_what_only_they_import():
    """In this project: a test module is the harness's exactly when it is marked ``harness`` as a whole; the report's
    own modules (the pipeline, its phases, the renderers) are the harness's, while the code under test and what an
    unmarked test drives (the subcommands it names) are not."""
    harness = harness_only(ROOT, walk(ROOT))
    for p in sorted((ROOT / "tests").glob("test_*.py")):
        marked = re.search(r"^pytestmark = .*pytest\.mark\.harness\b", p.read_text(encoding="utf-8"), re.M) is not None
        assert (p.relative_to(ROOT).as_posix() in harness) == marked, p.name
    for own in ("reports/campaign/pipeline.py", "reports/campaign/phases/baseline.py", "reports/render/html.py"):
        assert own in harness, own
    for code in ("strategies/emission.py", "reference/model.py", "invariants/plugin.py", "reports/cli/check.py"):
        assert code not in harness, code
