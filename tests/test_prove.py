"""``cmharness prove`` (docs/model.md, The proof for small stores): the small scope holds on ``sound``; a defect or a
planted bug inside the scope fails the proof with a scenario that reproduces it; a bad scope is one line, exit 2;
shards merge into the unsharded result; the defect table names every defect (and, slow, is what the proof finds)."""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from invariants.generators.budget_placement import input_budget_for
from invariants.properties import INVARIANTS
from invariants.properties.bad_numbers import bad_values
from invariants.prove.boundaries import budget_points, emission_sums, grace_lemma, level_points
from invariants.prove.engine import Found, Proof, bad_cases, merge, prove
from invariants.prove.scope import BAD_NAMES, PRESETS, parse_scope, scope_spec
from invariants.prove.shapes import enumerate_shapes, l1_sets, trees
from reference.model import Budget, Config
from reference.scenario import loads_scenario
from reports import cli
from reports.cli import prove as prove_cli
from strategies import emission
from strategies.defects import LINE_BEHAVIOURS, Behaviour, Defect, Defects

ROOT = Path(__file__).resolve().parents[1]

#: The proof is a tool over the judges: each of its runs repeats what the invariants' own tests judge, over thousands of
#: cases (the small scope takes some 30 s), so the mutation campaign leaves its tests out, as it does the tool's others.
pytestmark = pytest.mark.harness


def _run(argv: list[str], capsys) -> tuple[int, str, str]:
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_the_small_scope_holds_on_sound_and_says_what_it_covered(capsys):
    code, out, _ = _run(["prove", "--scope", "small", "--workers", "2"], capsys)
    assert code == 0, out
    assert "no invariant breaks within the scope" in out
    for line in PRESETS["small"].describe():
        assert line in out  # the scope printed in full
    covered = re.search(r"covered: (\d+) stores, (\d+) cases", out)
    assert covered is not None
    assert int(covered.group(1)) == len(enumerate_shapes(PRESETS["small"]).shapes)
    assert int(covered.group(2)) > 10_000


def test_a_defect_inside_the_scope_is_found_and_its_scenario_breaks_the_same_invariant(capsys, tmp_path):
    proof = prove(parse_scope("small"), "sound+RAW_CAP_PLUS_50", first=True)
    assert proof.found
    for f in proof.found:
        sc = loads_scenario(f.scenario)
        variant = frozenset({Defect.RAW_CAP_PLUS_50})
        assert INVARIANTS[f.invariant](sc.store, sc.config, sc.budget, variant), f.invariant
        assert not INVARIANTS[f.invariant](sc.store, sc.config, sc.budget, "sound")
    path = tmp_path / "case.scenario.json"
    path.write_text(proof.found[0].scenario, encoding="utf-8")
    assert _run(["check", str(path), "--variant", "sound+RAW_CAP_PLUS_50"], capsys)[0] == 1
    assert _run(["reproduce", str(path)], capsys)[0] == 0  # sound holds on it


def test_a_planted_bug_breaks_the_proof_with_a_scenario_red_on_sound(monkeypatch, capsys, tmp_path):
    """A total equal to the grace limit refused (the contract's comparisons are strict): the proof fails on sound
    (exit 3) and writes a scenario that ``reproduce`` shows red while the bug is in, green once it is out."""
    monkeypatch.setattr(emission.Running, "fits", lambda self, price: not self.total + price >= self.limit)
    code, out, _ = _run(["prove", "--scope", "small,messages=1", "--first", "--out", str(tmp_path)], capsys)
    assert code == 3, out
    files = sorted(tmp_path.glob("*.scenario.json"))
    assert files, out
    assert "no invariant breaks" not in out
    assert _run(["reproduce", str(files[0])], capsys)[0] == 1
    monkeypatch.undo()
    assert _run(["reproduce", str(files[0])], capsys)[0] == 0


