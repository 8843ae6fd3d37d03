"""``mutation-report.json`` means what the format means: each mutant's ``replacement`` spliced into its
``location`` (1-based, end exclusive, UTF-16 columns) is the mutant's code, named mutants show the code they change,
and the test view lists what covers and what kills each mutant, with each test's source and line."""

from __future__ import annotations

import ast
import contextlib
import importlib.metadata
import json
import os
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from test_campaign_report_golden import DATA, EQUIVALENTS, FIXTURE_MUTANTS, FP

from reports.campaign.journal import load_journals
from reports.campaign.mutmut.describe import describe
from reports.campaign.records import (
    BaselineRecord,
    CoverageRecord,
    Kind,
    MutantChange,
    MutantRecord,
    MutmutRecord,
    Outcome,
    Status,
    WitnessRecord,
    coverage_key,
    dumps,
    loads,
)
from reports.render.mutation_testing_elements import mte_json, named_edit, patch_edit
from reports.render.report_model import NamedRow, build

pytestmark = pytest.mark.harness

#: Every kind of node mutmut mutates: operators, comparisons, strings (one not ASCII), numbers, defaults on the
#: ``def`` line of a function and of a method, a multi-line expression, ``x if c else y``, keyword arguments,
#: augmented assignments, loops and a decorated function.
SOURCE = """import functools


def price(a, b=2, *, label="tokens", cap=None):
    total = a + b * 3 - (a // 2)
    if total >= 10 and label != "x" or cap is not None:
        total -= 1
    return f"{total} {label}" if total > 0 else "→ none ✓"


class Meter:
    def __init__(self, size=4, name="m"):
        self.size = size
        self.name = name

    def grow(self, n=1, *, by=2.5):
        return (
            self.size
            + n * by
            - sum(x for x in range(n) if x % 2 == 0)
        )

    def loop(self, items):
        out = []
        for i in items:
            if not i:
                continue
            if i > 100:
                break
            out.append(min(i, key=abs) if isinstance(i, list) else max(i, 0))
        return sorted(out, reverse=True)


@functools.cache
def cached(n):
    return n + 1


def calls(a, b):
    return dict(a=a, b=b + 1, c="é" * 2)
"""


def utf16_offset(text: str, line: int, column: int) -> int:
    """The string offset of a viewer position (1-based line, 1-based column in UTF-16 code units)."""
    starts = [0] + [k + 1 for k, ch in enumerate(text) if ch == "\n"]
    k, units = starts[line - 1], 0
    while units < column - 1:
        units += 2 if ord(text[k]) > 0xFFFF else 1
        k += 1
    return k


def splice(text: str, location: dict[str, dict[str, int]], replacement: str) -> str:
    start, end = location["start"], location["end"]
    a = utf16_offset(text, start["line"], start["column"])
    b = utf16_offset(text, end["line"], end["column"])
    assert a <= b, location
    return text[:a] + replacement + text[b:]


def location_of(change: MutantChange) -> dict[str, dict[str, int]]:
    return {
        "start": {"line": change.line, "column": change.column},
        "end": {"line": change.end_line, "column": change.end_column},
    }


def function_shape(tree: ast.Module, cls: str | None, name: str) -> str:
    """A function's arguments, body and return annotation, without its name and decorators."""
    body = tree.body
    if cls is not None:
        body = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls).body
    fn = next(n for n in body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == name)
    return ast.dump(fn.args) + ast.dump(ast.Module(fn.body, [])) + (ast.dump(fn.returns) if fn.returns else "")


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any]:
    """``SOURCE`` and the module mutmut generates from it, laid out as in mutmut's work copy."""
    file_mutation = pytest.importorskip("mutmut.mutation.file_mutation", reason="mutmut is not installed (mutation)")
    work = tmp_path_factory.mktemp("work")
    (work / "calc.py").write_text(SOURCE, encoding="utf-8")
    mutated = file_mutation.mutate_file_contents("calc.py", SOURCE)
    (work / "mutants").mkdir()
    (work / "mutants" / "calc.py").write_text(mutated.code, encoding="utf-8")
    return work, mutated


