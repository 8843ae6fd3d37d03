"""The red-first report's headline in plain words (reports/render/summary.py ``plain_headline``, shown by
``report.html`` and ``report.md``): its verdict and counts follow the journal's facts and agree with the exit
status."""

from __future__ import annotations

import re
from typing import Any

import pytest
from campaign_helpers import MUTANTS, as_records

from reports.campaign.equivalents import Equivalent
from reports.campaign.records import NO_CODE
from reports.exit_codes import Exit
from reports.render import html, markdown
from reports.render.report_model import Report, build
from reports.render.summary import exit_status, plain_headline

pytestmark = pytest.mark.harness

FP = ""  # as_records fills in an empty fingerprint
ADD = "tests/test_calc.py::test_add"
PLAIN = "tests/test_calc.py::test_plain"


def _baseline() -> dict[str, Any]:
    rows = [
        {"nodeid": f"{ADD}[{v}]", "base": ADD, "file": "tests/test_calc.py", "variant": v, "duration": 0.1, "t": 0.0}
        for v in ("pr-8bb01ab8", "sound")
    ]
    rows.append(
        {"nodeid": PLAIN, "base": PLAIN, "file": "tests/test_calc.py", "variant": None, "duration": 0.1, "t": 0}
    )
    return {"baseline": {"wall": 1.0, "overhead": 0.5, "exit": 0, "finished": 1.0, "tests": rows}}


def _named(status: str, killer: str | None = None) -> dict[str, Any]:
    killed = {"killed_by": [killer], "failures": {killer: "E   assert 4 == 3"}} if killer else {}
    return {"kind": "defect", "spec": "sound+X", "ran": 3, "finished": 1.0, "status": status, **killed}


def clean() -> dict[str, dict[str, Any]]:
    """Every named mutant killed, every test with a witness (test_add by a defect, test_plain by a search)."""
    raw = _baseline() | {m.id: _named("killed", f"{ADD}[sound]") for m in MUTANTS}
    raw[f"witness:{PLAIN}"] = {"kind": "witness", "test": PLAIN, "witness": "defect:OFF_BY_ONE", "tried": 1}
    return raw


def report_of(raw: dict[str, dict[str, Any]]) -> Report:
    return build(as_records(raw), FP, MUTANTS, equivalents={})


def headline_html(report: Report) -> str:
    found = re.search(r"<p id='headline' class='headline (\w+)'>([^<]*)</p>", html.render(report))
    assert found is not None
    return f"{found.group(1)}: {found.group(2)}"


def test_a_clean_complete_journal_says_everything_passed() -> None:
    report = report_of(clean())
    top = plain_headline(report)
    assert top.verdict == (
        "COMPLETE: every mutant was caught (all 4), and every test was seen to fail at least once (all 2)."
    )
    assert top.attention == () and not top.needs_attention
    assert exit_status(report) == Exit.OK
    assert headline_html(report) == f"complete: {top.verdict}"
    assert "id='summary' class='verdict-ok'" in html.render(report)
    assert f"**{top.verdict}**" in markdown.render(report)
    assert "Needs attention:\n\n- nothing\n" in markdown.render(report)
    assert "Known defects caught: 4 of 4" in top.found
    assert "Tests seen to fail at least once: 2 of 2" in top.found


def test_a_survivor_turns_the_verdict_to_needs_attention_and_names_the_count() -> None:
    raw = clean()
    raw["defect:HARMLESS"] = _named("survived")
    raw["mutmut:calc.x_add__mutmut_1"] = {"kind": "mutmut", "status": "survived", "killed_by": []}
    report = report_of(raw)
    top = plain_headline(report)
    assert top.verdict == "COMPLETE, needs attention: 2 mutants survived."
    assert top.needs_attention and exit_status(report) == Exit.SURVIVORS
    assert top.attention == ("2 mutants survived: every test passed with the bug in place (named: defect:HARMLESS)",)
    assert "Known defects caught: 3 of 4" in top.found
    assert headline_html(report) == "complete: COMPLETE, needs attention: 2 mutants survived."
    assert "id='summary' class='verdict-attention'" in html.render(report)
    assert "**COMPLETE, needs attention: 2 mutants survived.**" in markdown.render(report)


