"""``reports.frames``: the journal and ``cmharness compare``'s saved cells as pandas DataFrames, each frame checked
against the records it is built from (the committed journal of ``tests/data/report/``), the README's example run
as written, and every input that is not a journal or not saved cells a one-line error."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
from builders import exact_budget, store, summary

from reference.model import Budget, Config
from reference.scenario import Scenario, dump_scenario, save_scenario
from reference.variant_names import SOUND
from reports import cli, frames
from reports.campaign.journal import load_journals
from reports.campaign.records import (
    BROKEN,
    FAILING,
    RED,
    Kind,
    MutantRecord,
    MutmutRecord,
    Status,
    WitnessRecord,
    baseline_of,
    dumps,
)
from reports.compare.classify import CellClass
from reports.errors import UsageError
from reports.render.compare import COLUMNS

pytestmark = pytest.mark.harness

ROOT = Path(__file__).resolve().parents[1]
JOURNAL = ROOT / "tests" / "data" / "report" / "journal"
FP = "feedc0de12345678"
SMALL = ["--templates", "1", "--size", "12", "--workers", "1", "--quiet"]
LONG_HEADER = "[Recall {id} of messages {first} to {last}, at level {level}]"


@pytest.fixture(scope="module")
def records():
    return load_journals(JOURNAL, FP)


@pytest.fixture(scope="module")
def loaded():
    return frames.load(JOURNAL, FP)


def missing(value: object) -> bool:
    """Whether a frame's cell holds nothing (pandas shows a missing string as None or NaN, by version)."""
    return value is None or (isinstance(value, float) and math.isnan(value))


def killed(records) -> dict[str, tuple[str, ...]]:
    """Each mutant the journal ran, with the tests it names as its killers."""
    return {k: r.killed_by for k, r in records.items() if isinstance(r, MutantRecord | MutmutRecord)}


def compare(capsys, *argv: str) -> dict:
    assert cli.main(["compare", *argv, "--json"]) in (0, 1)
    return json.loads(capsys.readouterr().out)


@pytest.fixture
def corpus(tmp_path):
    """#305's question one token below its price (pr sends it, sound refuses), and a store sent whole."""
    folder = tmp_path / "corpus"
    folder.mkdir()
    config = Config(over_budget_grace_ratio=0, head_window_tokens=10, recall_header_template=LONG_HEADER)
    st = store(5, [summary("L1-1", 1, 3)])
    doc = dump_scenario(Scenario(st, config, Budget(max_tokens=exact_budget(st, config) - 1)))
    (folder / "question-305.scenario.json").write_text(json.dumps(doc), encoding="utf-8")
    save_scenario(Scenario(store(4), Config(), Budget(max_tokens=math.inf)), folder / "whole.scenario.json")
    return folder


# ----------------------------------------------------------------------------- the journal's frames


def test_the_mutants_frame_has_a_row_per_mutant_as_the_journal_holds_it(records, loaded):
    m = loaded.mutants
    assert m.index.is_unique and set(killed(records)) <= set(m.index)
    for key, rec in records.items():
        if isinstance(rec, MutmutRecord):
            row = m.loc[key]
            c = rec.change
            assert (row.kind, row.file, row.function, row.mutator, row.line) == (
                Kind.MUTMUT.value,
                c.file,
                c.function,
                c.mutator,
                c.line,
            )
            assert row.duration == rec.duration
        elif isinstance(rec, MutantRecord):
            row = m.loc[key]
            assert row.kind == rec.kind.value and missing(row.function) and missing(row.mutator)
            assert row.status == rec.status.value
        else:
            continue
        assert row.killers == rec.killed_by
        assert row.first_killer == rec.killed_by[0] if rec.killed_by else missing(row.first_killer)
    extra = m.loc["extra:sum-plus-one"]
    assert (extra.file, extra.line) == (records["extra:sum-plus-one"].file, records["extra:sum-plus-one"].line)
    not_run = m[m.status == Status.PENDING.value]
    assert len(not_run) and not_run.duration.isna().all()
    assert not set(not_run.index) & set(killed(records))


def test_the_kill_matrix_is_true_exactly_where_a_test_killed_a_mutant(records, loaded):
    matrix = loaded.kill_matrix
    assert list(matrix.index) == sorted(matrix.index) and list(matrix.columns) == sorted(matrix.columns)
    assert list(matrix.columns) == sorted(loaded.mutants.index)
    assert set(matrix.index) >= {r.nodeid for r in baseline_of(records).tests}
    assert {str(d) for d in matrix.dtypes} == {"bool"}
    kills = killed(records)
    expected = {(t, m) for m, ts in kills.items() for t in ts}
    got = {(t, m) for m in matrix.columns for t in matrix.index[matrix[m]]}
    assert got == expected and expected


