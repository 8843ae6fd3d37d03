"""``cmharness check --explain`` (reports/cli/check.py): prices per entry, attribution to defects, exit codes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from builders import exact_budget, store, summary

from invariants.properties import CHEAP_FIRST, Violation
from invariants.reproduce import images_sent, observe, prepared
from reference.expect import variants_named
from reference.model import Budget, Config
from reference.price import reference_price
from reference.scenario import Scenario, load_scenario, save_scenario
from reports import cli
from reports.cli import check
from reports.exit_codes import Exit
from strategies.defects import LINE_BEHAVIOURS, Defects

pytestmark = pytest.mark.harness

LONG_HEADER = "[Recall {id} of messages {first} to {last}, at level {level}]"


@pytest.fixture
def question_305(tmp_path):
    """#305's first half: a positioned question whose header is longer than the label, one token below its price."""
    config = Config(over_budget_grace_ratio=0, head_window_tokens=10, recall_header_template=LONG_HEADER)
    st = store(5, [summary("L1-1", 1, 3)])
    path = tmp_path / "question-305.scenario.json"
    save_scenario(Scenario(st, config, Budget(max_tokens=exact_budget(st, config) - 1)), path)
    return str(path)


def run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def section(out: str, variant: str) -> str:
    """One variant's part of the output."""
    return re.search(rf"^{re.escape(variant)}:.*?(?=^\S|\Z)", out, re.M | re.S).group(0)


def test_explain_names_question_priced_as_label_as_the_main_break(capsys, question_305):
    code, out, err = run(capsys, "check", question_305, "--explain")
    assert err == "" and code == Exit.REPRODUCED
    for variant in ("main-48bb87a1", "pr-8bb01ab8"):
        part = section(out, variant)
        main = part.split("also broken")[0]
        assert "explained by QUESTION_PRICED_AS_LABEL:" in main
        assert "breaks never-over" in main and "determinism" not in main


def test_explain_shows_the_questions_charged_and_reference_prices(capsys, question_305):
    _, out, _ = run(capsys, "check", question_305, "--explain", "--variant", "pr-8bb01ab8")
    row = re.search(r"^\s+1\s+question\s+-\s+\[Recall L1-1 of messages.*?\s+(\d+)\s+(\d+)\s+(-?\d+)$", out, re.M)
    assert row is not None, out
    charged, reference, diff = map(int, row.groups())
    assert charged < reference and diff == charged - reference


def test_breaks_from_other_defects_are_grouped_apart(capsys, question_305):
    _, out, _ = run(capsys, "check", question_305, "--explain", "--variant", "main-48bb87a1")
    other = out.split("also broken, by other defects")[1]
    assert "breaks determinism" in other and "MEMO_SURVIVES_INITIALIZE" in other
    assert "QUESTION_PRICED_AS_LABEL" not in other


def test_sound_alone_holds_and_exits_0(capsys, question_305):
    code, out, _ = run(capsys, "check", question_305, "--variant", "sound")
    assert code == Exit.OK and "every invariant holds" in out


def test_defect_runs_sound_with_just_that_defect(capsys, question_305):
    code, out, _ = run(
        capsys, "check", question_305, "--defect", "QUESTION_PRICED_AS_LABEL", "--explain", "--invariant", "never-over"
    )
    assert code == Exit.REPRODUCED
    part = section(out, "sound+QUESTION_PRICED_AS_LABEL")
    assert "explained by QUESTION_PRICED_AS_LABEL" in part and "determinism" not in out
    assert "every invariant holds" in section(out, "sound")


def test_json_carries_entries_and_groups(capsys, question_305):
    code, out, _ = run(capsys, "check", question_305, "--explain", "--json", "--variant", "pr-8bb01ab8")
    doc = json.loads(out)
    assert doc["exit"] == code == Exit.REPRODUCED
    v = doc["variants"][0]
    question = next(e for e in v["entries"] if e["kind"] == "question")
    assert question["charged"] < question["reference"]
    assert v["groups"][0] == {
        "role": "main",
        "defects": ["QUESTION_PRICED_AS_LABEL"],
        "invariants": ["stats-total", "never-over", "exact-budget"],
    }


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["--defect", "QUESTION_PRICED"], "did you mean 'QUESTION_PRICED_AS_LABEL'"),
        (["--variant", "mian"], "did you mean 'main-48bb87a1'?"),
        (["--invariant", "never_over"], "did you mean 'never-over'?"),
    ],
)
def test_bad_names_are_one_line_errors(capsys, question_305, argv, fragment):
    code, out, err = run(capsys, "check", question_305, *argv)
    assert code == 2 and out == ""
    assert fragment in err and err.count("\n") == 1


def test_a_break_with_no_defect_switched_on_exits_3():
    broke = check.VariantCheck("sound", Defects(), None, (), (check.Break(Violation("never-over", "x"), ()),), ())
    reproduced = check.VariantCheck(
        "pr-8bb01ab8", Defects(frozenset(check.Defect)), None, (), (check.Break(Violation("never-over", "x"), ()),), ()
    )
    assert check.exit_code([reproduced]) == Exit.REPRODUCED
    assert check.exit_code([reproduced, broke]) == Exit.SOUND_BROKE
    assert check.exit_code([]) == Exit.OK