def test_a_test_never_seen_to_fail_and_a_red_on_violation_need_attention() -> None:
    raw = clean()
    raw[f"witness:{PLAIN}"] = {"kind": "witness", "test": PLAIN, "witness": None, "reason": "a real gap: tried 3"}
    for row in raw["baseline"]["tests"][:2]:
        row["red_on"] = ["pr-8bb01ab8"]  # yet it passed there
    report = report_of(raw)
    top = plain_headline(report)
    assert top.verdict == "COMPLETE, needs attention: 1 test never seen to fail and 1 red_on violation."
    assert exit_status(report) == Exit.SURVIVORS
    assert "1 test never seen to fail (1 a real gap)" in top.attention
    assert "Tests seen to fail at least once: 1 of 2" in top.found


@pytest.mark.parametrize("outcome", ["failed", "error"])
def test_a_test_that_fails_on_the_unmutated_code_needs_attention_and_is_no_witness_of_itself(outcome: str) -> None:
    raw = clean()
    del raw[f"witness:{PLAIN}"]  # its only red is its own failure on the unmutated code
    raw["baseline"]["tests"][2] |= {"outcome": outcome, "text": "E   ImportError: cannot import name 'x'"}
    raw["baseline"]["tests"][1] |= {"outcome": outcome}  # on sound: no variant excuses it
    report = report_of(raw)
    top = plain_headline(report)
    assert top.verdict == ("COMPLETE, needs attention: 2 tests fail on the unmutated code.")
    assert exit_status(report) == Exit.SURVIVORS
    assert top.attention[0] == (
        "2 tests fail on the unmutated code: the suite is red without a bug, so no mutant is judged by them "
        f"({ADD}[sound], {PLAIN})"
    )
    assert PLAIN not in report.checks.witness and PLAIN in report.checks.never_red
    assert PLAIN not in report.checks.gaps  # said once, as failing, not again as never seen to fail


def test_a_test_red_on_a_variant_with_a_defect_is_not_a_failure_of_the_suite() -> None:
    raw = clean()
    raw["baseline"]["tests"][0] |= {"outcome": "failed", "text": "E   assert 4 == 3"}  # on pr-8bb01ab8
    report = report_of(raw)
    assert report.checks.broken == ()
    assert exit_status(report) == Exit.OK and plain_headline(report).attention == ()


def test_a_pending_mutant_says_incomplete() -> None:
    raw = clean()
    del raw["defect:OFF_FOR_LARGE"]
    report = report_of(raw)
    top = plain_headline(report)
    assert top.verdict == (
        "INCOMPLETE: 1 mutant pending (the budget ran out or the run was interrupted); run again to resume."
    )
    assert not top.complete and top.needs_attention and exit_status(report) == Exit.INCOMPLETE
    assert "1 mutant pending: not run yet" in top.attention
    assert headline_html(report).startswith("incomplete: INCOMPLETE: 1 mutant pending")
    assert "id='summary' class='verdict-incomplete'" in html.render(report)
    assert markdown.render(report).startswith(f"# Red-first mutation report\n\n**{top.verdict}**\n")


def test_an_incomplete_report_lists_what_went_wrong_so_far_and_the_folders_not_started() -> None:
    raw = clean()
    del raw["defect:OFF_FOR_LARGE"]
    raw["defect:HARMLESS"] = _named("survived")
    report = build(as_records(raw), FP, MUTANTS, equivalents={}, scope=("reference", "invariants"))
    top = plain_headline(report)
    assert top.verdict == (
        "INCOMPLETE: 1 mutant pending and mutmut not started over reference/ and invariants/ (the budget ran out "
        "or the run was interrupted); run again to resume. So far: 1 mutant survived."
    )
    assert "mutmut not started over reference/ and invariants/" in top.ran


def test_a_folder_mutmut_found_nothing_to_mutate_in_is_done_and_one_stopped_short_is_not() -> None:
    """A project whose mutmut settings mutate none of a folder leaves an empty inventory: that folder is finished.
    An empty inventory with a note (the budget ran out before mutmut started) leaves the folder not started."""
    raw = clean()
    raw["mutmut-inventory:all:reports"] = {"kind": "inventory", "names": [], "path": "reports"}
    done = build(as_records(raw), FP, MUTANTS, equivalents={}, scope=("reports",))
    assert "not started" not in plain_headline(done).verdict
    assert exit_status(done) != Exit.INCOMPLETE
    raw["mutmut-inventory:all:reports"]["note"] = "not run: only 3s of the budget left; it runs next time"
    short = build(as_records(raw), FP, MUTANTS, equivalents={}, scope=("reports",))
    assert "mutmut not started over reports/" in plain_headline(short).verdict
    assert exit_status(short) == Exit.INCOMPLETE


