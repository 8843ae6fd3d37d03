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
from reports.cli.typescript_source import Lines, find_function
from strategies.defects import Defect
from strategies.provenance import VERSIONS
from strategies.upstream import BUGS

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
    bug = BUGS[Defect.EMPTY_CARRIERS_FLOOR]
    commits = list(dict.fromkeys(VERSIONS[p.version].commit for p in bug.present if VERSIONS[p.version].commit))
    code, out, err = _report(capsys, ["--report", "EMPTY_CARRIERS_FLOOR", "--source", str(clone)])
    assert code == 0
    row = next(line for line in out.splitlines() if line.startswith(f"| `{AB_TS}` | `recallPairCost`"))
    assert f"`{AB_TS}:4-13` at `{commits[0]}`" in row
    assert all(f"`{AB_TS}:7-16` at `{c}`" in row for c in commits[1:-1])
    assert f"`{commits[-1]}` (" in row and f":7-16` at `{commits[-1]}`" not in row  # not in the clone: the commit
    missing = f"not found: recallPairCost in {AB_TS} at {commits[-1]} (that row names the commit alone)"
    assert err.strip() == f"cmharness: --source {clone}: {missing}"


def test_without_a_clone_a_row_names_each_commit_alone(capsys) -> None:
    code, out, _ = _report(capsys, ["--report", "EMPTY_CARRIERS_FLOOR"])
    assert code == 0 and f"`{AB_TS}:" not in out


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