@pytest.mark.parametrize(
    ("spec", "culprit"),
    [
        ("mesages=3", "mesages"),
        ("smal", "smal"),
        ("small,caps=of", "of"),
        ("messages=x", "messages"),
        ("messages=99", "messages"),
        ("messages=3,small", "small"),
        ("graces=NaN", "graces"),
        ("small,,messages=2", "empty"),
    ],
)
def test_a_bad_scope_is_one_line_naming_it_and_exit_2(spec, culprit, capsys):
    code, _, err = _run(["prove", "--scope", spec], capsys)
    assert code == 2
    assert len(err.strip().splitlines()) == 1, err
    assert culprit in err
    assert "Traceback" not in err


def test_a_bad_variant_invariant_or_shard_is_exit_2(capsys):
    for argv in (
        ["prove", "--variant", "sound+NO_SUCH"],
        ["prove", "--invariant", "never_over"],
        ["prove", "--shard", "3/2"],
        ["prove", "--merge", "/nonexistent.json"],
    ):
        code, _, err = _run(argv, capsys)
        assert code == 2, argv
        assert len(err.strip().splitlines()) == 1, err


DROPPED = object()
#: A shard's JSON wrong in one field (``DROPPED``: left out), and what the error must say of it.
BAD_SHARDS = [
    ("scope", DROPPED, 'the file: missing field "scope"'),
    ("shapes", 1.5, "shapes: input should be a valid integer"),
    ("shard", [1], "shard[1]: missing"),
    ("found", [{"invariant": "never-over"}], 'found[0]: missing field "shape"'),
    ("stopped", "no", "stopped: input should be a valid boolean"),
]


@pytest.mark.parametrize(("field", "value", "said"), BAD_SHARDS, ids=[f for f, _, _ in BAD_SHARDS])
def test_a_shard_file_wrong_in_one_field_is_one_line_naming_the_file_and_the_field(
    tmp_path, capsys, field, value, said
):
    good = json.loads(prove(parse_scope("small,messages=1,summaries=0"), "sound").to_json())
    assert Proof.from_json(json.dumps(good)).shard == (1, 1)  # the unchanged file reads back
    bad = {k: v for k, v in good.items() if k != field} | ({} if value is DROPPED else {field: value})
    path = tmp_path / "shard.json"
    path.write_text(json.dumps(bad), encoding="utf-8")
    code, _, err = _run(["prove", "--merge", str(path)], capsys)
    assert code == 2
    assert err.strip().splitlines() == [
        f"cmharness: error: --merge: {path} is not a shard of `cmharness prove --json`: {said}"
    ]


def test_a_shard_file_that_is_not_json_names_the_file(tmp_path, capsys):
    path = tmp_path / "shard.json"
    path.write_text('{"scope":', encoding="utf-8")
    code, _, err = _run(["prove", "--merge", str(path)], capsys)
    assert code == 2
    assert err.strip().splitlines() == [
        f"cmharness: error: --merge: {path} is not a shard of `cmharness prove --json`: "
        "the file: invalid JSON: EOF while parsing a value at line 1 column 9"
    ]


def test_every_scope_spec_reads_back_as_itself():
    for scope in PRESETS.values():
        assert parse_scope(scope_spec(scope)) == scope
    assert parse_scope("small,messages=3,modes=combined").messages == 3
    assert parse_scope("small,messages=3,modes=combined").modes == ("combined",)


#: One prose message, no summary: the least store a bad value can be put in.
ONE_MESSAGE = "small,messages=1,summaries=0,rich=0,caps=off"


@pytest.mark.parametrize("name", BAD_NAMES)
def test_each_bad_value_of_the_scope_is_one_the_bad_values_invariant_calls_bad(name):
    """The ``bad`` dimension makes what it names: each case it adds has exactly one bad number, the one named."""
    scope = parse_scope(f"{ONE_MESSAGE},bad={name}")
    (shape,) = enumerate_shapes(scope).shapes
    made = list(bad_cases(shape, scope))
    field = FIELD_OF_BAD[name.rsplit("-", 1)[0]]
    assert made and all(field in " ".join(bad_values(shape.store, c, b)) for c, b in made)


#: The field ``bad_values`` names for each bad value's number.
FIELD_OF_BAD = {
    "budget": "max_tokens",
    "reserve": "reserve_for_response",
    "grace": "over_budget_grace_ratio",
    "head": "head_window_tokens",
    "recent": "recent_window_tokens",
    "level": "l1_budget_tokens",
    "cap": "cap",
}