def test_a_break_no_defect_explains_alone_names_the_pair_apart(capsys, tmp_path):
    """#307: the cap leaves a combined summary out; nothing-lost is COVERAGE_COUNTS_LEFT_OUT's, and the stats'
    total only breaks with COMBINED_STATS_TOKENS as well (alone, the compile would refuse)."""
    st = store(6, [summary("L1-1", 1, 2), summary("L1-2", 3, 4)])
    config = Config(
        over_budget_grace_ratio=0,
        head_window_tokens=10,
        positioned_recall_pairs=False,
        recall_envelope="xml",
        max_message_tokens=10,
    )
    path = tmp_path / "coverage-307.scenario.json"
    save_scenario(Scenario(st, config), path)
    code, out, _ = run(capsys, "check", str(path), "--explain", "--variant", "pr-8bb01ab8", "--json")
    groups = json.loads(out)["variants"][0]["groups"]
    assert code == Exit.REPRODUCED
    assert groups[0] == {"role": "main", "defects": ["COVERAGE_COUNTS_LEFT_OUT"], "invariants": ["nothing-lost"]}
    assert {
        "role": "together",
        "defects": ["COVERAGE_COUNTS_LEFT_OUT", "COMBINED_STATS_TOKENS"],
        "invariants": ["stats-total"],
    } in groups


SCENARIOS = Path(__file__).parent / "scenarios"


def _pinned() -> list[tuple[Path, str]]:
    """Each scenario file that pins a newer line, or compiles more than once, with each variant its ``expect``
    names."""
    out = []
    for path in sorted(SCENARIOS.rglob("*.scenario.json")):
        scenario = load_scenario(path)
        named = variants_named(scenario.expect)
        if scenario.compiles_before or set(named) & set(LINE_BEHAVIOURS):
            out += [(path, v) for v in named]
    return out


@pytest.mark.parametrize(
    "path, variant", _pinned(), ids=lambda x: x.name.removesuffix(".scenario.json") if isinstance(x, Path) else x
)
def test_check_compiles_what_reproduce_observes(path, variant):
    """``check`` compiles a variant with its line's behaviours, after the file's earlier compiles, and judges that
    compile: what it sends and what breaks are what ``reproduce`` observes on the same file."""
    scenario = load_scenario(path)
    seen = observe(scenario, variant)
    checked = check.check_variant(scenario, variant, CHEAP_FIRST, explain=False)
    if seen.sends is None:
        assert not checked.outcome.sent and type(checked.outcome.error).__name__ == seen.refuses.error
    else:
        entries = checked.outcome.entries
        assert (len(entries), images_sent(entries)) == (seen.sends.entries, seen.sends.images)
        assert checked.outcome.result.stats.total.tokens == seen.sends.total
    assert [b.violation for b in checked.breaks] == list(seen.violations)


def test_the_json_names_each_variants_defects_and_line_behaviours(capsys, question_305):
    code, out, _ = run(capsys, "check", question_305, "--json", "--variant", "raw-forms-cbe7032a", "--variant", "sound")
    line, sound = json.loads(out)["variants"]
    assert code == Exit.REPRODUCED
    assert line["behaviours"] == sorted(b.name for b in LINE_BEHAVIOURS["raw-forms-cbe7032a"]) and line["defects"]
    assert sound["behaviours"] == [] == sound["defects"]


def test_a_file_compiled_after_earlier_compiles_says_so(capsys):
    path = str(SCENARIOS / "typescript" / "hysteresis-count-cap-7.scenario.json")
    before = load_scenario(path).compiles_before
    _, out, _ = run(capsys, "check", path, "--variant", "hysteresis-a95eb55b")
    assert out.splitlines()[0] == (
        f"each variant compiles after its earlier compiles of the first {', '.join(map(str, before))} messages"
    )
    _, out, _ = run(capsys, "check", path, "--variant", "hysteresis-a95eb55b", "--json")
    assert json.loads(out)["compiles_before"] == list(before)
    _, out, _ = run(capsys, "check", str(SCENARIOS / "reports" / "307-coverage-counts-left-out.scenario.json"))
    assert out.startswith("main-48bb87a1: ")


@pytest.mark.parametrize("name", ["hysteresis-count-cap-6", "hysteresis-count-cap-7", "hysteresis-byte-cap-6"])
def test_the_judges_price_the_compile_check_shows_after_earlier_compiles(name):
    """On the hysteresis line the watermark earlier compiles left is where the judges' compiles start too: the price
    ``stats-total`` names is the reference price of the entries the checked compile sends."""
    scenario = load_scenario(SCENARIOS / "typescript" / f"{name}.scenario.json")
    checked = check.check_variant(scenario, "hysteresis-a95eb55b", ["stats-total"], explain=False)
    store = prepared(scenario, "hysteresis-a95eb55b").store
    sent = reference_price(checked.outcome.entries, store, scenario.config)
    [stats] = [b.violation.message for b in checked.breaks]
    assert f"the reference price of the {len(checked.outcome.entries)} entries sent is {sent} " in stats
