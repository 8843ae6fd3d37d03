"""The campaign's records (reports/campaign/records.py): statuses, outcomes and kinds named once, and the
same journal giving the same report as before the tooling's redesign (docs/architecture.md, "Records")."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from campaign_helpers import MUTANTS

from reports.campaign.journal import load_journals
from reports.campaign.records import Kind, MutantRecord, Outcome, Status, decode, dumps
from reports.render import html, markdown
from reports.render.outputs import write
from reports.render.report_model import build
from reports.render.summary import summary_lines

pytestmark = pytest.mark.harness

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "data" / "journal"
#: Record fields whose names happen to be status words: a field, not a status.
FIELD_NAMES = {
    ("reports/campaign/protocol.py", "killed"),  # the witness plan's killed mutants by function
    ("reports/cli/check.py", "error"),  # check --json: the refusal's class name
}


def test_the_same_journal_gives_the_same_report():
    """``expected/`` is the report of ``all.jsonl``: a refactor of the records or the renderers must not move it."""
    fp = json.loads((FIXTURE / "all.jsonl").read_text().splitlines()[0])["fingerprint"]
    records = load_journals(FIXTURE, fp)
    report = build(records, fp, MUTANTS, equivalents={})
    expected = FIXTURE / "expected"
    assert markdown.render(report) == (expected / "report.md").read_text()
    assert html.render(report) == (expected / "report.html").read_text()
    assert "\n".join(summary_lines(report)) + "\n" == (expected / "summary.txt").read_text()


def test_the_same_journal_gives_the_same_matrix_and_mutation_report(tmp_path):
    """``matrix.csv`` and ``mutation-report.json`` as the code before the typed records wrote them (the project's
    root, which the JSON names, written as ``<root>``)."""
    fp = json.loads((FIXTURE / "all.jsonl").read_text().splitlines()[0])["fingerprint"]
    report = build(load_journals(FIXTURE, fp), fp, MUTANTS, equivalents={})
    write(report, tmp_path, FIXTURE)
    expected = FIXTURE / "expected"
    assert (tmp_path / "matrix.csv").read_bytes() == (expected / "matrix.csv").read_bytes()
    mte = (tmp_path / "mutation-report.json").read_text().replace(json.dumps(str(FIXTURE)), '"<root>"', 1)
    assert mte == (expected / "mutation-report.json").read_text()


def test_what_a_named_mutants_tests_reached_under_it_is_journaled_and_read_back():
    """The calls a test made under a named mutant beyond its baseline calls, their keys then, and the tests whose
    calls went unseen: what decides which of its rows a change runs again."""
    record = MutantRecord(
        key="defect:X",
        fingerprint="f",
        kind=Kind.DEFECT,
        spec="sound+X",
        ran=2,
        status=Status.KILLED,
        finished=1.0,
        reached={"t.py::a": ("strategies.m.g", "strategies.m.h")},
        reached_keys={"strategies.m.g": "k1", "strategies.m.h": "k2"},
        unseen=("t.py::b",),
    )
    assert decode(json.loads(dumps(record))) == record
    bare = MutantRecord("defect:X", "f", Kind.DEFECT, "sound+X", 0, Status.SURVIVED, 1.0)
    assert decode(json.loads(dumps(bare))) == bare and "reached" not in dumps(bare)


def test_the_journal_stores_the_plain_strings():
    assert json.dumps({"status": Status.NO_COVERAGE, "kind": Kind.MUTMUT, "outcome": Outcome.XFAILED}) == (
        '{"status": "no-coverage", "kind": "mutmut", "outcome": "xfailed"}'
    )
    assert Status("killed") is Status.KILLED and {"killed": 1}[Status.KILLED] == 1


def test_no_status_is_spelt_outside_the_records_module():
    words = {s.value for s in Status}
    found = []
    for path in sorted((ROOT / "reports").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel == "reports/campaign/records.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {
            id(n.body[0].value)
            for n in ast.walk(tree)
            if isinstance(n, ast.Module | ast.FunctionDef | ast.ClassDef) and n.body and isinstance(n.body[0], ast.Expr)
        }
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and node.value in words
                and id(node) not in docstrings
                and (rel, node.value) not in FIELD_NAMES
            ):
                found.append(f"{rel}:{node.lineno}: {node.value!r}")
    assert found == []


def journal_keys() -> set[str]:
    """Every key the codec in records.py writes or reads (the string keys of its dict literals, subscripts and
    ``.get`` calls)."""
    tree = ast.parse((ROOT / "reports" / "campaign" / "records.py").read_text(encoding="utf-8"))
    codec = {"encode", "encode_row", "_decode", "decode_row", "decode_change"}
    keys: set[str] = set()
    for fn in (n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in codec):
        for n in ast.walk(fn):
            if isinstance(n, ast.Dict):
                keys |= {k.value for k in n.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)}
            elif isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Constant) and isinstance(n.slice.value, str):
                keys.add(n.slice.value)
            elif (
                isinstance(n, ast.Call)
                and isinstance(n.func, ast.Attribute)
                and n.func.attr == "get"
                and n.args
                and isinstance(n.args[0], ast.Constant)
                and isinstance(n.args[0].value, str)
            ):
                keys.add(n.args[0].value)
    return keys


#: Journal keys that other formats use too (the child sessions' rows and plans, mutmut's files, the report's
#: tables and JSON, the compare outputs, the suite's order file): a literal of one is no sign of a journal read
#: by hand.
SHARED_WORDS = {
    *("base", "column", "diff", "duration", "end_column", "end_line", "exit", "failure", "file", "fingerprint"),
    *("function", "kind", "line", "mutant", "mutator", "names", "nodeid", "note", "original", "outcome", "passed"),
    *("path", "reason", "red_on", "replacement", "spec", "status", "t", "test", "tests", "text", "timeout", "tried"),
    *("variant", "witness"),
}
#: Journal-only keys that name something else where they appear.
KEY_NAMES = {
    ("reports/cli/defects.py", "killed_by"),  # defects --json: its own output's field
}
#: Parameter names that hold journal records: never a plain dict.
RECORD_NAMES = {"record", "rec", "records", "baseline", "done", "journal"}


def test_no_journal_key_is_spelt_and_no_record_is_a_dict_outside_the_records_module():
    keys = journal_keys()
    assert {"killed_by", "time_to_kill", "variants_used", "fingerprint"} <= keys  # the codec was read
    found = []
    for path in sorted((ROOT / "reports").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel == "reports/campaign/records.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and node.value in keys - SHARED_WORDS
                and (rel, node.value) not in KEY_NAMES
            ):
                found.append(f"{rel}:{node.lineno}: journal key {node.value!r}")
            if isinstance(node, ast.Dict):  # a record built by hand: its key with its fingerprint
                literal = {k.value for k in node.keys if isinstance(k, ast.Constant)}
                if {"mutant", "fingerprint"} <= literal:
                    found.append(f"{rel}:{node.lineno}: a journal record built by hand")
            if isinstance(node, ast.arg) and node.arg in RECORD_NAMES and node.annotation is not None:
                text = ast.unparse(node.annotation)
                if "Any" in text and ("dict" in text or "Mapping" in text):
                    found.append(f"{rel}:{node.lineno}: {node.arg}: {text}")
    assert found == []
