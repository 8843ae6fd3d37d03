"""``cmharness defects --report`` (reports/cli/defect_report.py): an upstream-ready report for every TypeScript defect,
and the scenario files under tests/scenarios/typescript-bugs red on the variants that carry each defect, green on
sound."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from invariants.reproduce import observe
from reference.model import Budget, Config, Message, Store, ToolUse
from reference.price import reference_price
from reference.scenario import Scenario, dumps_scenario, load_scenario, loads_scenario
from reports import cli
from reports.cli.defect_report import facts, report
from strategies import HierarchicalStrategy
from strategies.defects import LINE_BEHAVIOURS, SEED_FIXED, VARIANTS, Defect
from strategies.upstream import BUGS, NOT_AT_THE_TIPS, SCENARIO_DIR, UpstreamBug, typescript_bugs

pytestmark = pytest.mark.harness

ROOT = Path(__file__).resolve().parents[1]
BUG_LIST = typescript_bugs()
SECTIONS = ("## Where", "## A minimal store", "## What it does, and what it should do", "## The scenario that pins it")


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def carriers(d: Defect) -> list[str]:
    return [v for v, ds in VARIANTS.items() if d in ds]


def test_every_typescript_defect_has_a_report() -> None:
    """Every defect read in the TypeScript, the #305/#307 defects the TypeScript has too, and every seed defect a
    newer line's variant still carries (the seed's change never reached those lines), less the ones
    ``NOT_AT_THE_TIPS`` sets aside with a reason that docs/model.md repeats."""
    newer = set(LINE_BEHAVIOURS)
    on_newer_lines = {d for d in Defect if d.source == "seed" and any(d in VARIANTS[v] for v in newer)}
    wanted = {d for d in Defect if d.source == "TypeScript" or "#30" in d.source} | on_newer_lines
    assert on_newer_lines >= SEED_FIXED
    assert set(BUGS) == wanted - set(NOT_AT_THE_TIPS) and set(NOT_AT_THE_TIPS) <= on_newer_lines
    assert all(carriers(d) for d in wanted)
    model = " ".join((ROOT / "docs" / "model.md").read_text(encoding="utf-8").split())
    assert all(f"`{d.name}`" in model and why in model for d, why in NOT_AT_THE_TIPS.items())


def test_a_seed_defect_report_names_the_newer_lines_and_not_the_pull_request() -> None:
    """The seed's change fixes these on main's line only: the report's carriers are main and the newer lines."""
    for d in SEED_FIXED - set(NOT_AT_THE_TIPS):
        assert carriers(d) == ["main-48bb87a1", *LINE_BEHAVIOURS], d
        text = report(d.name)
        assert "`pr-8bb01ab8`" not in text.split("## What it does")[1].split("## The scenario")[0], d
        assert {p.version for p in BUGS[d].present} >= {"AB-H", "AB-R"}, d


def test_every_scenario_file_of_the_folder_pins_one_report() -> None:
    files = {p.relative_to(ROOT).as_posix() for p in (ROOT / SCENARIO_DIR).glob("*.scenario.json")}
    assert files == {b.scenario_path for b in BUG_LIST if b.scenario_path.startswith(SCENARIO_DIR)}
    assert all((ROOT / b.scenario_path).is_file() for b in BUG_LIST)


@pytest.mark.parametrize("bug", BUG_LIST, ids=lambda b: b.defect.name)
def test_the_scenario_is_red_on_each_carrier_because_of_the_defect_and_green_on_sound(bug: UpstreamBug) -> None:
    """On each variant that carries it, the scenario breaks an invariant in a way (a violation) that the same
    variant without the defect does not; on sound every invariant holds."""
    sc = load_scenario(ROOT / bug.scenario_path)
    assert observe(sc, "sound").breaks == ()
    for name in carriers(bug.defect):
        with_it = {str(v) for v in observe(sc, name).violations or ()}
        without = {str(v) for v in observe(sc, VARIANTS[name] - {bug.defect}).violations or ()}  # type: ignore[arg-type]
        assert with_it - without, f"{name}: the same violations with the defect and without: {sorted(with_it)}"


