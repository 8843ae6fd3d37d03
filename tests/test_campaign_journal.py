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
from reports.campaign.settings import ROOT

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
    defects_py = root / "strategies" / "defects.py"
    defects_py.write_text(defects_py.read_text().replace('"changes nothing a test sees"', '"still nothing"'))
    seen: list[str] = []
    new_fp = fingerprint(again)
    assert new_fp != fp
    done = run_named_mutants(again, MUTANTS, fp=new_fp, on_record=lambda r: seen.append(r.key))
    assert seen == ["defect:HARMLESS"]  # its switch's site changed; the others are kept
    assert "incremental: 3 named mutant(s) kept" in again.progress.getvalue()
    assert {k: v.status for k, v in done.items() if k != BASELINE} == {
        k: v.status for k, v in records.items() if k != BASELINE
    }
    tests.write_text(tests.read_text().replace("assert add(1, 2, variant) == 3", "assert add(2, 1, variant) == 3"))
    seen.clear()
    quick = [m for m in MUTANTS if m.id != "defect:HANGS"]
    run_named_mutants(again, quick, fp=fingerprint(again), on_record=lambda r: seen.append(r.key))
    assert sorted(seen) == sorted(m.id for m in quick)  # test_add[sound] runs under every sound mutant


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
