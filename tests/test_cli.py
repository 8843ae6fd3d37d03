"""The ``cmharness`` command line (reports/cli/__init__.py)."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from reference.estimator import content_tokens
from reference.scenario import load_scenario
from reports import cli
from tests.streams import Stream

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "small-store.json"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_price_lists_every_message_and_the_total(capsys):
    code, out, err = run(capsys, "price", str(EXAMPLE))
    assert code == 0 and err == ""
    store = load_scenario(EXAMPLE).store
    for m in store.messages:
        price = content_tokens(m.content, store)
        assert re.search(rf"^{m.id}\s+{m.participant}\s+{price}$", out, re.M), m.id
    total = sum(content_tokens(m.content, store) for m in store.messages)
    assert re.search(rf"^total\s+{total}$", out, re.M)


def test_price_lists_every_summary_with_level_and_measured_tokens(capsys):
    code, out, _ = run(capsys, "price", str(EXAMPLE))
    assert code == 0
    assert re.search(r"^L2-0\s+2\s+\d+\s+120$", out, re.M)
    assert re.search(r"^L1-1\s+1\s+\d+\s+1650$", out, re.M)


def test_price_shows_nan_measured_tokens(capsys, tmp_path):
    doc = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    doc["store"]["summaries"][0]["tokens"] = "NaN"
    path = tmp_path / "nan.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    code, out, _ = run(capsys, "price", str(path))
    assert code == 0
    assert re.search(r"^L1-0\s+1\s+\d+\s+NaN$", out, re.M)


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        ("{not json", "invalid JSON"),
        (
            '{"store": {"messages": [{"id": "m1", "participant": "U", "content": [{"type": "foo"}]}]}}',
            'messages[0].content[0].type: unknown block type "foo"',
        ),
        ('{"store": {"messages": []}, "budget": {"max_tokens": "x"}}', "budget.max_tokens"),
    ],
)
def test_bad_file_is_one_line_and_exit_2(capsys, tmp_path, content, fragment):
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    code, out, err = run(capsys, "price", str(path))
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("cmharness: error: ")
    assert fragment in err and "Traceback" not in err


@pytest.mark.harness
def test_a_file_that_cannot_be_read_is_one_line_naming_it_and_exit_2(capsys, tmp_path):
    """The command line's own reading (reports/cli/scenario_files.py, outside the mutated packages: no mutant of
    strategies/ or reference/ can reach it, hence ``harness``): the file and the system's reason, one line."""
    path = tmp_path / "missing.json"
    code, out, err = run(capsys, "price", str(path))
    assert (code, out) == (2, "")
    assert err == f"cmharness: error: {path}: cannot read: No such file or directory\n"


@pytest.mark.harness
def test_version(capsys):
    code, out, _ = run(capsys, "--version")
    assert code == 0
    assert out == "cmharness 0.1.0\n"


@pytest.mark.harness
def test_version_falls_back_to_pyproject(monkeypatch):
    def missing(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(cli.metadata, "version", missing)
    assert cli.version() == "0.1.0"


@pytest.mark.harness
def test_version_prefers_installed_metadata(monkeypatch):
    monkeypatch.setattr(cli.metadata, "version", lambda name: "9.9.9")
    assert cli.version() == "9.9.9"


@pytest.mark.harness
def test_no_subcommand_is_a_usage_error(capsys):
    code, _, err = run(capsys)
    assert code == 2
    assert "COMMAND" in err


@pytest.mark.harness
def test_unknown_subcommand_is_a_usage_error(capsys):
    code, _, _ = run(capsys, "frobnicate")
    assert code == 2


@pytest.mark.harness
def test_subcommands_are_registered():
    assert "price" in cli.SUBCOMMANDS
    parser = cli.build_parser()
    assert parser.parse_args(["price", "x.json"]).file == "x.json"


@pytest.mark.harness
def test_price_loads_only_what_it_runs():
    """A command configures and imports its own module only: ``price`` loads no campaign, render, fuzz or compare
    module (``cmharness --help`` still lists every command)."""
    probe = (
        "import contextlib, io, sys\n"
        "from reports.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert main(['price', {str(EXAMPLE)!r}]) == 0\n"
        "print(' '.join(sorted(m for m in sys.modules if m.startswith('reports'))))\n"
    )
    run_ = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    loaded = run_.stdout.split()
    assert "reports.cli.price" in loaded
    heavy = [m for m in loaded if m.split(".")[1:2] in (["campaign"], ["render"], ["fuzz"], ["compare"], ["frames"])]
    assert heavy == []
    assert [m for m in loaded if m.startswith("reports.cli.") and m != "reports.cli.price"] == [
        "reports.cli.scenario_files",
        "reports.cli.terminal",
    ]
    assert set(cli.SUBCOMMANDS) <= set(cli.build_parser("price")._subparsers._group_actions[0].choices)


@pytest.mark.harness
def test_a_command_on_a_terminal_sees_a_terminal(monkeypatch):
    """The command line wraps stdout to print any string; the wrapper is a terminal where its stream is one, so
    ``reproduce`` colours its verdicts there (and nowhere else)."""
    from reports.cli import reproduce
    from reports.cli.terminal import Terminal

    assert Terminal(Stream(tty=True)).isatty() and not Terminal(io.StringIO()).isatty()
    monkeypatch.delenv("NO_COLOR", raising=False)
    out = Stream(tty=True)
    monkeypatch.setattr(sys, "stdout", out)
    scenario = Path(__file__).parent / "scenarios" / "reports" / "307-coverage-counts-left-out.scenario.json"
    cli.main(["reproduce", str(scenario)])
    assert reproduce.GREEN in out.getvalue()
