"""``cmharness defects --report NAME --source CLONE``: with the maintainer's own git clone of the TypeScript, each
"Where" row cites the function at ``file:first-last`` line at each tip's commit, as ``git show`` reads the file
there; a definition is told from a call, and its end is found past strings, template literals, comments and regular
expressions (``reports/cli/typescript_source.py``)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from reports import cli
from reports.cli import defect_report
from reports.cli.typescript_locations import KnownLines, known_lines
from reports.cli.typescript_source import Lines, find_function
from strategies.defects import Defect
from strategies.provenance import VERSIONS
from strategies.upstream import BUGS, typescript_bugs

pytestmark = pytest.mark.harness  # the command line's reading of a clone: no mutant of the model reaches it

AB_TS = "src/strategies/autobiographical.ts"

TRICKY = """import type { Entry } from '../types/index.js';

/** The floor { of a pair } */
export function recallPairCost(entry: Entry, opts: { floor: number }): number {
  const s = "a } string { ";
  const t = `tmpl ${ { a: 1 }.a } more } ${'}'}`;
  // a comment }
  const r = /[{]\\/}/g;
  if (s) {
    return 1;
  }
  return 2;
}

class AutobiographicalStrategy {
  private helper(): void {
    getAntiRedundantSummaries(1);
  }

  private async getAntiRedundantSummaries<T>(
    budget: number,
  ): Promise<T> {
    /* } */
    return budget > 1 ? x : y;
  }
}

const buildRecallHeader = (id: string) => id.replace('{id}', id);

class Other {
  protected selectL1Summaries(
    shown: SummaryEntry[],
  ): { selected: SummaryEntry[]; tokensUsed: number } {
    return { selected: shown, tokensUsed: 1 };
  }
}

const postStripEstimates = (x: number): { y: number } => {
  return { y: x };
};

function matchesBrace(s: string): boolean {
  return /}/.test(s) || s.length / 2 > 1;
}
"""


@pytest.mark.parametrize(
    ("name", "lines"),
    [
        ("recallPairCost", Lines(4, 13)),  # braces in a type, a string, a template, a comment and a regex
        ("getAntiRedundantSummaries", Lines(20, 25)),  # a method over several lines; its call earlier is no definition
        ("helper", Lines(16, 18)),
        ("buildRecallHeader", Lines(28, 28)),  # a bound arrow function, one line
        ("selectL1Summaries", Lines(31, 35)),  # an object type returned: its braces are not the body
        ("postStripEstimates", Lines(38, 40)),  # the same in a bound arrow function
        ("matchesBrace", Lines(42, 44)),  # a regular expression after ``return``; a division is none
        ("missing", None),
    ],
)
def test_a_function_is_found_from_its_definition_to_its_closing_brace(name: str, lines: Lines | None) -> None:
    assert find_function(TRICKY, name) == lines


def test_lines_read_as_a_range_or_one_line() -> None:
    assert (str(Lines(4, 13)), str(Lines(28, 28))) == ("4-13", "28")


def _git(clone: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(clone), *args], check=True, capture_output=True)


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    """A clone whose tips are tags named as the report's commits: at the first the function is at lines 4-13, at
    every later one three lines lower (a tip without the file is not in it)."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = tmp_path / "context-manager"
    (root / "src" / "strategies").mkdir(parents=True)
    _git(root, "init", "-q")
    _git(root, "config", "user.email", "t@example.com")
    _git(root, "config", "user.name", "t")
    bug = BUGS[Defect.EMPTY_CARRIERS_FLOOR]
    commits = list(dict.fromkeys(VERSIONS[p.version].commit for p in bug.present if VERSIONS[p.version].commit))
    for i, commit in enumerate(commits[:-1]):
        (root / AB_TS).write_text("\n\n\n" * min(i, 1) + TRICKY, encoding="utf-8")
        _git(root, "add", "-A")
        _git(root, "commit", "-q", "--allow-empty", "-m", f"tip {i}")
        _git(root, "tag", commit)
    return root


