"""``cmharness compare`` (reports/cli/compare.py, corpus.py, compare_report.py): folders, attribution, outputs."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import pytest
from builders import exact_budget, store, summary

from invariants.reproduce import prepared
from reference.model import Budget, Config
from reference.price import reference_price
from reference.scenario import Scenario, dump_scenario, load_scenario, save_scenario
from reports import cli
from reports.cli import compare as compare_cli
from reports.compare import cells as cells_mod
from reports.compare import corpus
from tests.streams import Stream

pytestmark = pytest.mark.harness

LONG_HEADER = "[Recall {id} of messages {first} to {last}, at level {level}]"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
SMALL = ["--templates", "1", "--size", "12", "--workers", "1", "--quiet"]


def run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def folder(tmp_path):
    """Two scenario files: #305's question one token below its price (with an ``expect`` section), and a store
    sent whole."""
    config = Config(over_budget_grace_ratio=0, head_window_tokens=10, recall_header_template=LONG_HEADER)
    st = store(5, [summary("L1-1", 1, 3)])
    doc = dump_scenario(Scenario(st, config, Budget(max_tokens=exact_budget(st, config) - 1)))
    doc["expect"] = {"sound": {"refuses": {}}}
    doc["source"] = "#305"
    (tmp_path / "question-305.scenario.json").write_text(json.dumps(doc), encoding="utf-8")
    save_scenario(Scenario(store(4), Config(), Budget(max_tokens=math.inf)), tmp_path / "whole.scenario.json")
    return tmp_path


def test_corpus_reads_a_folder_of_scenario_files(capsys, folder):
    code, out, _ = run(
        capsys,
        "compare",
        "--corpus",
        str(folder),
        "--base",
        "pr-8bb01ab8",
        "--head",
        "sound",
        "--json",
        "--workers",
        "1",
        "--quiet",
    )
    doc = json.loads(out)
    assert code == 0 and doc["cells"] == 2
    assert doc["counts"]["both sent the same bytes"] == 1
    (cell,) = doc["differing"]
    assert cell["cell"] == "question-305.scenario.json"
    assert cell["class"] == "base sent, head refuses"
    assert cell["explained_by"] == "QUESTION_PRICED_AS_LABEL"
    assert cell["command"].startswith("cmharness check ") and "--explain" in cell["command"]


def test_a_folder_without_scenarios_or_with_a_bad_one_is_a_one_line_error(capsys, tmp_path):
    code, _, err = run(capsys, "compare", "--corpus", str(tmp_path))
    assert code == 2 and "no scenario files" in err and err.count("\n") == 1
    (tmp_path / "bad.json").write_text('{"store": {"messages": 3}}', encoding="utf-8")
    code, _, err = run(capsys, "compare", "--corpus", str(tmp_path))
    assert code == 2 and "bad.json" in err and err.count("\n") == 1


def test_an_unknown_side_is_a_one_line_error(capsys):
    code, out, err = run(capsys, "compare", "--head", "sound+NO_SUCH")
    assert code == 2 and out == "" and "unknown defect 'NO_SUCH'" in err


@pytest.mark.parametrize("option", ["--out", "--save-cells"])
def test_a_folder_option_that_cannot_be_a_folder_is_one_line_before_any_compile(capsys, tmp_path, monkeypatch, option):
    monkeypatch.setattr(compare_cli, "run_all", lambda *a, **k: pytest.fail("the corpus ran"))
    a_file = tmp_path / "a-file"
    a_file.write_text("", encoding="utf-8")
    code, out, err = run(capsys, "compare", *SMALL, option, str(a_file))
    assert (code, out) == (2, "")
    assert f"argument {option}: '{a_file}' exists and is not a folder" in err and err.count("\n") == 1
    code, out, err = run(capsys, "compare", *SMALL, option, str(a_file / "under"))  # cannot be made
    assert (code, out, err) == (2, "", f"cmharness: error: {option} {a_file / 'under'}: Not a directory\n")


@pytest.mark.parametrize(
    ("option", "value", "least"),
    [("--templates", "-1", 0), ("--size", "0", 1), ("--show", "x", 0), ("--size", "1.5", 1)],
)
def test_a_count_out_of_range_is_a_one_line_error_naming_its_option(capsys, option, value, least):
    code, out, err = run(capsys, "compare", option, value)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert f"argument {option}: a count is an integer >= {least}, got '{value}'" in err


def test_the_plot_is_a_valid_png(capsys, tmp_path):
    import matplotlib.image

    path = tmp_path / "outcomes.png"
    code, _, _ = run(capsys, "compare", *SMALL, "--cell", "t0/default", "--plot", str(path))
    assert code in (0, 1)
    data = path.read_bytes()
    assert data.startswith(PNG_MAGIC) and b"IEND" in data[-16:]
    image = matplotlib.image.imread(path)
    assert image.shape[0] > 100 and image.shape[1] > 100


def test_out_and_saved_cells_hold_every_differing_cell(capsys, tmp_path):
    out_dir, cells = tmp_path / "out", tmp_path / "cells"
    code, out, _ = run(
        capsys,
        "compare",
        *SMALL,
        "--cell",
        "t0/calibrated",
        "--json",
        "--out",
        str(out_dir),
        "--save-cells",
        str(cells),
    )
    doc = json.loads(out)
    assert code == (1 if doc["counts"]["both sent different bytes"] else 0)
    differing = doc["differing"]
    assert doc["cells"] == 48 and differing, "the calibrated store differs between main and pr (the view)"
    with open(out_dir / "cells.csv", encoding="utf-8", newline="") as fh:
        table = list(csv.DictReader(fh))
    assert sorted(row["cell"] for row in table) == sorted(c["cell"] for c in differing)
    assert (out_dir / "cells.md").read_text(encoding="utf-8").count("\n") == len(differing) + 2
    saved = sorted(cells.glob("*.scenario.json"))
    assert len(saved) == len(differing)
    first = differing[0]
    assert first["command"] == (
        f"cmharness check {cells / corpus_file(first['cell'])} --variant main-48bb87a1 --variant pr-8bb01ab8 --explain"
    )
    scenario = load_scenario(saved[0])
    assert scenario.store.calibration == corpus.CALIBRATION


def corpus_file(cell_id: str) -> str:
    return cell_id.replace("/", "_") + ".scenario.json"


def test_the_corpus_is_deterministic_and_has_twelve_budgets_per_grid_point():
    axes = corpus.Axes(0, "default", "combined", "carriers")
    a, b = corpus.cells(3, 20, axes), corpus.cells(3, 20, axes)
    assert [c.budget_label for c in a] == list(corpus.BUDGETS)
    assert [repr(c.store) for c in a] == [repr(c.store) for c in b]
    assert [c.budget.max_tokens for c in a] == [c.budget.max_tokens for c in b]
    assert len(list(corpus.grid(2))) == 2 * 12


def test_the_templates_are_realistic():
    from reference.model import Image, Thinking, ToolResult, ToolUse

    kinds, levels, carriers = set(), set(), 0
    for k in range(4):
        st, _ = corpus.template(0, 40, k)
        kinds |= {type(b) for m in st.messages for b in m.content}
        levels |= {s.level for s in st.summaries}
        carriers += sum(1 for s in st.summaries if s.response_content)
    assert {ToolUse, ToolResult, Thinking, Image} <= kinds
    assert {1, 2, 3} <= levels and carriers > 0


def test_a_custom_estimator_cell_is_reproduced_by_compare_itself(capsys):
    _, out, _ = run(capsys, "compare", *SMALL, "--cell", "t0/custom/positioned", "--json")
    differing = json.loads(out)["differing"]
    assert differing, "a custom estimator prices recall pairs otherwise on main (the view is never bound)"
    for cell in differing:
        assert cell["command"].startswith("cmharness compare ") and f"--cell {cell['cell']}" in cell["command"]


@pytest.mark.parametrize(
    ("base", "head", "cell", "switch"),
    [
        ("main-48bb87a1", "hysteresis-a95eb55b", "t2/default/positioned/carriers", "IMAGE_STRIP_HYSTERESIS"),
        ("main-48bb87a1", "hysteresis-a95eb55b", "t3/default/positioned/carriers", "DEPTH_RULE_OFF_BY_ONE"),
        ("main-48bb87a1", "raw-forms-cbe7032a", "t1/default/positioned/carriers", "RAW_FORMS_RELEASED"),
        ("hysteresis-a95eb55b", "raw-forms-cbe7032a", "t2/default/combined/carriers", "IMAGE_STRIP_HYSTERESIS"),
    ],
)
def test_the_newer_lines_differ_on_the_default_corpus_and_each_cell_is_explained(capsys, base, head, cell, switch):
    """The corpus reaches the newer lines' behaviours (a small byte cap, a hysteresis ratio, tool caps editing
    blocks with raw forms), each side compiles with its line's behaviours, and the explainer names them."""
    argv = ["compare", "--base", base, "--head", head, "--templates", "4", "--size", "40", "--workers", "1"]
    _, out, _ = run(capsys, *argv, "--quiet", "--cell", cell, "--json")
    differing = json.loads(out)["differing"]
    assert differing, f"{cell}: no cell differs between {base} and {head}"
    explained = [c["explained_by"] for c in differing]
    assert "none alone" not in explained
    assert any(switch in e.split("+") for e in explained), explained