@pytest.mark.parametrize("bug", BUG_LIST, ids=lambda b: b.defect.name)
def test_the_report_has_every_section_and_the_computed_numbers(bug: UpstreamBug) -> None:
    text = report(bug.defect.name)
    assert text.startswith(f"# {bug.title}\n")
    positions = [text.index(s) for s in SECTIONS]
    assert positions == sorted(positions)
    # The store block is camelCase JSON that loads back to the scenario's store, config and budget.
    fixture = json.loads(re.search(r"```json\n(.*?)\n```", text, re.S).group(1))
    assert "pricingEpoch" in fixture["store"] and "maxTokens" in fixture["budget"]
    sc = load_scenario(ROOT / bug.scenario_path)
    assert load_scenario(fixture) == Scenario(store=sc.store, config=sc.config, budget=sc.budget)
    # The numbers: the carrier's stats total and the price of what it sends, compiled here independently.
    first = carriers(bug.defect)[0]
    strategy = HierarchicalStrategy(sc.config, first)
    strategy.initialize(sc.store)
    row = {line.split(" | ")[0].strip("| "): line for line in text.splitlines() if line.startswith("| ")}
    try:
        result = strategy.compile(sc.budget, dry_run=True)
    except Exception as err:  # a refusal is reported by its error's name
        assert f"refuses ({type(err).__name__})" in row["outcome"]
        return
    assert f"| {result.stats.total.tokens} |" in row["priced (stats total)"]
    assert f"| {reference_price(result.entries, sc.store, sc.config)} |" in row["estimator's price of what is sent"]
    assert bug.scenario_path in text and bug.should in text


def test_report_names_each_carrier_red_and_sound_green() -> None:
    bug = BUGS[Defect.TOOL_PASSES_UNPRICED]
    f = facts(bug)
    assert [r.variant for r in f.runs] == [*carriers(bug.defect), "sound"]
    assert f.sound.observed.refuses is not None and f.sound.observed.breaks == ()
    assert f.carriers[0].priced == 46 and f.carriers[0].cost == 67  # docs/model.md, Known defects: STUB_AFTER_CALL
    assert "21 tokens the budget never saw" in report("tool-passes-unpriced")


def test_report_all_writes_one_file_per_defect(capsys, tmp_path) -> None:
    code, out, err = run(capsys, "defects", "--report", "all", "--out", str(tmp_path / "r"))
    assert (code, err) == (0, "")
    written = sorted(p.name for p in (tmp_path / "r").glob("*.md"))
    assert written == sorted(f"{b.slug}.md" for b in BUG_LIST)
    assert len(out.splitlines()) == len(BUG_LIST)


def test_report_to_stdout(capsys) -> None:
    code, out, _ = run(capsys, "defects", "--report", "header-replace-chained")
    assert code == 0 and out.startswith("# buildRecallHeader")


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (("--report", "TOOL_PASES"), "unknown defect 'TOOL_PASES'; did you mean 'TOOL_PASSES_UNPRICED'?"),
        (("--report", "HEAD_CLEARED_BY_ANYWHERE"), "'HEAD_CLEARED_BY_ANYWHERE' is not a TypeScript defect"),
        (("--out", "x"), "--out and --source need --report NAME"),
    ],
)
def test_a_bad_report_name_is_one_line_and_exit_2(capsys, argv, fragment) -> None:
    code, out, err = run(capsys, "defects", *argv)
    assert (code, out) == (2, "")
    assert len(err.strip().splitlines()) == 1 and fragment in err


def test_camel_dump_round_trips_and_keeps_data_keys() -> None:
    """The TypeScript's names for the model's fields; a tool call's input and per-tool caps keep their keys."""
    sc = Scenario(
        store=Store((Message("m0", "Claude", (ToolUse("u0", "read_file", {"file_path": "a"}),)),)),
        config=Config(tool_result_max_last_n={"read_file": 1}),
        budget=Budget(100),
    )
    text = dumps_scenario(sc, camel=True)
    assert loads_scenario(text) == sc
    doc = json.loads(text)
    assert doc["store"]["messages"][0]["content"][0]["input"] == {"file_path": "a"}
    assert doc["config"]["toolResultMaxLastN"] == {"read_file": 1}
    assert "pricing_epoch" not in text and "reserveForResponse" in text


def test_reproduce_says_each_bug_scenario_breaks_on_its_carriers_and_holds_on_sound(capsys) -> None:
    code, out, _ = run(capsys, "reproduce", "--json", SCENARIO_DIR)
    doc = json.loads(out)
    assert code == 0 and doc["ok"]
    for sc in doc["scenarios"]:
        defect = Defect[Path(sc["file"]).name.split(".")[0].upper().replace("-", "_")]
        for v in sc["variants"]:
            checked = {f["field"]: f for f in v["fields"]}
            if v["variant"] == "sound":
                assert checked["holds"]["ok"] and not v["breaks"], sc["file"]
            elif defect not in VARIANTS[v["variant"]]:  # a variant that fixes it (pr-8bb01ab8): pinned by its outcome
                assert all(f["ok"] for f in v["fields"]) and not any(name.startswith("breaks ") for name in checked)
            else:
                breaks = [f for name, f in checked.items() if name.startswith("breaks ")]
                assert defect in VARIANTS[v["variant"]] and breaks and all(f["ok"] for f in breaks), sc["file"]
