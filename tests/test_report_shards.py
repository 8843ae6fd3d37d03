"""Shards that merge byte for byte: ``cmharness report --shard I/N`` on N machines (here N output folders), their
journals gathered in one folder, ``cmharness report --merge`` there, give the report one run gives, timings aside.

The commands are the ones ``docs/ci/report-shards.yml`` runs as a CI matrix, on the campaign tests' fake project
(``tests/campaign_helpers.py``): the subcommand's own code, with its settings pointed at that project.
"""

from __future__ import annotations

import contextlib
import io
import re
import shutil
from pathlib import Path

import pytest
from campaign_helpers import MUTANTS, make_project, settings_for
from test_campaign_mutmut import MUTMUT_CONFIG

from reports.campaign import pipeline
from reports.campaign.settings import ROOT
from reports.cli import main
from reports.cli import report as report_cmd

pytestmark = pytest.mark.harness

OUTPUTS = ("report.md", "matrix.csv", "mutation-report.json")
#: What a report may say about time: a duration (``1.2 s``, ``350 ms``, ``2m03s``) or a JSON ``duration``.
TIMINGS = [
    (re.compile(r"\b\d+(?:\.\d+)?\s?(?:ms|s)\b"), "<time>"),
    (re.compile(r"\b\d+m\d+s\b"), "<time>"),
    (re.compile(r'"duration": ?\d+(?:\.\d+)?'), '"duration": <time>'),
]
QUICK = [m for m in MUTANTS if m.id != "defect:HANGS"]  # a hang costs its timeout in every run, and shows nothing new


def without_timings(text: str) -> str:
    for pattern, repl in TIMINGS:
        text = pattern.sub(repl, text)
    return text


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fake project, and one ``cmharness report`` run of it into ``single/``."""
    root = make_project(tmp_path_factory.mktemp("shards") / "project")
    with pytest.MonkeyPatch.context() as mp:
        pointed_at(root, mp)
        assert report("--out", str(root / "single")) in (0, 1)
    return root


def pointed_at(root: Path, mp: pytest.MonkeyPatch) -> None:
    """``cmharness report`` runs in the fake project, on its named mutants."""
    mp.setattr(report_cmd, "Settings", lambda: settings_for(root, state_dir=root / ".state"))
    mp.setattr(pipeline, "named_mutants", lambda: list(QUICK))


def report(*argv: str) -> int:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return main(["report", "--no-mutmut", *argv])


def outputs(folder: Path) -> dict[str, str]:
    return {name: without_timings((folder / name).read_text(encoding="utf-8")) for name in OUTPUTS}


@pytest.mark.parametrize("n", [2, 3])
def test_merged_shards_give_the_report_of_one_run(project: Path, n: int, monkeypatch: pytest.MonkeyPatch) -> None:
    pointed_at(project, monkeypatch)
    merged = project / f"merged-{n}"
    (merged / "journal").mkdir(parents=True)
    for i in range(1, n + 1):  # each shard on its own machine, its journal gathered as the CI's artifacts are
        shard = project / f"shard-{i}-of-{n}"
        assert report("--shard", f"{i}/{n}", "--out", str(shard)) in (0, 1, 3)
        for journal in (shard / "journal").glob("*.jsonl"):
            shutil.copy(journal, merged / "journal" / journal.name)
    assert report("--merge", "--out", str(merged)) == report("--merge", "--out", str(project / "single"))
    assert outputs(merged) == outputs(project / "single")


def test_a_run_stopped_by_its_budget_and_resumed_gives_the_report_of_one_run(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another copy of the project (another clone of the commit), stopped with named mutants pending, then resumed:
    byte for byte the report of the single run, timings aside."""
    root = tmp_path / "clone"
    shutil.copytree(project, root, ignore=shutil.ignore_patterns("single", "merged-*", "shard-*", ".state"))
    pointed_at(root, monkeypatch)
    stopped = report("--out", str(root / "out"), "--budget", "21", "--workers", "1")  # 1 s past the reserve
    assert stopped == 3 and "pending" in (root / "out" / "report.md").read_text(encoding="utf-8")
    assert report("--out", str(root / "out")) in (0, 1)
    assert outputs(root / "out") == outputs(project / "single")


