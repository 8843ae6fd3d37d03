"""``cmharness defects`` (reports/cli/defects.py): the defect table and its coverage from the campaign's journal."""

from __future__ import annotations

import json

import pytest

from reports import cli
from strategies.defects import Defect

pytestmark = [pytest.mark.harness, pytest.mark.defect_table]


def run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def write_journal(directory, fp="0123456789abcdef"):
    directory.mkdir(parents=True)
    records = [
        {
            "mutant": "baseline",
            "fingerprint": fp,
            "kind": "baseline",
            "finished": 1.0,
            "tests": [
                {"nodeid": "tests/a.py::t1", "outcome": "passed", "variants_used": ["sound"]},
                {"nodeid": "tests/a.py::t2", "outcome": "passed", "variants_used": ["pr-8bb01ab8", "sound"]},
            ],
        },
        {
            "mutant": "defect:QUESTION_PRICED_AS_LABEL",
            "fingerprint": fp,
            "kind": "defect",
            "status": "killed",
            "killed_by": ["tests/a.py::t1", "tests/a.py::t2"],
            "finished": 2.0,
        },
        {
            "mutant": "defect:HEAD_AS_MIDDLE",
            "fingerprint": "old",
            "kind": "defect",
            "status": "killed",
            "killed_by": ["tests/old.py::t"],
            "finished": 0.5,
        },
    ]
    (directory / "all.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records) + "{cut short", "utf-8")


def test_without_a_journal_it_says_no_report_has_run(capsys, tmp_path):
    code, out, _ = run(capsys, "defects", "--journal", str(tmp_path / "none"))
    assert code == 0 and out.startswith("no report has run yet")
    for d in Defect:
        assert d.name in out


def test_coverage_comes_from_the_journal(capsys, tmp_path):
    write_journal(tmp_path / "journal")
    code, out, _ = run(capsys, "defects", "--journal", str(tmp_path / "journal"), "--json")
    doc = json.loads(out)
    assert code == 0 and doc["fingerprint"] == "0123456789abcdef" and "stale" in doc["status"]
    rows = {r["defect"]: r for r in doc["defects"]}
    q = rows["QUESTION_PRICED_AS_LABEL"]
    assert q["variants"] == ["main-48bb87a1", "pr-8bb01ab8", "hysteresis-a95eb55b", "raw-forms-cbe7032a"]
    assert q["mutants"] == [
        {
            "mutant": "defect:QUESTION_PRICED_AS_LABEL",
            "status": "killed",
            "killed_by": ["tests/a.py::t1", "tests/a.py::t2"],
        }
    ]
    assert q["tests_looking_up_a_carrier"] == 1
    assert rows["HEAD_AS_MIDDLE"]["mutants"] == [], "a record of another fingerprint is not this run's"
    assert rows["FLOOR_UNHELD"]["variants"] == []


def test_tests_lists_each_covering_test(capsys, tmp_path):
    write_journal(tmp_path / "journal")
    _, out, _ = run(capsys, "defects", "--journal", str(tmp_path / "journal"), "--tests")
    block = out.split("QUESTION_PRICED_AS_LABEL (2):")[1]
    assert block.splitlines()[1].strip() == "tests/a.py::t1"