@pytest.mark.parametrize("tty", [True, False], ids=["terminal", "log"])
def test_progress_is_rewritten_in_place_on_a_terminal_and_whole_lines_in_a_log(folder, monkeypatch, tty):
    """On a terminal one line counts up in place; in a CI log no carriage return garbles it: a line now and then
    (here, with the clock frozen, only the last)."""
    jobs = [cells_mod.Job("main-48bb87a1", "sound", 0, 12, 1, path=str(p)) for p in sorted(folder.iterdir())]
    monkeypatch.setattr(cells_mod.time, "monotonic", lambda: 100.0)
    stream = Stream(tty)
    records, _ = cells_mod.run_all(jobs, 1, stream)
    assert len(records) == 2
    if tty:
        assert stream.getvalue() == "\rcompare: 1/2 cells, 0.0s\rcompare: 2/2 cells, 0.0s\n"
    else:
        assert stream.getvalue() == "compare: 2/2 cells, 0.0s\n"


TYPESCRIPT = Path(__file__).parent / "scenarios" / "typescript"


def _sent_after_earlier_compiles(scenario: Scenario, variant: str) -> str:
    """What a side that compiles ``scenario`` on ``variant`` after its ``compiles_before`` says it sent."""
    ready = prepared(scenario, variant)
    strategy, store = ready.strategy, ready.store
    result = strategy.compile(scenario.budget, dry_run=True)
    price = reference_price(result.entries, store, scenario.config)
    return f"sent {len(result.entries)} entries (charged {result.stats.total.tokens}, priced {price})"


@pytest.mark.parametrize(
    "name", ["hysteresis-count-cap-6", "hysteresis-count-cap-7", "hysteresis-reopen-again", "raw-forms-second-compile"]
)
def test_a_corpus_file_that_compiles_several_times_is_compared_after_its_earlier_compiles(name, tmp_path):
    """A file with ``compiles_before`` (the hysteresis watermark, a second compile) is one step of a sequence: each
    side compiles it after the earlier compiles, on its own strategy, as ``reproduce`` does."""
    path = TYPESCRIPT / f"{name}.scenario.json"
    scenario = load_scenario(path)
    assert scenario.compiles_before
    base, head = "hysteresis-a95eb55b", "raw-forms-cbe7032a"
    job = cells_mod.Job(base, head, 0, 12, 1, path=str(path), save_dir=str(tmp_path))
    [record] = cells_mod.run_job(job)
    assert (record.base, record.head) == (
        _sent_after_earlier_compiles(scenario, base),
        _sent_after_earlier_compiles(scenario, head),
    )
    if record.cls.differs:
        saved = load_scenario(tmp_path / cells_mod.cell_file(record.id))
        assert saved.compiles_before == scenario.compiles_before