def test_the_bad_values_find_the_unchecked_defect_that_no_other_dimension_does():
    """``UNCHECKED_BAD_VALUES`` lets a NaN budget through and sends against a NaN grace limit: found by the bad values
    of the smallest scope, not without them; ``sound`` refuses every one of them or sends under a real limit."""
    found = prove(parse_scope(ONE_MESSAGE), "sound+UNCHECKED_BAD_VALUES", first=True)
    assert "bad-values" in {f.invariant for f in found.found}
    assert prove(parse_scope(f"{ONE_MESSAGE},bad=none"), "sound+UNCHECKED_BAD_VALUES").holds
    assert prove(parse_scope(ONE_MESSAGE), "sound").holds
    none = parse_scope(f"{ONE_MESSAGE},bad=none")
    assert none.bad == () and parse_scope(scope_spec(none)) == none


def test_shards_merged_are_the_unsharded_proof(capsys, tmp_path):
    spec, variant = "small,messages=1", "sound+RAW_CAP_PLUS_50"
    code, whole, _ = _run(["prove", "--scope", spec, "--variant", variant, "--json", "--out", str(tmp_path)], capsys)
    assert code == 1
    parts = []
    for i in (1, 2):
        c, text, _ = _run(
            ["prove", "--scope", spec, "--variant", variant, "--shard", f"{i}/2", "--json", "--out", str(tmp_path)],
            capsys,
        )
        assert c in (0, 1)
        path = tmp_path / f"shard{i}.json"
        path.write_text(text, encoding="utf-8")
        parts.append(path)
    code, merged, _ = _run(["prove", "--merge", *map(str, parts), "--json", "--out", str(tmp_path)], capsys)
    assert code == 1

    def timeless(text: str) -> Proof:
        proof = Proof.from_json(text)
        lemmas = tuple(dataclasses.replace(lemma, seconds=0.0) for lemma in proof.lemmas)
        return dataclasses.replace(proof, seconds=0.0, lemmas=lemmas)

    one, two = timeless(whole), timeless(merged)
    assert one == two
    assert one.found and one.cases > 0
    with pytest.raises(ValueError, match="shards"):
        merge([Proof.from_json(parts[0].read_text(encoding="utf-8"))])


def test_the_budget_points_hold_both_sides_of_every_sum_sent():
    """For each running total the emission compares with the grace limit, the least budget whose limit reaches it
    and one below are tested (so each region of the budget between two totals is visited)."""
    shapes = enumerate_shapes(parse_scope("small")).shapes
    for shape in shapes[:40]:
        config = Config(positioned_recall_pairs=bool(len(shape.store.summaries) % 2), l3_budget_tokens=0)
        points = set(budget_points(shape.store, config, 0, 1))
        for c in emission_sums(shape.store, config, Budget(max_tokens=float("inf"))):
            least = input_budget_for(c, config.over_budget_grace_ratio)
            assert least in points and max(0, least - 1) in points, (shape.label, c)


def test_the_level_points_reach_each_sum_of_a_levels_tokens_with_and_without_the_carry():
    shape = next(s for s in enumerate_shapes(parse_scope("small,summaries=3,levels=2")).shapes if len(s.tree) == 3)
    triples = level_points(shape.store, 1, split=True)
    assert (0, 0, 0) in triples
    assert any(l3 == 1 for l3, _, _ in triples)  # one token moved to l3 reaches L1 through two carries
    assert all(l3 in (0, 1) for l3, _, _ in triples)


def test_the_summary_trees_are_every_set_of_disjoint_runs_and_every_merge():
    # 3 messages: no run; 6 single runs; 5 pairs of disjoint runs; the three single messages
    assert len(l1_sets(3, 3)) == 1 + 6 + 5 + 1
    assert len(l1_sets(3, 1)) == 1 + 6
    # an L2 over each run of adjacent L1s, when a summary is left for it
    assert len(trees(2, 3, 2)) == len(l1_sets(2, 3)) + 2 + 1 + 3
    sizes = [s.size for s in enumerate_shapes(PRESETS["small"]).shapes]
    assert sizes == sorted(sizes)


