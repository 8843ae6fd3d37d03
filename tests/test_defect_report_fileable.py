"""``cmharness defects --report`` as a maintainer files it: each "Where" row names a file, a function and a commit
and nothing of how the project read the TypeScript; ``--out`` writes each report's store as a camelCase fixture
that loads back and compiles to the report's numbers; the numbers come from the code the invariants use."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest

from invariants.properties import grace_limit
from invariants.reproduce import judge, observe
from reference.estimator import content_tokens
from reference.model import Budget
from reference.numerics import js_number_string
from reference.price import reference_price
from reference.scenario import Scenario, load_scenario
from reports import cli
from reports.cli import defect_report
from reports.cli.defect_report import facts, facts_of, render
from reports.cli.scenario_files import read_scenario
from strategies import HierarchicalStrategy
from strategies.defects import Defect, parse_variant
from strategies.provenance import VERSIONS
from strategies.upstream import BUGS, UpstreamBug, typescript_bugs

pytestmark = pytest.mark.defect_table  # reads the defects and their reports: a named mutant edits that table

ROOT = Path(__file__).resolve().parents[1]
BUG_LIST = typescript_bugs()
#: What a report must not say: how the project read the TypeScript (stored ids, character offsets, its notes).
READING_WORDS = re.compile(r"stored id|~\d+(\.\d+)?k|research|notes", re.I)
FILE = re.compile(r"`(src/[\w./-]+\.ts)`")
HEX = re.compile(r"(?<![0-9a-zA-Z])[0-9a-f]{6,}(?![0-9a-zA-Z])")


def write_reports(out: Path, name: str = "all") -> Path:
    """``defects --report NAME --out OUT``, in the test that reads it: a fixture wider than one test would compile
    every variant for all its tests at once, and the report's baseline would count those calls as every test's (a
    change to any of them re-running the whole suite)."""
    assert cli.main(["defects", "--report", name, "--out", str(out)]) == 0
    return out


@pytest.fixture
def written(tmp_path: Path) -> Path:
    """``defects --report all --out DIR``."""
    return write_reports(tmp_path)


@pytest.fixture
def written_one(tmp_path: Path, bug: UpstreamBug) -> Path:
    """``defects --report NAME --out DIR`` for the test's ``bug``."""
    return write_reports(tmp_path, bug.defect.name)


def section(text: str, heading: str) -> str:
    start = text.index(heading) + len(heading)
    end = text.find("\n## ", start)
    return text[start : end if end != -1 else len(text)]


def where_rows(text: str) -> list[list[str]]:
    """The body rows of the "Where" table, as cells."""
    rows = [line for line in section(text, "## Where").splitlines() if line.startswith("|")]
    return [[c.strip() for c in r.strip().strip("|").split("|")] for r in rows[2:]]


def numbers_table(text: str) -> dict[str, dict[str, str]]:
    """The numbers table: row label -> variant column -> cell."""
    lines = [ln for ln in section(text, "## What it does, and what it should do").splitlines() if ln.startswith("|")]
    cells = [[c.strip() for c in ln.strip().strip("|").split("|")] for ln in lines]
    heads = [re.sub(r"`([^`]+)`.*", r"\1", h) for h in cells[0]]
    return {row[0]: dict(zip(heads[1:], row[1:], strict=True)) for row in cells[2:]}


@pytest.mark.parametrize("bug", BUG_LIST, ids=lambda b: b.defect.name)
def test_no_report_says_how_the_project_read_the_code(bug: UpstreamBug) -> None:
    text = defect_report.report(bug.defect.name)
    assert not READING_WORDS.search(text), READING_WORDS.search(text).group(0)


@pytest.mark.parametrize("bug", BUG_LIST, ids=lambda b: b.defect.name)
def test_every_where_row_names_a_file_a_function_and_commits_of_eight_hex_digits(bug: UpstreamBug) -> None:
    """A row is found in a checkout: the file's path, the function, and each commit as git's short form (every
    hex run in the row is a commit of 8 digits: no stored id, no longer or shorter run)."""
    rows = where_rows(defect_report.report(bug.defect.name))
    assert rows or not any(VERSIONS[p.version].commit for p in bug.present)
    for row in rows:
        line = " | ".join(row)
        assert FILE.search(row[0]), line
        assert re.fullmatch(r"`\w+`", row[1]), line
        commits = HEX.findall(row[-1])
        assert commits and all(len(c) == 8 for c in commits), line


