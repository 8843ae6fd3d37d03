"""The committed lines of the TypeScript's functions (``reports/cli/typescript_locations.json``): every function a bug
report cites at a commit is there, inside its copy, and the table is what ``locate`` makes of a file."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from reports import cli
from reports.cli import defect_report
from reports.cli.typescript_locations import LINES_FILE, KnownLines, known_lines, locate
from reports.cli.typescript_source import Lines
from strategies.provenance import VERSIONS
from strategies.upstream import typescript_bugs

pytestmark = pytest.mark.harness  # the command line's citations: no mutant of the model reaches them

TABLE = json.loads(LINES_FILE.read_text(encoding="utf-8"))


def _cited() -> set[tuple[str, str, str]]:
    """Every (commit, file, function) a report's Where table names at a commit."""
    return {
        (VERSIONS[p.version].commit, f.strip(), p.function)
        for bug in typescript_bugs()
        for p in bug.present
        if VERSIONS[p.version].commit
        for f in VERSIONS[p.version].file.split(",")
    }


def test_every_function_a_report_cites_at_a_commit_of_a_stored_copy_has_its_lines() -> None:
    copies = {(c["commit"], c["file"]) for c in TABLE["copies"]}
    wanted = sorted(key for key in _cited() if key[:2] in copies)
    assert wanted, "the table holds none of the commits the reports cite"
    assert [key for key in wanted if known_lines().lines(*key) is None] == []


def test_each_copy_is_a_commit_the_project_names_and_its_lines_lie_inside_it() -> None:
    commits = {v.commit for v in VERSIONS.values() if v.commit}
    for copy in TABLE["copies"]:
        assert copy["commit"] in commits, copy["commit"]
        for name, (start, end) in copy["functions"].items():
            assert 1 <= start <= end <= copy["lines"] + 1, (copy["commit"], name)


def test_each_part_lies_inside_its_function_and_names_a_part_a_report_cites() -> None:
    cited = {
        (VERSIONS[p.version].commit, p.function, p.part) for bug in typescript_bugs() for p in bug.present if p.part
    }
    for copy in TABLE["copies"]:
        for name, parts in copy.get("parts", {}).items():
            start, end = copy["functions"][name]
            for part, spans in parts.items():
                assert (copy["commit"], name, part) in cited, (copy["commit"], name, part)
                assert spans and all(start <= a <= b <= end for a, b in spans), (copy["commit"], name, part)


def test_functions_of_one_copy_nest_or_stand_apart() -> None:
    for copy in TABLE["copies"]:
        spans = sorted(copy["functions"].values())
        for (a, b), (c, d) in itertools.pairwise(spans):
            assert b < c or d <= b, (copy["commit"], (a, b), (c, d))


def test_locate_gives_a_copys_size_and_each_function_found_leaving_out_the_rest() -> None:
    text = "// a\nfunction a(): void {\n  b();\n}\n\nconst b = (): number => {\n  return 1;\n};\n"
    entry = locate("0123abcd", "src/x.ts", text, ["b", "a", "missing"])
    assert entry == {
        "commit": "0123abcd",
        "file": "src/x.ts",
        "characters": len(text),
        "lines": 8,
        "functions": {"a": [2, 4], "b": [6, 8]},
    }


def test_the_table_reads_as_each_function_at_its_commit_and_file(tmp_path: Path) -> None:
    path = tmp_path / "lines.json"
    copy = {"commit": "0123abcd", "file": "src/x.ts", "characters": 10, "lines": 9, "functions": {"a": [2, 4]}}
    path.write_text(json.dumps({"about": "t", "copies": [copy]}), encoding="utf-8")
    table = known_lines(path)
    assert table == KnownLines({("0123abcd", "src/x.ts", "a"): Lines(2, 4)})
    assert table.lines("0123abcd", "src/y.ts", "a") is None and table.lines("89abcdef", "src/x.ts", "a") is None


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('{"about": "t", "copies": [{"commit": "x"}]}', 'copies[0]: missing field "file"'),
        ("{", "the file: "),
        (None, "cannot read the TypeScript's locations"),
    ],
    ids=["a field missing", "not json", "no file"],
)
def test_a_table_that_does_not_read_is_one_line_naming_the_file_and_exit_3(tmp_path, monkeypatch, capsys, text, said):
    path = tmp_path / "lines.json"
    if text is not None:
        path.write_text(text, encoding="utf-8")
    monkeypatch.setattr(defect_report, "known_lines", lambda: known_lines(path))
    code = cli.main(["defects", "--report", "EMPTY_CARRIERS_FLOOR"])
    out, err = capsys.readouterr()
    assert code == 3 and out == "", err
    assert err.count("\n") == 1 and str(path) in err and said in err and "Traceback" not in err