def test_the_grace_lemma_is_proved_for_whole_percents_and_not_claimed_elsewhere():
    assert grace_lemma(0.02).proved
    assert grace_lemma(0.0).proved
    assert not grace_lemma(0.025).proved


# ----------------------------------------------------------------------------- the defect table

TABLE_START = "<!-- prove-defect-table -->"


def table_rows() -> dict[str, list[str]]:
    """docs/model.md's defect table of the proof: defect name -> its cells."""
    text = (ROOT / "docs" / "model.md").read_text(encoding="utf-8")
    body = text.split(TABLE_START, 1)[1].split("\n\n", 1)[0]
    rows = {}
    for line in body.strip().splitlines()[2:]:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        rows[cells[0].strip("`")] = cells
    return rows


def test_the_defect_table_has_a_row_for_every_defect():
    assert set(table_rows()) == {d.name for d in Defect} | {b.name for b in Behaviour}


def test_every_defect_and_behaviour_is_found_by_the_proof_in_a_scope_of_the_table():
    """No row says "not found": each defect and line behaviour breaks an invariant within the scope its row names
    (which ``test_the_defect_table_is_what_the_proof_finds`` proves again under ``--cm-slow``)."""
    assert sorted(name for name, cells in table_rows().items() if not cells[1].startswith("`")) == []


#: The scope where each image behaviour and the raw forms are told apart, one message, no summary (``BEHAVIOUR_LADDER``
#: in benchmarks/bench_prove.py proves over it with two messages and a summary).
BEHAVIOURS_TINY = (
    "small,messages=1,summaries=0,contents=image-data/two-images/raw-parts,passes=off/images/depth/bytes/hysteresis"
)


@pytest.mark.parametrize("behaviour", list(Behaviour), ids=lambda b: b.name)
def test_a_behaviour_breaks_an_invariant_judged_by_the_rules_without_it_and_none_by_its_own(behaviour):
    """``judged_as``: ``sound+BEHAVIOUR`` judged by ``sound``'s rules breaks an invariant inside the scope, and
    ``sound`` judged by the behaviour's breaks one too; judged by its own rules it holds."""
    scope, spec = parse_scope(BEHAVIOURS_TINY), f"sound+{behaviour.name}"
    told = prove(scope, spec, judged_as="sound", first=True)
    assert told.found and told.judged_as == "sound"
    assert "judged by the rules of sound" in loads_scenario(told.found[0].scenario).description
    assert prove(scope, "sound", judged_as=spec, first=True).found
    assert prove(scope, spec, workers=2).holds


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(table_rows()))
def test_the_defect_table_is_what_the_proof_finds(name):
    """Each row that says a scope found its defect or behaviour: the proof at that scope finds it again, at the same
    store (a behaviour's compile judged by the rules without it, as ``bench_prove.py --table`` proves it)."""
    cells = table_rows()[name]
    if not cells[1].startswith("`"):
        return  # not found, or pinned by examples: nothing to find again
    scope = cells[1].strip("`")
    spec = f"sound+{name}" + (",COVERAGE_COUNTS_LEFT_OUT" if name == "FLOOR_UNHELD" else "")
    judged_as = "sound" if name in Behaviour.__members__ else None
    proof = prove(parse_scope(scope), spec, first=True, workers=2, judged_as=judged_as)
    assert proof.found, name
    smallest = min(proof.found, key=lambda f: (f.shape, f.case))
    assert smallest.store in cells[3], (name, smallest.store)


@pytest.mark.parametrize("line", sorted(LINE_BEHAVIOURS))
def test_the_breaks_the_proof_reports_on_a_newer_line_are_none_of_its_behaviours_alone(line):
    """``prove --variant LINE`` breaks (the line carries defects), but no break it reports is the line's behaviours
    alone: the same case, compiled with those behaviours and no defect, holds that invariant."""
    proof = prove(parse_scope(BEHAVIOURS_TINY), line, workers=2)
    assert proof.found
    alone = Defects(frozenset(), LINE_BEHAVIOURS[line])
    for f in proof.found:
        case = loads_scenario(f.scenario)
        assert not INVARIANTS[f.invariant](case.store, case.config, case.budget, alone), (f.invariant, f.store)