@pytest.mark.parametrize("bug", BUG_LIST, ids=lambda b: b.defect.name)
def test_every_presence_is_in_the_report_at_its_commit_or_by_its_line(bug: UpstreamBug) -> None:
    """Each place the defect is present shows: at a version with a commit, in the row of its file, function and
    part, with that commit; at one with none, named with its line under the table."""
    text = defect_report.report(bug.defect.name)
    rows = where_rows(text)
    below = "\n".join(line for line in section(text, "## Where").splitlines() if not line.startswith("|"))
    for p in bug.present:
        v = VERSIONS[p.version]
        if v.commit:
            hit = [r for r in rows if r[1] == f"`{p.function}`" and r[2] == (p.part or "the whole function")]
            assert hit and v.commit in hit[0][-1] and f"`{v.file}`" in hit[0][0], p
        else:
            assert v.line in below and f"`{p.function}`" in below, p


#: Functions too long to search for a defect without being told where in them (selectHierarchical is some 25,000
#: characters at every tip).
LONG_FUNCTIONS = frozenset({"selectHierarchical"})


@pytest.mark.parametrize("bug", BUG_LIST, ids=lambda b: b.defect.name)
def test_a_row_in_a_long_function_says_where_in_it(bug: UpstreamBug) -> None:
    rows = where_rows(defect_report.report(bug.defect.name))
    for row in rows:
        if row[1].strip("`") in LONG_FUNCTIONS:
            assert row[2] and row[2] != "the whole function", " | ".join(row)


def test_out_writes_one_fixture_beside_each_report(written: Path) -> None:
    names = sorted(p.name for p in written.iterdir())
    assert names == sorted([f"{b.slug}.md" for b in BUG_LIST] + [f"{b.slug}.fixture.json" for b in BUG_LIST])


@pytest.mark.parametrize("bug", BUG_LIST, ids=lambda b: b.defect.name)
def test_the_fixture_is_in_the_typescripts_names_and_loads_back_to_the_reports_store(
    bug: UpstreamBug, written_one: Path
) -> None:
    path = written_one / f"{bug.slug}.fixture.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert set(doc["budget"]) == {"maxTokens", "reserveForResponse"}
    assert "headWindowTokens" in doc["config"] and "pricingEpoch" in doc["store"]
    for s in doc["store"]["summaries"]:
        assert "sourceIds" in s and set(s["sourceRange"]) == {"first", "last"}
    fixture = read_scenario(str(path))
    sc = load_scenario(ROOT / bug.scenario_path)
    assert (fixture.store, fixture.config, fixture.budget) == (sc.store, sc.config, sc.budget)
    # The fixture's store is the one the report prints.
    report = (written_one / f"{bug.slug}.md").read_text("utf-8")
    printed = json.loads(re.search(r"```json\n(.*?)\n```", report, re.S)[1])
    assert printed == {k: doc[k] for k in ("store", "config", "budget")}


@pytest.mark.parametrize("bug", BUG_LIST, ids=lambda b: b.defect.name)
def test_the_fixture_compiles_to_the_reports_numbers(bug: UpstreamBug, written_one: Path) -> None:
    """Loaded back, the fixture's ``expect`` (what sound and each TypeScript variant do) holds, and compiling it here,
    apart from the report's code, gives each column's outcome, stats total and reference price."""
    fixture = read_scenario(str(written_one / f"{bug.slug}.fixture.json"))
    verdicts = judge(fixture)
    assert {v.variant for v in verdicts} >= {"sound"} and all(v.ok for v in verdicts), [v.explain() for v in verdicts]
    table = numbers_table((written_one / f"{bug.slug}.md").read_text(encoding="utf-8"))
    for variant in table["outcome"]:
        if variant == "difference":
            continue
        strategy = HierarchicalStrategy(fixture.config, parse_variant(variant))
        strategy.initialize(fixture.store)
        try:
            result = strategy.compile(fixture.budget, dry_run=True)
        except Exception as err:
            assert table["outcome"][variant] == f"refuses ({type(err).__name__})", variant
            assert table["priced (stats total)"][variant] == "—", variant
            continue
        assert table["outcome"][variant] == f"sends {len(result.entries)} entries", variant
        assert table["priced (stats total)"][variant] == js_number_string(result.stats.total.tokens), variant
        price = reference_price(result.entries, fixture.store, fixture.config)
        assert table["estimator's price of what is sent"][variant] == js_number_string(price), variant