def test_what_ran_counts_tests_variants_and_mutants_of_each_kind() -> None:
    raw = clean()
    raw["mutmut:calc.x_add__mutmut_1"] = {"kind": "mutmut", "status": "killed", "killed_by": [PLAIN]}
    raw["mutmut:calc.x_add__mutmut_2"] = {"kind": "mutmut", "status": "timeout", "killed_by": []}
    top = plain_headline(report_of(raw))
    assert top.ran == (
        "2 tests on the unmutated code as 3 test cases (a test parametrized by variant runs once on each) over "
        "2 variants: pr-8bb01ab8, sound",
        "4 named mutants: 4 known defects, each alone in sound",
        "2 mutmut operator mutants over calc/",
    )
    assert "mutmut's mutants (2): 1 killed, 1 timed out" in top.found


def test_a_clean_report_with_tests_no_mutant_reaches_and_a_reviewed_equivalent_says_so() -> None:
    raw = clean()
    raw[f"witness:{PLAIN}"] = {"kind": "witness", "test": None, "witness": None, "reason": NO_CODE}
    raw["mutmut:calc.x_add__mutmut_1"] = {"kind": "mutmut", "status": "survived", "killed_by": []}
    equivalent = Equivalent("mutmut:calc.x_add__mutmut_1", "reviewed: changes nothing")
    report = build(as_records(raw), FP, MUTANTS, equivalents={equivalent.id: equivalent})
    top = plain_headline(report)
    assert top.verdict == (
        "COMPLETE: every mutant was caught (4 of 5; 1 reviewed as equivalent), and every test that covers mutated "
        "code was seen to fail at least once (1 of 2; 1 no mutant can turn red)."
    )
    assert exit_status(report) == Exit.OK and top.attention == ()
    assert "1 test that no mutant can turn red: it covers no mutated code, or only equivalent or surviving mutants" in (
        top.found
    )


@pytest.mark.parametrize(
    "change",
    [
        lambda raw: raw,
        lambda raw: raw.pop("defect:HANGS"),
        lambda raw: raw.update({"defect:HANGS": _named("timeout")}),
        lambda raw: raw.update({"defect:HANGS": _named("no-coverage")}),
        lambda raw: raw.update({"defect:HANGS": _named("error")}),
        lambda raw: raw.update({f"witness:{PLAIN}": {"kind": "witness", "test": PLAIN, "witness": None}}),
    ],
    ids=["clean", "pending", "timeout", "no-coverage", "error", "unsearched"],
)
def test_the_verdict_agrees_with_the_exit_status(change: Any) -> None:
    raw = clean()
    change(raw)
    report = report_of(raw)
    top = plain_headline(report)
    opening = {Exit.OK: "COMPLETE: ", Exit.SURVIVORS: "COMPLETE, needs attention: ", Exit.INCOMPLETE: "INCOMPLETE: "}
    assert top.verdict.startswith(opening[exit_status(report)])
    assert top.needs_attention == (exit_status(report) != Exit.OK) == bool(top.attention)


def test_a_timed_out_mutant_counts_as_caught() -> None:
    raw = clean()
    raw["defect:HANGS"] = _named("timeout")
    raw["mutmut:calc.x_add__mutmut_1"] = {"kind": "mutmut", "status": "survived", "killed_by": []}
    equivalent = Equivalent("mutmut:calc.x_add__mutmut_1", "reviewed: changes nothing")
    top = plain_headline(build(as_records(raw), FP, MUTANTS, equivalents={equivalent.id: equivalent}))
    assert top.verdict.startswith("COMPLETE: every mutant was caught (4 of 5; 1 reviewed as equivalent), ")
    assert "Known defects caught: 4 of 4 (3 failed a test, 1 timed out)" in top.found
    assert "Named mutants (4): 3 killed, 1 timed out" in top.found