def _report(capsys: pytest.CaptureFixture[str], args: list[str]) -> tuple[int, str, str]:
    code = cli.main(["defects", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_each_where_row_names_the_file_and_lines_at_each_commit_the_clone_has(clone: Path, capsys) -> None:
    """The clone's lines win over the committed ones, and each difference is said; a commit the clone lacks is cited
    at the committed lines, and said too."""
    bug = BUGS[Defect.EMPTY_CARRIERS_FLOOR]
    commits = list(dict.fromkeys(VERSIONS[p.version].commit for p in bug.present if VERSIONS[p.version].commit))
    code, out, err = _report(capsys, ["--report", "EMPTY_CARRIERS_FLOOR", "--source", str(clone)])
    assert code == 0
    row = next(line for line in out.splitlines() if line.startswith(f"| `{AB_TS}` | `recallPairCost`"))
    assert f"`{AB_TS}:4-13` at `{commits[0]}`" in row
    assert all(f"`{AB_TS}:7-16` at `{c}`" in row for c in commits[1:-1])
    committed = known_lines().lines(commits[-1], AB_TS, "recallPairCost")
    assert committed is not None and f"`{AB_TS}:{committed}` at `{commits[-1]}`" in row  # not in the clone
    said = err.strip().splitlines()
    missing = f"not found: recallPairCost in {AB_TS} at {commits[-1]} (that row cites the committed lines)"
    assert said[0] == f"cmharness: --source {clone}: {missing}"
    for line, commit in zip(said[1:], commits[:-1], strict=True):
        ours = known_lines().lines(commit, AB_TS, "recallPairCost")
        assert line.startswith(f"cmharness: --source {clone}: recallPairCost in {AB_TS} at {commit}: "), line
        assert line.endswith(f" there, {ours} committed (the row cites the clone)"), line


def test_without_a_clone_each_row_cites_the_committed_lines_at_each_commit(capsys) -> None:
    """The lines of the row's part where the table has them (each place it is at), else the function's."""
    code, out, _ = _report(capsys, ["--report", "all"])
    assert code == 0
    parts = 0
    for bug in typescript_bugs():
        for p in bug.present:
            v = VERSIONS[p.version]
            if v.commit and v.file == AB_TS:
                sites = known_lines().part_lines(v.commit, AB_TS, p.function, p.part)
                cited = [f"`{AB_TS}:{at}`" for at in sites or (known_lines().lines(v.commit, AB_TS, p.function),)]
                assert f"{', '.join(cited)} at `{v.commit}`" in out, (bug.defect.name, p)
                parts += bool(sites)
    assert parts >= 10  # the long functions' parts are cited at their own lines


def test_a_part_is_cited_at_the_function_where_the_clone_has_the_function_elsewhere(tmp_path: Path, capsys) -> None:
    """A clone whose function lies at other lines than the table's: the committed part lines would point into the
    wrong code there, so the row cites the clone's function lines."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = tmp_path / "context-manager"
    (root / "src" / "strategies").mkdir(parents=True)
    (root / AB_TS).write_text("class A {\n  selectHierarchical(): void {\n    return;\n  }\n}\n", encoding="utf-8")
    for args in (("init", "-q"), ("add", "-A"), ("-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "t")):
        _git(root, *args)
    _git(root, "tag", "a95eb55b")
    code, out, err = _report(capsys, ["--report", "TAIL_PRICED_PRE_STRIP", "--source", str(root)])
    row = next(line for line in out.splitlines() if line.startswith(f"| `{AB_TS}` | `selectHierarchical`"))
    part = known_lines().part_lines("a95eb55b", AB_TS, "selectHierarchical", row.split(" | ")[2])
    assert code == 0 and part, row
    assert f"`{AB_TS}:2-4` at `a95eb55b`" in row and f"`{AB_TS}:{part[0]}` at `a95eb55b`" not in row
    assert f"selectHierarchical in {AB_TS} at a95eb55b: 2-4 there" in err
    committed = known_lines().part_lines("cbe7032a", AB_TS, "selectHierarchical", row.split(" | ")[2])
    assert f"`{AB_TS}:{committed[0]}` at `cbe7032a`" in row  # not in the clone: the committed part


def test_a_function_the_committed_table_lacks_is_cited_by_its_commit_alone(monkeypatch, capsys) -> None:
    monkeypatch.setattr(defect_report, "known_lines", lambda: KnownLines({}))
    code, out, _ = _report(capsys, ["--report", "EMPTY_CARRIERS_FLOOR"])
    assert code == 0 and f"`{AB_TS}:" not in out and "`a95eb55b` (" in out


@pytest.mark.parametrize("what", ["a file", "a folder that is no clone", "nothing there"])
def test_a_source_that_is_no_git_clone_is_one_line_and_exit_2(tmp_path: Path, what: str, capsys) -> None:
    path = {"a file": tmp_path / "f.txt", "a folder that is no clone": tmp_path, "nothing there": tmp_path / "none"}[
        what
    ]
    if what == "a file":
        path.write_text("x", encoding="utf-8")
    code, out, err = _report(capsys, ["--report", "EMPTY_CARRIERS_FLOOR", "--source", str(path)])
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and f"--source {path}: not a git clone" in err and "Traceback" not in err


def test_source_needs_a_report(clone: Path, capsys) -> None:
    code, _, err = _report(capsys, ["--source", str(clone)])
    assert code == 2 and "need --report NAME" in err