def test_the_fixtures_expect_names_sound_and_every_carrier(written: Path) -> None:
    for bug in BUG_LIST:
        doc = json.loads((written / f"{bug.slug}.fixture.json").read_text(encoding="utf-8"))
        carriers = [r.variant for r in facts(bug).carriers]
        assert list(doc["expect"]) == [*carriers, "sound"], bug.defect.name


# ----------------------------------------------------------------------------- the numbers' source


def with_reserve(bug: UpstreamBug, reserve: int) -> Scenario:
    """The bug's scenario with ``reserve`` more tokens held for the response (the same input budget)."""
    sc = load_scenario(ROOT / bug.scenario_path)
    b = sc.budget
    return dataclasses.replace(sc, budget=Budget(b.max_tokens + reserve, b.reserve_for_response + reserve))


def limit_disagreements(bug: UpstreamBug, sc: Scenario) -> list[str]:
    """Where the report's stated grace limit and per-entry prices differ from what the compile and the reference
    say: sound's refusal names the limit it checked; the entries listed sum to the reference price of what is
    sent."""
    f = facts_of(sc, bug.defect)
    text = render(bug, f)
    stated = re.search(r"grace limit (\S+?)\.", text)[1]
    out = []
    refusal = observe(sc, "sound", invariants=False).refuses
    if refusal is not None and refusal.budget is not None and stated != js_number_string(refusal.budget):
        out.append(f"report says grace limit {stated}, sound's refusal checked {refusal.budget}")
    if stated != js_number_string(grace_limit(sc.budget, sc.config)):
        out.append(f"report says grace limit {stated}, the invariants use {grace_limit(sc.budget, sc.config)}")
    listed = re.findall(r"^- \w+ `[^`]*` \([^,]+, (\S+) tokens\)", text.split("What `")[-1], re.M)
    first = f.carriers[0]
    whole = listed and f"What `{first.variant}` sends:" in text and first.cost is not None
    if whole and sum(float(n) for n in listed) != first.cost:
        out.append(f"entries listed sum to {sum(float(n) for n in listed)}, reference price {first.cost}")
    return out


@pytest.mark.parametrize("defect", [Defect.COMBINED_UNCHECKED, Defect.COMBINED_NO_FLOOR, Defect.TOOL_PASSES_UNPRICED])
def test_the_reports_grace_limit_is_the_compiles_with_a_reserve(defect: Defect) -> None:
    """With tokens reserved for the response, the limit the report states is the one sound's refusal checked."""
    bug = BUGS[defect]
    sc = with_reserve(bug, 10)
    assert observe(sc, "sound", invariants=False).refuses.budget == grace_limit(sc.budget, sc.config)
    assert limit_disagreements(bug, sc) == []


def test_a_grace_limit_without_the_reserve_is_seen_to_disagree(monkeypatch) -> None:
    """Planted: the report's limit computed from maxTokens alone (the reserve forgotten)."""
    bug = BUGS[Defect.COMBINED_UNCHECKED]
    sc = with_reserve(bug, 10)
    monkeypatch.setattr(
        defect_report, "grace_limit", lambda budget, config: grace_limit(Budget(budget.max_tokens), config)
    )
    assert len(limit_disagreements(bug, sc)) == 2


def test_an_entry_priced_by_its_estimate_alone_is_seen_to_disagree(monkeypatch) -> None:
    """Planted: each listed entry priced by the estimator alone, without a floored summary's excess."""
    bug = BUGS[Defect.COMBINED_NO_FLOOR]
    sc = load_scenario(ROOT / bug.scenario_path)
    assert limit_disagreements(bug, sc) == []
    monkeypatch.setattr(defect_report, "entry_price", lambda e, store, config: content_tokens(e.content, store))
    assert limit_disagreements(bug, sc) != []


def test_reproduce_checks_the_folder_the_reports_were_written_to(written: Path, capsys) -> None:
    code = cli.main(["reproduce", str(written)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert out.strip().splitlines()[-1] == f"{len(BUG_LIST)} scenario(s): 0 expectation(s) not as expected"