def test_every_mutmut_mutant_spliced_into_its_span_is_the_mutants_function(generated: tuple[Path, Any]) -> None:
    work, mutated = generated
    names = [f"calc.{n}" for n in mutated.mutant_names]
    assert len(names) > 80  # every kind of node in SOURCE was mutated
    changes = describe(work, "calc.py", names)
    mutated_tree = ast.parse(mutated.code)
    original = ast.dump(ast.parse(SOURCE))
    kinds = set()
    for name in names:
        change = changes[name]
        new = splice(SOURCE, location_of(change), change.span_replacement)
        tree = ast.parse(new)  # parses
        assert ast.dump(tree) != original, name  # changes something
        key = name.removeprefix("calc.")
        stem = key.rsplit("__mutmut_", 1)[0]
        cls, func = stem[2:].split("ǁ", 1) if stem.startswith("xǁ") else (None, stem[2:])
        assert function_shape(tree, cls, func) == function_shape(mutated_tree, cls, key), name  # is the mutant
        assert change.mutator not in ("Mutation", "Unlocated", "FunctionReplacement"), (name, change)
        kinds.add(change.mutator)
    assert {"ArithmeticOperator", "EqualityOperator", "StringLiteral", "NumberLiteral", "LogicalOperator"} <= kinds


def test_a_default_on_a_def_line_is_located_in_the_source_not_in_mutmuts_renamed_copy(
    generated: tuple[Path, Any],
) -> None:
    work, mutated = generated
    changes = describe(work, "calc.py", [f"calc.{n}" for n in mutated.mutant_names])
    lines = SOURCE.split("\n")
    on_def_lines = [c for c in changes.values() if lines[c.line - 1].lstrip().startswith("def ")]
    assert {c.function for c in on_def_lines} >= {"price", "Meter.__init__", "Meter.grow"}
    for c in on_def_lines:
        line = lines[c.line - 1]
        assert line[c.column - 1 : c.end_column - 1] == c.span_original  # the very text, on the source's line
        assert c.end_column <= len(line) + 1


def test_an_operator_change_spans_the_operator_alone(generated: tuple[Path, Any]) -> None:
    work, mutated = generated
    changes = describe(work, "calc.py", [f"calc.{n}" for n in mutated.mutant_names])
    operators = [c for c in changes.values() if c.mutator in ("ArithmeticOperator", "EqualityOperator")]
    assert operators
    for c in operators:
        assert c.span_original.strip() in {"+", "-", "*", "/", "//", "%", "**", "<", "<=", ">", ">=", "==", "!="} | {
            "is",
            "is not",
            "in",
            "not in",
        }, c


@pytest.mark.skipif(
    not os.environ.get("CMHARNESS_MTE_REPORT"),
    reason="set CMHARNESS_MTE_REPORT to a complete run's mutation-report.json",
)
def test_a_complete_reports_mutants_splice_into_valid_changed_python() -> None:
    """``CMHARNESS_MTE_REPORT=reports/out/mutation-report.json``: at least 99.9% of its mutants splice into valid
    Python that differs from the source."""
    doc = json.loads(Path(os.environ["CMHARNESS_MTE_REPORT"]).read_text(encoding="utf-8"))
    total = good = 0
    for entry in doc["files"].values():
        source = entry["source"]
        base = ast.dump(ast.parse(source))
        for m in entry["mutants"]:
            if m["status"] == "Pending":
                continue
            total += 1
            with contextlib.suppress(SyntaxError):
                good += ast.dump(ast.parse(splice(source, m["location"], m.get("replacement", "")))) != base
    assert total and good >= 0.999 * total, f"{good} of {total}"


# ----------------------------------------------------------------------------- named mutants

SWITCHES = """from strategies.defects import Defect


def compile(defects, x):
    if defects.on(Defect.OFF_BY_ONE):
        x += 1
    if not defects.on(Defect.HANGS):
        x = x * 2
        x = x - 1
    y = 3 if defects.on(Defect.OFF_FOR_LARGE) else 4
    return x + y
"""


