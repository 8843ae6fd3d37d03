"""The campaign's journal (issue 6): resuming without rerunning, the budget, the fingerprint, shards journaled
apart and merged, and the incremental keys that rerun only what a change touches."""

from __future__ import annotations

import json
import re
import shutil
import time

import pytest
from campaign_helpers import FAKE_HASHED, FAKE_TESTS, MUTANTS, make_project, run_named_mutants, settings_for

from reports.campaign.journal import Journal, _harness_only, fingerprint, hashed_files, load_journals
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


def test_the_campaigns_own_test_files_stay_out_of_the_fingerprint(tmp_path):
    root = make_project(tmp_path / "p")
    settings = settings_for(root)
    before = fingerprint(settings)
    (root / "tests" / "test_campaign_new.py").write_text("def test_tooling():\n    pass\n")  # HARNESS_ONLY's pattern
    (root / "tests" / "campaign_helpers.py").write_text("HELPER = 1\n")
    assert fingerprint(settings) == before
    (root / "tests" / "test_campaigns.py").write_text("def test_model():\n    pass\n")  # not the pattern
    assert fingerprint(settings) != before


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


def test_every_harness_only_test_file_is_marked_harness():
    """The baseline and the witness search leave out only the tests marked ``harness``; a harness-only file (absent
    from mutmut's work copy) with an unmarked test would be searched there, and its missing file fails the search's
    whole worker."""
    unmarked = [
        p.relative_to(ROOT).as_posix()
        for p in sorted((ROOT / "tests").glob("test_*.py"))
        if _harness_only(p.relative_to(ROOT).as_posix())
        and not re.search(r"^pytestmark = pytest\.mark\.harness$", p.read_text(encoding="utf-8"), re.M)
    ]
    assert unmarked == []


def test_every_test_file_that_imports_the_campaigns_helpers_is_harness_only():
    """mutmut's work copy leaves the harness-only files out; a test module importing one of them must be left out
    too, or collecting the suite there fails and mutmut's coverage run exits 1 (the main job then reports nothing)."""
    tests = ROOT / "tests"
    helpers = {p.stem for p in tests.glob("*.py") if _harness_only(p.relative_to(ROOT).as_posix())}
    importing = [
        p.relative_to(ROOT).as_posix()
        for p in sorted(tests.glob("test_*.py"))
        if re.search(rf"^(?:from|import) ({'|'.join(helpers)})\b", p.read_text(encoding="utf-8"), re.M)
    ]
    assert [f for f in importing if not _harness_only(f)] == []