@pytest.mark.slow
@pytest.mark.parametrize("line", sorted(LINE_BEHAVIOURS))
def test_a_lines_behaviours_alone_break_nothing_where_the_table_tells_them_apart(line):
    """The newer lines carry defects, so ``prove --variant LINE`` breaks; their behaviours alone, in ``sound`` and
    judged by the line's own rules, break nothing over the scope the table's behaviour rows are found in."""
    spec = "sound+" + ",".join(sorted(b.name for b in LINE_BEHAVIOURS[line]))
    scopes = {cells[1].strip("`") for name, cells in table_rows().items() if name in Behaviour.__members__}
    for scope in sorted(scopes):
        proof = prove(parse_scope(scope), spec, workers=2, first=True)  # first: a break ends it, else all is covered
        assert proof.holds and not proof.stopped, (scope, [f.message for f in proof.found])


@pytest.mark.slow
def test_the_default_scope_holds_on_sound():
    """What ``cmharness prove`` runs by default (about 6 minutes of 2 idle cores; benchmarks/README.md)."""
    proof = prove(PRESETS["default"], "sound", workers=2)
    assert proof.holds, [f.message for f in proof.found]
    assert proof.shapes == len(enumerate_shapes(PRESETS["default"]).shapes)
    assert proof.cases > 300_000


@pytest.mark.slow
def test_the_carry_mutant_that_generation_misses_is_found_by_the_proof(tmp_path):
    """tests/mutants/28 (the carry down the waterfall ignores what the level above carried): the Hypothesis properties
    sample past it (benchmarks/README.md); the proof finds it with L1, L2 and a level budget split across levels."""
    copy = tmp_path / "tree"
    shutil.copytree(ROOT, copy, ignore=shutil.ignore_patterns(".venv", ".git", ".cmharness", "out", "__pycache__"))
    patch = ROOT / "tests" / "mutants" / "28-waterfall-carry-own-level.patch"
    subprocess.run(["patch", "-p1", "-s", "-i", str(patch)], cwd=copy, check=True)
    scope = "small,summaries=3,levels=2,carry=1,rich=0,odd=0,modes=positioned,caps=off"
    env = {"PYTHONPATH": str(copy), "PATH": "/usr/bin:/bin"}
    argv = [sys.executable, "-m", "reports.cli", "prove", "--scope", scope, "--first", "--out", str(tmp_path / "o")]
    done = subprocess.run(argv, cwd=copy, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 3, done.stdout + done.stderr
    assert "selection breaks on sound" in done.stdout
    found = json.loads((tmp_path / "o" / "selection.scenario.json").read_text(encoding="utf-8"))
    assert found["expect"] == {"sound": {"holds": True}}


@pytest.mark.parametrize(
    ("variant", "judged_as", "code"),
    [
        ("sound", None, 3),
        ("sound+IMAGE_STRIP_HYSTERESIS", None, 3),
        ("sound+IMAGE_STRIP_HYSTERESIS", "sound", 1),
        ("sound+RAW_CAP_PLUS_50", None, 1),
        ("hysteresis-a95eb55b", None, 1),
    ],
)
def test_a_break_exits_3_only_on_a_variant_with_no_defect_judged_by_its_own_rules(variant, judged_as, code):
    """As ``check``: a line's behaviours are the contract its judges hold it to, so ``sound`` with behaviours alone
    breaking is the model's own fault (3); a defect's break, or a behaviour judged by rules without it, is a find."""
    found = Found("never-over", 0, 0, (1, 0, 0), "m0", "planted", "{}")
    proof = Proof("small", variant, ("never-over",), (1, 1), 1, 1, 0, 0.0, (found,), (), judged_as=judged_as)
    assert prove_cli.exit_code(proof) == code
    assert prove_cli.exit_code(dataclasses.replace(proof, found=())) == 0