def named_row(defect: str, kind: Kind = Kind.DEFECT) -> NamedRow:
    return NamedRow(f"{kind}:{defect}", kind, f"sound+{defect}", "words", Status.KILLED)


def test_named_mutants_render_as_the_code_they_change(tmp_path: Path) -> None:
    (tmp_path / "strategies").mkdir()
    (tmp_path / "strategies" / "calc.py").write_text(SWITCHES, encoding="utf-8")
    report = build(load_journals(DATA / "journal", FP), FP, FIXTURE_MUTANTS, EQUIVALENTS)

    def applied(defect: str, kind: Kind = Kind.DEFECT) -> str:
        edit = named_edit(tmp_path, named_row(defect, kind), report)
        assert edit.file == "strategies/calc.py"
        return splice(SWITCHES, edit.location(), edit.replacement)

    forced = SWITCHES.replace("defects.on(Defect.OFF_BY_ONE)", "True")
    assert ast.dump(ast.parse(applied("OFF_BY_ONE"))) == ast.dump(ast.parse(forced))
    removed = SWITCHES.replace("    if not defects.on(Defect.HANGS):\n        x = x * 2\n        x = x - 1\n", "")
    assert applied("HANGS", Kind.REMOVAL) == removed  # the lines it removes, exactly
    expression = SWITCHES.replace("3 if defects.on(Defect.OFF_FOR_LARGE)", "3 if True")
    assert ast.dump(ast.parse(applied("OFF_FOR_LARGE"))) == ast.dump(ast.parse(expression))


def test_an_extra_patch_renders_as_its_first_hunks_change(tmp_path: Path) -> None:
    (tmp_path / "calc.py").write_text("def add(a, b):\n    c = a\n    return a + b\n", encoding="utf-8")
    diff = "--- a/calc.py\n+++ b/calc.py\n@@ -2,2 +2,2 @@\n     c = a\n-    return a + b\n+    return a + b + 1\n"
    rec = MutantRecord("extra:x", FP, Kind.EXTRA, "*", 1, Status.KILLED, 0.0, diff=diff, file="calc.py", line=3)
    edit = patch_edit(tmp_path, rec)
    assert edit is not None
    patched = splice((tmp_path / "calc.py").read_text(), edit.location(), edit.replacement)
    assert patched == "def add(a, b):\n    c = a\n    return a + b + 1\n"


# ----------------------------------------------------------------------------- the test view

TESTS = {
    "tests/test_calc.py": "import pytest\n\n\n@pytest.mark.parametrize('v', [1])\ndef test_add(v):\n    pass\n\n\n"
    "def test_plain():\n    pass\n\n\nclass TestBox:\n    def test_given(self):\n        pass\n\n\ndef test_given():\n"
    "    pass\n",
    "tests/test_more.py": "def test_witnessed():\n    pass\n\n\ndef test_gap():\n    pass\n",
}


