"""The campaign's report (issue 6): its outputs, scoring and red-first checks, its headline and exit codes, its
mutation-testing-elements JSON against the published schema, and its HTML in a headless browser."""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest
from campaign_helpers import CHROMIUM, HEADLESS, MUTANTS

from reports.campaign.equivalents import Equivalent, load_equivalents
from reports.campaign.records import Record, Status, decode
from reports.campaign.settings import ROOT
from reports.exit_codes import Exit
from reports.render import html, markdown
from reports.render.mutation_testing_elements import mte_json
from reports.render.outputs import write
from reports.render.report_model import build, counterexamples, score

pytestmark = pytest.mark.harness


# ----------------------------------------------------------------------------- the report


def survivor(n: int, replacement: str) -> Record:
    """The journal record of mutmut's ``n``-th mutant of the fake project's ``add``, survived: ``return a + b`` on
    line 11 made ``replacement``."""
    return decode(
        {
            "mutant": f"mutmut:calc.x_add__mutmut_{n}",
            "fingerprint": "",
            "kind": "mutmut",
            "status": "survived",
            "file": "calc.py",
            "function": "add",
            "line": 11,
            "column": 12,
            "end_line": 11,
            "end_column": 13,
            "mutator": "ArithmeticOperator",
            "original": "return a + b",
            "replacement": replacement,
            "killed_by": [],
            "duration": 0.5,
            "diff": "",
        }
    )


def test_report_renders_every_output(campaign, tmp_path):
    settings, fp, records = campaign
    report = build(records, fp, MUTANTS, equivalents={})
    paths = write(report, tmp_path, settings.root)
    assert [p.name for p in paths] == ["report.html", "report.md", "matrix.csv", "mutation-report.json"]
    html = (tmp_path / "report.html").read_text()
    assert "Kill matrix" in html and "class='k1'" in html and "test_add_zero(\n    x=5," in html
    assert "<svg" in html and "id='headline'" in html and "http" not in html.replace("http://www.w3.org/2000/svg", "")
    assert "defect:OFF_BY_ONE" in (tmp_path / "report.md").read_text()
    csv = (tmp_path / "matrix.csv").read_text().splitlines()
    assert csv[0].startswith("mutant,status,")
    assert any(line.startswith("defect:OFF_BY_ONE,killed,") for line in csv)
    s = report.named_score()
    assert (s.killed, s.timeout, s.counted) == (2, 1, 4)


def test_report_is_the_same_from_the_same_journal(campaign):
    _, fp, records = campaign
    one, two = build(records, fp, MUTANTS, equivalents={}), build(dict(records), fp, MUTANTS, equivalents={})
    assert html.render(one) == html.render(two) and markdown.render(one) == markdown.render(two)


def test_red_first_checks_flag_never_red_and_stale_red_on(campaign):
    _, fp, records = campaign
    checks = build(records, fp, MUTANTS, equivalents={}).checks
    assert "tests/test_calc.py::test_plain" in checks.never_red
    assert "tests/test_calc.py::test_add" not in checks.never_red  # killed OFF_BY_ONE
    # red only on the unmutated code: a broken test, not one seen to fail on a bug
    assert "tests/test_calc.py::test_red_on_baseline" in checks.never_red
    assert checks.broken == ("tests/test_calc.py::test_red_on_baseline",)
    problems = {(v.test, v.problem) for v in checks.red_on_violations}
    assert (
        "tests/test_calc.py::test_marked_but_never_red[pr-8bb01ab8]",
        "marked red_on pr-8bb01ab8 but passed there",
    ) in problems


MTE_STATUSES = {"Killed", "Survived", "NoCoverage", "CompileError", "RuntimeError", "Timeout", "Ignored", "Pending"}