def test_the_tests_frame_has_each_test_with_its_outcome_and_witness_or_reason(records, loaded):
    t = loaded.tests
    rows = {r.nodeid: r for r in baseline_of(records).tests}  # the last row of each node id
    assert sorted(t.index) == sorted(rows)
    for nodeid, r in rows.items():
        assert (t.loc[nodeid].base, t.loc[nodeid].file) == (r.base, r.file)
        assert t.loc[nodeid].variant == r.variant if r.variant else missing(t.loc[nodeid].variant)
        assert t.loc[nodeid].outcome == r.outcome.value
    base_of = {r.nodeid: r.base for r in rows.values()}
    broken = {r.base for r in rows.values() if r.outcome in FAILING and r.variant in (None, SOUND)}
    shown_red = {r.base for r in rows.values() if r.outcome in RED} - broken  # a failure on sound is no witness
    shown_red |= {base_of.get(k, k) for ks in killed(records).values() for k in ks}
    searched = {w.base: w for w in records.values() if isinstance(w, WitnessRecord)}
    for nodeid, row in t.iterrows():
        w = searched.get(row.base)
        if row.base in shown_red or (w is not None and w.witness):
            assert not missing(row.witness) and missing(row.reason), nodeid
            if row.base not in shown_red:
                assert row.witness == w.witness
        elif row.base in broken:
            assert missing(row.witness) and row.reason == BROKEN, nodeid
        elif w is not None:
            assert missing(row.witness) and row.reason == w.reason, nodeid
    assert t.witness.notna().any() and t.reason.notna().any()


def test_the_fingerprint_is_the_codes_when_journaled_else_the_last_baselines(tmp_path, monkeypatch, records):
    folder = tmp_path / "out" / "journal"
    folder.mkdir(parents=True)
    shutil.copy(JOURNAL / "all.jsonl", folder / "all.jsonl")
    later = replace(baseline_of(records), fingerprint="0123456789abcdef", finished=2000.0)
    with open(folder / "all.jsonl", "a", encoding="utf-8") as fh:
        fh.write("\n" + dumps(later) + "\n")  # the committed journal ends in a line cut short
    assert frames.load(tmp_path / "out").fingerprint == "0123456789abcdef"
    assert frames.load(folder / "all.jsonl", FP).fingerprint == FP
    monkeypatch.setattr(frames, "code_fingerprint", lambda settings: FP)
    loaded = frames.load(folder)
    assert (loaded.fingerprint, loaded.journal) == (FP, folder)
    assert len(loaded.mutants) == len(frames.load(JOURNAL, FP).mutants)


# ----------------------------------------------------------------------------- compare's cells


def test_saved_cells_read_back_as_compare_holds_them(capsys, tmp_path, corpus):
    saved = tmp_path / "cells"
    doc = compare(
        capsys,
        *SMALL,
        *("--corpus", str(corpus), "--with-default", "--base", "pr-8bb01ab8", "--head", "sound"),
        *("--save-cells", str(saved)),
    )
    differing = [c for c in doc["differing"] if c["estimator"] != "custom"]  # a custom estimator is never saved
    assert len(differing) > 10
    got = frames.cells(saved)
    assert list(got.columns) == [*COLUMNS, "file", "base_variant", "head_variant"]
    assert list(got["cell"]) == sorted(c["cell"] for c in differing)
    assert {"sent", "sent over"} <= {*got.base_kind, *got.head_kind}
    by_cell = {c["cell"]: c for c in differing}
    for row in got.to_dict("records"):
        cell = by_cell[row["cell"]]
        for column in COLUMNS:
            if column == "source":
                assert row[column] in (cell[column], Path(cell[column]).name), row["cell"]
            elif column == "max_tokens":
                assert row[column] == float(cell[column]), row["cell"]
            else:
                assert row[column] == cell[column], (row["cell"], column)
        assert (row["base_variant"], row["head_variant"]) == ("pr-8bb01ab8", "sound")
        assert Path(row["file"]).parent == saved
    assert "question-305.scenario.json" in set(got.cell)
    unexplained = Path(got.file[0])  # compare's note for a cell no switch explains alone, read as cells.csv says it
    doc = json.loads(unexplained.read_text(encoding="utf-8"))
    doc["description"] = doc["description"].rsplit("; explained by ", 1)[0] + "; explained by no defect alone"
    unexplained.write_text(json.dumps(doc), encoding="utf-8")
    assert frames.cells(saved).explained_by[0] == "none alone"


