"""``cmharness check``'s verdict judged (reports/cli/check_verdict.py, read by reports/cli/check.py): the invariants it
lists as broken are the ones the judges report for each variant, and its exit code is 0 when nothing breaks, 1 when
only variants with defects break and 3 when a variant with none does. Each test is fed a scenario or a judge whose
verdict is known, so a check that stops listing a break, lists one the judges did not report, or maps the exit codes
the wrong way turns it red. The verdict rules are mutated by ``cmharness report``: these tests kill their mutants."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from builders import exact_budget, store, summary

from invariants import check as judges
from invariants.properties import CHEAP_FIRST, INVARIANTS, Violation
from reference.model import Budget, Config
from reference.scenario import Scenario, load_scenario, save_scenario
from reports import cli
from reports.cli.check_verdict import exit_code, verdict, verdict_line
from reports.exit_codes import Exit
from strategies.defects import Defect, parse_variant, resolve_variant

#: #305's first half: a positioned question whose header is longer than the label, one token below its price.
#: QUESTION_PRICED_AS_LABEL charges the label for it, so the compile sends what it should have refused.
PLANTED = "sound+QUESTION_PRICED_AS_LABEL"
HEADER = "[Recall {id} of messages {first} to {last}, at level {level}]"


@pytest.fixture
def question_305(tmp_path: Path) -> str:
    """#305's first half, written in the test that reads it (a wider fixture's compile would count as every test's
    call in the report's baseline)."""
    config = Config(over_budget_grace_ratio=0, head_window_tokens=10, recall_header_template=HEADER)
    st = store(5, [summary("L1-1", 1, 3)])
    path = tmp_path / "question-305.scenario.json"
    save_scenario(Scenario(st, config, Budget(max_tokens=exact_budget(st, config) - 1)), path)
    return str(path)


def _check(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict]:
    code = cli.main(["check", *argv, "--json"])
    out, err = capsys.readouterr()
    assert err == "", err
    return code, json.loads(out)


def _broken(doc: dict, variant: str) -> list[str]:
    return next([b["invariant"] for b in v["breaks"]] for v in doc["variants"] if v["variant"] == variant)


def _judged(path: str, variant: str) -> list[str]:
    """What the judges themselves report for ``variant`` (``invariants.check``), in the order check lists them."""
    sc = load_scenario(path)
    return [v.invariant for v in judges(sc.store, sc.config, sc.budget, parse_variant(variant).active)]


def test_check_lists_each_break_the_judges_report_and_exits_1_where_only_a_defect_breaks(capsys, question_305):
    code, doc = _check(capsys, question_305, "--variant", "sound", "--variant", PLANTED)
    assert _broken(doc, "sound") == [] == _judged(question_305, "sound")
    broken = _broken(doc, PLANTED)
    assert "never-over" in broken, "the question charged as the label sends past the grace limit"
    assert broken == _judged(question_305, PLANTED)
    assert code == doc["exit"] == Exit.REPRODUCED


def test_check_lists_only_the_invariants_asked_for(capsys, question_305):
    code, doc = _check(capsys, question_305, "--variant", PLANTED, "--invariant", "never-over")
    assert set(_broken(doc, PLANTED)) == {"never-over"} and code == Exit.REPRODUCED
    code, doc = _check(capsys, question_305, "--variant", PLANTED, "--invariant", "determinism")
    assert _broken(doc, PLANTED) == [] and code == Exit.OK


def test_check_exits_0_when_nothing_breaks(capsys, question_305):
    code, doc = _check(capsys, question_305, "--variant", "sound")
    assert code == doc["exit"] == Exit.OK and doc["variants"][0]["breaks"] == []
    assert cli.main(["check", question_305, "--variant", "sound"]) == Exit.OK
    assert "exit 0: nothing breaks" in capsys.readouterr().out


def _judge_breaking(where: str):
    """A judge that reports a break on every variant (``where="every"``) or only where a defect is on."""

    def judge(store, config, budget, carried) -> list[Violation]:
        return [Violation("determinism", "planted")] if where == "every" or resolve_variant(carried).active else []

    return judge


@pytest.mark.parametrize(
    ("where", "code", "words"),
    [
        ("every", Exit.SOUND_BROKE, "exit 3: a variant with no defect breaks"),
        ("defects", Exit.REPRODUCED, "exit 1: breaks only where defects are switched on"),
    ],
)
def test_a_break_on_a_variant_without_defects_exits_3_and_one_only_on_defects_1(
    capsys, monkeypatch, question_305, where, code, words
):
    """A judge with a known verdict (planted in the catalogue): the exit code follows where it breaks."""
    monkeypatch.setitem(INVARIANTS, "determinism", _judge_breaking(where))
    argv = ["check", question_305, "--variant", "sound", "--variant", "sound+MEMO_SURVIVES_INITIALIZE"]
    assert cli.main([*argv, "--invariant", "determinism"]) == code
    out = capsys.readouterr().out
    assert words in out
    assert out.count("breaks determinism: planted") == (2 if where == "every" else 1)


def test_the_verdict_names_every_invariant_of_the_catalogue_it_ran(capsys, question_305):
    """The JSON names the invariants checked: all of them, cheapest first, unless some are asked for."""
    _, doc = _check(capsys, question_305, "--variant", "sound")
    assert doc["invariants"] == list(CHEAP_FIRST)


def test_an_unknown_invariant_is_one_line_naming_it_and_exit_2(capsys, question_305):
    assert cli.main(["check", question_305, "--invariant", "never-under"]) == Exit.USAGE
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1
    assert "unknown invariant 'never-under'; did you mean 'never-over'?" in err


BROKE = [Violation("determinism", "planted")]
CARRIED = frozenset({Defect.MEMO_SURVIVES_INITIALIZE})


@pytest.mark.parametrize(
    ("variants", "code"),
    [
        ([], Exit.OK),
        ([(frozenset(), []), (CARRIED, [])], Exit.OK),
        ([(frozenset(), []), (CARRIED, BROKE)], Exit.REPRODUCED),
        ([(CARRIED, BROKE), (frozenset(), BROKE)], Exit.SOUND_BROKE),
        ([(frozenset(), BROKE), (CARRIED, [])], Exit.SOUND_BROKE),
    ],
)
def test_the_exit_code_over_the_variants_checked(variants, code):
    """Whatever the order of the variants: 3 wins over 1 wherever a variant without defects breaks."""
    assert exit_code(variants) == code
    assert exit_code(reversed(variants)) == code
    assert verdict_line(code).startswith(f"exit {int(code)}: ")


def test_one_verdict_for_check_and_prove():
    """The whole table at once: a break where no defect is switched on outranks any break of a carrier; ``prove``
    gives the same codes."""
    table = {(False, False): Exit.OK, (True, False): Exit.REPRODUCED, (False, True): 3, (True, True): 3}
    assert {key: verdict(*key) for key in table} == table