def test_mutation_testing_elements_json_shape(campaign):
    settings, fp, records = campaign
    records = dict(records)
    records["mutmut:calc.x_add__mutmut_1"] = survivor(1, "return a - b")
    records["mutmut-inventory:all"] = decode(
        {
            "mutant": "mutmut-inventory:all",
            "fingerprint": fp,
            "kind": "inventory",
            "names": ["calc.x_add__mutmut_1", "calc.x_add__mutmut_2"],
            "path": "calc",
            "note": "",
        }
    )
    report = build(records, fp, MUTANTS, equivalents={})
    doc = json.loads(json.dumps(mte_json(report, settings.root)))
    assert doc["schemaVersion"] == "1"
    ids = set()
    for entry in doc["files"].values():
        assert entry["language"] == "python" and isinstance(entry["source"], str)
        for m in entry["mutants"]:
            assert {"id", "mutatorName", "location", "status"} <= set(m)
            assert m["status"] in MTE_STATUSES
            start, end = m["location"]["start"], m["location"]["end"]
            assert (
                start["line"] >= 1
                and start["column"] >= 1
                and (end["line"], end["column"]) >= (start["line"], start["column"])
            )
            assert all(isinstance(t, str) for t in m.get("killedBy", []))
            ids.add(m["id"])
    assert {"defect:OFF_BY_ONE", "mutmut:calc.x_add__mutmut_1"} <= ids
    statuses = {m["id"]: m["status"] for e in doc["files"].values() for m in e["mutants"]}
    assert statuses["defect:HANGS"] == "Timeout" and statuses["mutmut:calc.x_add__mutmut_1"] == "Survived"
    test_ids = {t["id"] for f in doc["testFiles"].values() for t in f["tests"]}
    killed_by = {t for e in doc["files"].values() for m in e["mutants"] for t in m.get("killedBy", [])}
    assert killed_by <= test_ids
    assert report.mutmut_score().counts[Status.PENDING] == 1


def test_reviewed_equivalents_leave_the_score_and_go_stale_when_the_line_changes(campaign):
    _, fp, records = campaign
    records = dict(records)
    for n, line in ((1, "return a - b"), (2, "return a + b + 0")):
        records[f"mutmut:calc.x_add__mutmut_{n}"] = survivor(n, line)
    equivalents = {
        "mutmut:calc.x_add__mutmut_2": Equivalent("mutmut:calc.x_add__mutmut_2", "adds zero", "return a + b + 0"),
        "mutmut:calc.x_add__mutmut_1": Equivalent("mutmut:calc.x_add__mutmut_1", "stale", "return b"),
    }
    report = build(records, fp, MUTANTS, equivalents=equivalents)
    status = {r.id: r.status for r in report.mutmut}
    assert status == {"mutmut:calc.x_add__mutmut_1": "survived", "mutmut:calc.x_add__mutmut_2": "equivalent"}
    assert any("stale equivalence entry mutmut:calc.x_add__mutmut_1" in n for n in report.notes)
    assert report.mutmut_score().counted == 1


def test_the_reviewed_equivalents_file_parses():
    assert all(e.id.startswith("mutmut:") and e.reason for e in load_equivalents().values())


def test_score_counts_only_failing_kills_with_timeouts_beside():
    s = score([Status.KILLED, Status.TIMEOUT, Status.SURVIVED, Status.EQUIVALENT, Status.PENDING])
    assert (s.killed, s.counted, round(s.score, 1), round(s.with_timeouts, 1)) == (1, 3, 33.3, 66.7)


def test_counterexamples_are_read_from_the_failure_text():
    text = (
        "E   AssertionError: no\nE   Falsifying example: test_x(\nE       variant='sound',\n"
        "E       store=Store(a=(1, 2)),\nE   )\nmore\nFalsifying explicit example: test_y(x=1)\n"
        "E       Failing test case: test_z(\nE           x=0,  # or any other generated value\nE       )\n"
    )
    assert counterexamples(text) == [
        "Falsifying example: test_x(\n    variant='sound',\n    store=Store(a=(1, 2)),\n)",
        "Falsifying explicit example: test_y(x=1)",
        "Failing test case: test_z(\n    x=0,  # or any other generated value\n)",
    ]


# ----------------------------------------------------------------------------- completeness and exit codes