def test_covered_by_killed_by_and_the_tests_locations(tmp_path: Path) -> None:
    root = tmp_path / "root"
    shutil.copytree(DATA / "root", root)
    for path, text in TESTS.items():
        (root / path).parent.mkdir(exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    records = dict(load_journals(DATA / "journal", FP))
    killed = records["mutmut:reference.model.x_add__mutmut_8"]
    assert isinstance(killed, MutmutRecord)
    covering = ("tests/test_more.py::test_gap", "tests/test_calc.py::test_plain", "tests/test_more.py::test_witnessed")
    coverage = CoverageRecord(coverage_key("all"), FP, covering, {"reference.model.x_add": (2, 0, 1)})
    records[coverage.key] = coverage
    witness = WitnessRecord(
        "witness:tests/test_calc.py::test_given",
        FP,
        "tests/test_calc.py::test_given",
        "tests/test_calc.py::test_given",
        "mutmut:reference.model.x_add__mutmut_8",
    )
    records[witness.key] = witness
    doc = mte_json(build(records, FP, FIXTURE_MUTANTS, EQUIVALENTS), root)
    names = {t["id"]: f"{f}::{t['name']}" for f, e in doc["testFiles"].items() for t in e["tests"]}
    mutants = {m["id"]: m for e in doc["files"].values() for m in e["mutants"]}
    m = mutants["mutmut:reference.model.x_add__mutmut_8"]
    assert {names[t] for t in m["killedBy"]} == {*killed.killed_by, "tests/test_calc.py::test_given"}
    assert {names[t] for t in m["coveredBy"]} == {*covering, *killed.killed_by, "tests/test_calc.py::test_given"}
    for mutant in mutants.values():
        for field in ("coveredBy", "killedBy"):
            assert mutant[field] == sorted(mutant[field], key=lambda i: (len(i), i)), (mutant["id"], field)
        assert set(mutant["killedBy"]) <= set(mutant["coveredBy"]) or mutant["id"].startswith(("defect:", "removal:"))
    for path, text in TESTS.items():
        entry = doc["testFiles"][path]
        assert entry["source"] == text
        lines = text.split("\n")
        defined = [t for t in entry["tests"] if f"def {t['name'].split('[')[0]}(" in text]
        assert len(defined) >= 2
        for t in defined:
            name = t["name"].split("[")[0]
            line = t["location"]["start"]["line"]
            assert lines[line - 1].strip().startswith(f"def {name}("), (t, lines[line - 1])
    given = {t["name"]: t["location"]["start"]["line"] for t in doc["testFiles"]["tests/test_calc.py"]["tests"]}
    assert given["test_given"] == 18  # the module's, not the class's method of the same name


def test_the_test_view_lists_the_tests_a_mutant_can_run(tmp_path: Path) -> None:
    """A test skipped on the baseline, or an expected red there, never runs under a mutant: listed, the viewer would
    show it covering nothing; every other test of the baseline is listed."""
    records = dict(load_journals(DATA / "journal", FP))
    base = records["baseline"]
    assert isinstance(base, BaselineRecord)
    extra = [
        replace(base.tests[0], nodeid="tests/test_calc.py::test_skipped", outcome=Outcome.SKIPPED),
        replace(base.tests[0], nodeid="tests/test_calc.py::test_expected_red[main]", outcome=Outcome.XFAILED),
    ]
    records["baseline"] = replace(base, tests=(*base.tests, *extra))
    doc = mte_json(build(records, FP, FIXTURE_MUTANTS, EQUIVALENTS), DATA / "root")
    listed = {f"{f}::{t['name']}" for f, e in doc["testFiles"].items() for t in e["tests"]}
    ran = {r.nodeid for r in base.tests if r.outcome not in (Outcome.SKIPPED, Outcome.XFAILED)}
    assert listed == ran and ran


def test_the_json_names_no_absolute_path_and_no_placeholder_homepage(tmp_path: Path) -> None:
    text = json.dumps(
        mte_json(build(load_journals(DATA / "journal", FP), FP, FIXTURE_MUTANTS, EQUIVALENTS), DATA / "root")
    )
    doc = json.loads(text)
    assert str(DATA) not in text and "projectRoot" not in doc
    assert doc["framework"]["version"] == importlib.metadata.version("cmharness")
    urls = importlib.metadata.metadata("cmharness").get_all("Project-URL") or []
    assert ("branding" in doc["framework"]) == bool(urls)
    assert "example.invalid" not in text


def test_spans_and_coverage_survive_the_journal_and_an_older_record_decodes() -> None:
    change = MutantChange("a.py", "f", 2, 5, 2, 6, "x + 1", "x - 1", "ArithmeticOperator", "", "+", "-")
    rec = MutmutRecord("mutmut:a.x_f__mutmut_1", FP, Status.KILLED, 1, 0.1, change, ("t",))
    assert loads(dumps(rec)) == rec
    coverage = CoverageRecord(coverage_key("all"), FP, ("t1", "t2"), {"a.x_f": (1,), "a.x_g": (0, 1)})
    assert loads(dumps(coverage)) == coverage and coverage.covering("a.x_g") == ("t1", "t2")
    older = json.loads(dumps(rec))
    del older["span_original"], older["span_replacement"]
    decoded = loads(json.dumps(older))
    assert isinstance(decoded, MutmutRecord) and decoded.change.span_replacement == ""