def test_an_empty_save_folder_is_an_empty_frame(tmp_path):
    got = frames.cells(tmp_path)
    assert got.empty and list(got.columns) == [*COLUMNS, "file", "base_variant", "head_variant"]


def test_the_summary_counts_every_class_in_the_seeds_order(capsys):
    doc = compare(capsys, *SMALL, "--cell", "t0/calibrated")
    assert list(doc["counts"]) == [c.value for c in CellClass]
    assert sum(doc["counts"].values()) == doc["cells"] == 48
    differing = Counter(c["class"] for c in doc["differing"])
    assert differing and {c: n for c, n in doc["counts"].items() if n and CellClass(c).differs} == differing
    assert doc["counts"][CellClass.DIFFERENT_BYTES.value] == 0 < doc["counts"][CellClass.SAME_BYTES.value]


# ----------------------------------------------------------------------------- the README's example


def readme_example() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return text.split("<!-- frames-example -->", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]


def test_the_readme_example_answers_its_questions(capsys, tmp_path, monkeypatch, records):
    code = readme_example()
    assert len([line for line in code.splitlines() if line.strip()]) <= 5
    shutil.copytree(JOURNAL, tmp_path / "reports" / "out" / "journal")
    doc = compare(capsys, *SMALL, "--cell", "t0/calibrated", "--save-cells", str(tmp_path / "cells"))
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "README.md", "exec"), {})
    out = capsys.readouterr().out
    per_test = Counter(t for ts in killed(records).values() for t in ts)
    (top, most), *_ = per_test.most_common()
    assert most > 1 and any(line.split() == [top, str(most)] for line in out.splitlines()), out
    for explained, cls in {(c["explained_by"], c["class"]) for c in doc["differing"]}:
        assert explained in out and cls in out


# ----------------------------------------------------------------------------- bad input


def bad_inputs(tmp_path: Path) -> dict[str, Path]:
    empty = tmp_path / "empty"
    empty.mkdir()
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.jsonl").write_text('{"not": "a record"}\nplain text\n', encoding="utf-8")
    text = tmp_path / "notes.txt"
    text.write_text("hello\n", encoding="utf-8")
    binary = tmp_path / "blob.jsonl"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    return {"empty": empty, "other": other, "text": text, "binary": binary, "missing": tmp_path / "missing"}


def test_a_path_without_a_journal_is_a_one_line_error_naming_it(tmp_path):
    why = {
        "empty": "no journal in it",
        "other": "not a journal",
        "text": "not a journal",
        "binary": "cannot read",
        "missing": "no such file or folder",
    }
    for name, path in bad_inputs(tmp_path).items():
        with pytest.raises(UsageError) as err:
            frames.load(path)
        assert str(path) in str(err.value) and why[name] in str(err.value), name
        assert "\n" not in str(err.value), name
    with pytest.raises(UsageError, match="no baseline for fingerprint 0123456789abcdef"):
        frames.load(JOURNAL, "0123456789abcdef")


def test_a_folder_that_holds_no_saved_cells_is_a_one_line_error_naming_it(tmp_path, corpus):
    paths = bad_inputs(tmp_path)
    not_saved = tmp_path / "not-saved"
    shutil.copytree(corpus, not_saved)  # scenario files, but not written by --save-cells
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "a.scenario.json").write_text('{"store": {"messages": 3}}', encoding="utf-8")
    for path, culprit in [
        (paths["other"], paths["other"]),
        (paths["text"], paths["text"]),
        (paths["missing"], paths["missing"]),
        (not_saved, not_saved / "question-305.scenario.json"),
        (broken, broken / "a.scenario.json"),
    ]:
        with pytest.raises(UsageError) as err:
            frames.cells(path)
        assert str(culprit) in str(err.value) and "\n" not in str(err.value), path


def test_the_command_line_says_what_a_folder_holds_or_exits_2_in_one_line(tmp_path, capsys):
    def run(*argv: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "reports.frames", *argv]
        return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)

    done = run(str(JOURNAL))
    assert done.returncode == 0 and f"fingerprint {FP}" in done.stdout, done.stderr
    done = run(str(tmp_path))
    assert done.returncode == 2 and done.stdout == "" and "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1 and str(tmp_path) in done.stderr
    for argv in (
        ["--cells", str(tmp_path / "missing")],
        [str(JOURNAL), "--fingerprint", "x"],
        ["--cells", str(JOURNAL)],
    ):
        assert frames.main(argv) == 2, argv
        out, err = capsys.readouterr()
        assert out == "" and err.count("\n") == 1 and argv[-1] in err, argv