def test_a_report_with_pending_mutants_says_incomplete_with_the_score_as_a_range(campaign):
    from reports.render.summary import exit_status, summary_lines

    _, fp, records = campaign
    partial = {k: v for k, v in records.items() if k != "defect:OFF_FOR_LARGE"}
    report = build(partial, fp, MUTANTS, equivalents={})
    lines = summary_lines(report)
    assert lines[0].startswith("INCOMPLETE: 1 mutant(s) pending")
    # killed over all (pending counted), then killed over the finished
    assert "1/4 killed = 25.0% of all to 1/3 = 33.3% of the finished (1 pending)" in lines[2]
    assert exit_status(report) == Exit.INCOMPLETE


def test_a_folder_in_scope_mutmut_never_started_leaves_the_report_incomplete(campaign):
    from reports.render.summary import exit_status, summary_lines

    _, fp, records = campaign
    assert exit_status(build(records, fp, MUTANTS, equivalents={}, scope=("reference",))) == Exit.INCOMPLETE
    assert (
        "mutmut over reference/ not started"
        in summary_lines(build(records, fp, MUTANTS, equivalents={}, scope=("reference",)))[0]
    )
    complete = build(records, fp, MUTANTS, equivalents={})
    assert summary_lines(complete)[0].startswith("COMPLETE")
    assert exit_status(complete) == Exit.SURVIVORS  # HARMLESS survived


def test_a_complete_report_with_nothing_alive_exits_zero(campaign):
    from reports.render.summary import exit_status

    _, fp, records = campaign
    killed = [m for m in MUTANTS if records[m.id].status in ("killed", "timeout")]
    report = build(records, fp, killed, equivalents={})
    report = replace(report, checks=replace(report.checks, never_red=(), gaps=(), red_on_violations=(), broken=()))
    assert exit_status(report) == Exit.OK


# ----------------------------------------------------------------------------- the report in a browser, the schema


SCHEMA = ROOT / "reports" / "render" / "schema" / "mutation-testing-report-schema.json"


def headless(page: Path, profile: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    flags = [
        *HEADLESS,
        f"--user-data-dir={profile}",
        "--enable-logging=stderr",
        "--v=0",
        *extra,
    ]
    return subprocess.run([CHROMIUM, *flags, page.as_uri()], capture_output=True, text=True, timeout=120)


def console_errors(stderr: str) -> list[str]:
    """Chromium's console lines for the page's errors (an uncaught exception, console.error)."""
    return [
        line for line in stderr.splitlines() if "CONSOLE" in line and re.search(r"Uncaught|Error|console\.error", line)
    ]


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium; .ci/run does)")
def test_the_html_report_renders_in_headless_chromium_without_console_errors(campaign, tmp_path):
    settings, fp, records = campaign
    write(build(records, fp, MUTANTS, equivalents={}), tmp_path, settings.root)
    page = tmp_path / "report.html"
    run = headless(page, tmp_path / "profile", "--dump-dom")
    assert run.returncode == 0, run.stderr[-2000:]
    dom = run.stdout
    assert console_errors(run.stderr) == []
    assert re.search(r'<p id="headline" class="headline complete">COMPLETE', dom)
    assert '<table id="named">' in dom and dom.count('data-status="killed"') >= 2 and "<svg" in dom
    assert '<table id="without">' in dom and "tests/test_calc.py::test_plain" in dom.split('id="without"')[1]
    shot = tmp_path / "report.png"
    headless(page, tmp_path / "profile", f"--screenshot={shot}", "--window-size=1280,1600")
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    print(f"screenshot: {shot}")
    # the check can fail: a page whose script throws is caught
    broken = tmp_path / "broken.html"
    broken.write_text("<!DOCTYPE html><html><body><script>undefinedFunction();</script></body></html>")
    assert console_errors(headless(broken, tmp_path / "profile", "--dump-dom").stderr)


def test_the_mutation_testing_elements_json_is_valid_against_the_published_schema(campaign):
    jsonschema = pytest.importorskip("jsonschema")
    settings, fp, records = campaign
    records = dict(records)
    records["mutmut:calc.x_add__mutmut_1"] = survivor(1, "return a - b")
    doc = json.loads(json.dumps(mte_json(build(records, fp, MUTANTS, equivalents={}), settings.root)))
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    jsonschema.validate(doc, schema, format_checker=jsonschema.FormatChecker())
    doc["files"]["calc.py"]["mutants"][0]["status"] = "Murdered"  # and the check can fail
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(doc, schema)