@pytest.mark.slow  # mutmut's preparation in each of five runs: about 45 s (run with --cm-slow)
def test_merged_shards_with_mutmut_give_the_report_of_one_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_project(tmp_path / "project")
    (root / "reference").mkdir()
    (root / "reference" / "__init__.py").write_text("")
    (root / "reference" / "ops.py").write_text(
        "def double(x):\n    return x * 2\n\n\ndef half(x):\n    return x // 2\n"
    )
    (root / "strategies" / "step.py").write_text("def inc(x):\n    return x + 1\n")
    (root / "invariants").mkdir()  # the default scope mutates the judges too
    (root / "invariants" / "__init__.py").write_text("")
    (root / "invariants" / "judge.py").write_text("def positive(x):\n    return x > 0\n")
    (root / "tests" / "test_ops.py").write_text(
        "from invariants.judge import positive\nfrom reference.ops import double, half\n"
        "from strategies.step import inc\n\n\n"
        "def test_double():\n    assert double(3) == 6\n\n\ndef test_half():\n    assert half(4) == 2\n\n\n"
        "def test_inc():\n    assert inc(3) == 4\n\n\n"
        "def test_positive():\n    assert positive(1) and not positive(0)\n"
    )
    shutil.copytree(ROOT / "reports", root / "reports", ignore=shutil.ignore_patterns("__pycache__"))
    (root / "pyproject.toml").write_text(MUTMUT_CONFIG.replace('"reference/"]', '"reference/", "invariants/"]', 1))
    hashed = ("pyproject.toml", "strategies", "reference", "invariants", "calc.py", "tests")
    # A complete report rewrites the suite's order and the hints: in the fake project's state folder.
    said = io.StringIO()
    monkeypatch.setattr(
        report_cmd, "Settings", lambda: settings_for(root, hashed=hashed, state_dir=root / ".state", progress=said)
    )
    monkeypatch.setattr(pipeline, "named_mutants", lambda: list(QUICK))

    def full(*argv: str) -> int:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["report", *argv])
        print(out.getvalue(), err.getvalue())  # shown when the test fails
        return code

    single = root / "single"
    assert full("--out", str(single)) in (0, 1)
    merged = root / "merged"
    (merged / "journal").mkdir(parents=True)
    for i in (1, 2):
        shard = root / f"shard-{i}"
        shutil.rmtree(root / ".state", ignore_errors=True)  # another machine: no mutmut work copy
        assert full("--shard", f"{i}/2", "--out", str(shard)) in (0, 1, 3)
        for journal in (shard / "journal").glob("*.jsonl"):
            shutil.copy(journal, merged / "journal" / journal.name)
    shutil.rmtree(root / ".state", ignore_errors=True)  # the merge's machine: a fresh checkout with the journals
    said.seek(0)
    said.truncate()
    assert full("--merge", "--out", str(merged)) == full("--merge", "--out", str(single))
    assert outputs(merged) == outputs(single)
    # the merge ran no mutant: every verdict came from the shards' journals (mutmut prepared for the witness search)
    assert re.search(r"\b0 mutant\(s\) to run\b.*\b\d+ verdict\(s\) taken from the journal", said.getvalue())
    assert "mutant(s) to run" in said.getvalue() and not re.search(r"\b[1-9]\d* mutant\(s\) to run", said.getvalue())


def test_a_report_with_its_state_and_outputs_elsewhere_writes_nothing_in_the_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_project(tmp_path / "project")
    monkeypatch.setattr(report_cmd, "Settings", lambda: settings_for(root))  # its state folder: root/.state
    monkeypatch.setattr(pipeline, "named_mutants", lambda: list(QUICK))

    def tree() -> dict[str, bytes]:
        return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}

    before = tree()
    state, out = tmp_path / "state", tmp_path / "out"
    assert report("--state-dir", str(state), "--out", str(out)) in (0, 1)
    assert (out / "report.md").is_file() and state.is_dir(), sorted(p.name for p in tmp_path.iterdir())
    assert tree() == before  # no state, no journal, no bytecode, no Hypothesis database
    assert not any(p.is_dir() for p in root.rglob("__pycache__"))
