"""The command line's one error boundary (docs/architecture.md, "Errors"): every subcommand, over one corpus of
bad inputs, answers with one line on stderr naming the culprit and exit 2, never a traceback; and the exit
codes the README lists are the ones ``reports.exit_codes`` defines."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from reports import cli
from reports.arguments import count_argument, most_workers, seconds_argument
from reports.exit_codes import Exit, markdown_table

pytestmark = pytest.mark.harness  # the tool's boundary: no mutant of the model can make it red

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "small-store.json"


def _example_with(edit: Callable[[str], str]) -> bytes:
    return edit(EXAMPLE.read_text(encoding="utf-8")).encode()


#: name -> (the bytes of the file, or None for no file, "dir" for a folder), each a way a file can be bad.
BAD_FILES: dict[str, bytes | str | None] = {
    "deep-nesting": b"[" * 100_000 + b"]" * 100_000,
    "huge-integer": _example_with(lambda t: t.replace('"tokens": 48', '"tokens": 4' + "8" * 5000, 1)),
    "invalid-utf8": b'{"store": {"messages": [{"id": "\xff"}]}}',
    "lone-surrogate": '{"store": {"messages": [{"id": "\udc80"}]}}'.encode("utf-8", "surrogatepass"),
    "missing": None,
    "directory": "dir",
    "empty": b"",
    "not-json": b"hello, world\n",
    "key-twice": _example_with(lambda t: t.replace('"budget":', '"budget": 1, "budget":', 1)),
}


def bad_file(tmp_path: Path, kind: str) -> Path:
    content = BAD_FILES[kind]
    path = tmp_path / f"{kind}.scenario.json"
    if content == "dir":
        path.mkdir()
        (path / "nothing-here.txt").write_text("")
    elif isinstance(content, bytes):
        path.write_bytes(content)
    return path


def one_line_error(capsys, argv: list[str]) -> str:
    """Run ``cmharness argv`` in this process: it must exit 2 with exactly one line on stderr; that line."""
    code = cli.main(argv)
    _, err = capsys.readouterr()
    assert code == Exit.USAGE, (argv, code, err)
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1 and "error" in lines[0], lines
    return lines[0]


#: How each subcommand meets a file: its command line around the file's path.
FILE_COMMANDS: dict[str, Callable[[Path], list[str]]] = {
    "price": lambda p: ["price", str(p)],
    "check": lambda p: ["check", str(p)],
    "reproduce": lambda p: ["reproduce", str(p)],
    "export": lambda p: ["export", str(p)],
    "compare": lambda p: ["compare", "--templates", "0", "--workers", "1", "--quiet", "--corpus", str(p.parent)],
}


@pytest.mark.parametrize("kind", sorted(BAD_FILES))
@pytest.mark.parametrize("command", sorted(FILE_COMMANDS))
def test_every_file_reading_subcommand_refuses_a_bad_file_in_one_line(capsys, tmp_path, command, kind):
    folder = tmp_path / "corpus"
    folder.mkdir()
    path = bad_file(folder, kind)
    if command == "compare" and kind == "missing":
        line = one_line_error(capsys, ["compare", "--templates", "0", "--quiet", "--corpus", str(path)])
    elif command == "compare" and kind == "directory":
        (path / "x.json").mkdir()  # a folder where a scenario file should be
        line = one_line_error(capsys, FILE_COMMANDS[command](path))
    else:
        line = one_line_error(capsys, FILE_COMMANDS[command](path))
    assert path.name in line or str(path) in line, line


#: Each subcommand with option values that are wrong, and the option the error must name.
BAD_OPTIONS: list[tuple[list[str], str]] = [
    (["check", str(EXAMPLE), "--variant", "sound+\udc80"], "sound+"),
    (["check", str(EXAMPLE), "--invariant", "²"], "²"),
    (["check", str(EXAMPLE), "--defect", "NOT_A_DEFECT"], "NOT_A_DEFECT"),
    (["reproduce", str(EXAMPLE), "--variant", "mian"], "mian"),
    (["compare", "--base", "nope", "--templates", "0"], "nope"),
    (["compare", "--workers", "0", "--templates", "0"], "--workers"),
    (["compare", "--plot", "out.svg", "--templates", "0"], "--plot"),
    (["report", "--budget", "NaN"], "--budget"),
    (["report", "--workers", "two"], "--workers"),
    (["report", "--shard", "3/2"], "--shard"),
    (["edges", "--only", "no-such-edge"], "no-such-edge"),
    (["defects", "--no-such-option"], "--no-such-option"),
    (["variants", "--no-such-option"], "--no-such-option"),
    (["defects", "--report", "NO_SUCH_DEFECT"], "NO_SUCH_DEFECT"),
    (["price"], "file"),
    (["export", str(EXAMPLE), "--as-sound=yes"], "--as-sound"),
    (["fuzz", "--workers", "0"], "--workers"),
    (["fuzz", "--time", "-5"], "--time"),
    (["fuzz", "--variant", "sound+NOPE"], "NOPE"),
    (["fuzz", "--database", "redis://"], "redis://"),
    (["fuzz", "--tests", "tests/no_such_file.py"], "no_such_file"),
    (["prove", "--scope", "mesages=3"], "mesages"),
    (["prove", "--workers", "0"], "--workers"),
    (["prove", "--merge", "no-such-shard.json"], "no-such-shard.json"),
    (["no-such-command"], "no-such-command"),
    (["--no-such-option"], "--no-such-option"),
]


@pytest.mark.parametrize(("argv", "culprit"), BAD_OPTIONS, ids=[" ".join(a[:1] + a[2:3]) for a, _ in BAD_OPTIONS])
def test_every_subcommand_refuses_a_bad_option_value_in_one_line(capsys, argv, culprit):
    line = one_line_error(capsys, argv)
    assert culprit in line.encode("utf-8", "backslashreplace").decode("ascii", "backslashreplace") or culprit in line


#: A name one letter off, wherever the command line takes a name from a known list: (argv, what, typed, meant).
NEAR_MISSES: list[tuple[list[str], str, str, str]] = [
    (["check", str(EXAMPLE), "--variant", "soundd"], "variant", "soundd", "sound"),
    (["check", str(EXAMPLE), "--invariant", "never-ovr"], "invariant", "never-ovr", "never-over"),
    (["check", str(EXAMPLE), "--defect", "COMBINED_NO_FLOR"], "defect", "COMBINED_NO_FLOR", "COMBINED_NO_FLOOR"),
    (["defects", "--report", "TOOL_PASES"], "defect", "TOOL_PASES", "TOOL_PASSES_UNPRICED"),
    (["edges", "--only", "grace-limt"], "edge", "grace-limt", "grace-limit"),
    (["report", "--mutmut-paths", "strategy"], "folder", "strategy", "strategies"),
    (["report", "--named-engine", "wram"], "named engine", "wram", "warm"),
    (["report", "--mutmut-engine", "mutmutt"], "mutmut engine", "mutmutt", "mutmut"),
    (["prove", "--scope", "deeep"], "scope preset", "deeep", "deep"),
    (["compare", "--head", "pr-8bb01ab"], "variant", "pr-8bb01ab", "pr-8bb01ab8"),
]


@pytest.mark.parametrize(
    ("argv", "what", "typed", "meant"), NEAR_MISSES, ids=[" ".join(a[:2]) for a, *_ in NEAR_MISSES]
)
def test_a_near_miss_of_a_known_name_is_answered_in_the_one_wording(capsys, argv, what, typed, meant):
    line = one_line_error(capsys, argv)
    assert f"unknown {what} '{typed}'" in line and f"; did you mean '{meant}'" in line, line


def test_schema_and_export_refuse_an_output_path_they_cannot_write(capsys, tmp_path):
    folder = tmp_path / "a-folder"
    folder.mkdir()
    assert str(folder) in one_line_error(capsys, ["schema", "--out", str(folder)])
    assert str(folder) in one_line_error(capsys, ["export", str(EXAMPLE), "--out", str(folder)])


def test_every_subcommand_is_covered_by_the_corpus():
    covered = set(FILE_COMMANDS) | {argv[0] for argv, _ in BAD_OPTIONS} | {"schema"}
    assert set(cli.SUBCOMMANDS) <= covered, set(cli.SUBCOMMANDS) - covered


@pytest.mark.parametrize(
    ("kind", "argv"),
    [
        ("deep-nesting", ["export"]),
        ("huge-integer", ["export"]),
        ("deep-nesting", ["check"]),
    ],
)
def test_the_command_in_its_own_process_prints_one_line(tmp_path, kind, argv):
    """The shipped entry point, through real pipes: the three inputs ``export`` once crashed on."""
    path = bad_file(tmp_path, kind)
    done = subprocess.run(
        [sys.executable, "-m", "reports.cli", *argv, str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert len(done.stderr.splitlines()) == 1 and path.name in done.stderr


def test_export_keeps_a_source_that_is_not_an_issue_number(capsys, tmp_path):
    """``--source ²``: ``str.isdigit`` holds for "²" but ``int`` refuses it; it is a link-like text, kept as is."""
    out = tmp_path / "x.scenario.json"
    assert cli.main(["export", str(EXAMPLE), "--source", "²", "--out", str(out)]) == Exit.OK
    assert json.loads(out.read_text(encoding="utf-8"))["source"] == "²"
    assert cli.main(["export", str(EXAMPLE), "--source", "307", "--out", str(out)]) == Exit.OK
    assert json.loads(out.read_text(encoding="utf-8"))["source"] == 307


def test_the_readme_lists_the_exit_codes_the_tool_defines():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = markdown_table()
    assert "\n".join(table) in readme, "\n".join(table)


def test_reproduce_cuts_a_long_description_at_a_word(capsys, tmp_path):
    """The header line once cut a description at its 100th character, mid-word."""
    words = "the recall pair is priced below what it sends when the envelope carries a long header " * 3
    path = tmp_path / "long.scenario.json"
    assert cli.main(["export", str(EXAMPLE), "--description", words, "--out", str(path)]) == Exit.OK
    capsys.readouterr()
    assert cli.main(["reproduce", str(path)]) == Exit.OK
    header = capsys.readouterr().out.splitlines()[0]
    shown = header.split(" - ", 1)[1]
    assert shown.endswith("...") and len(shown) <= 100
    assert words.startswith(shown[:-3]) and words[len(shown) - 3] == " ", shown  # the cut is at a space


def test_a_bad_engine_in_the_environment_is_one_line(capsys, monkeypatch):
    """The engines are settings (``--named-engine``, ``--mutmut-engine``); their variables are read in one place."""
    import reports.campaign.pipeline

    monkeypatch.setattr(reports.campaign.pipeline, "run", lambda *a, **k: pytest.fail("the campaign started"))
    monkeypatch.setenv("CMHARNESS_NAMED_ENGINE", "proces")
    line = one_line_error(capsys, ["report", "--no-mutmut"])
    assert "CMHARNESS_NAMED_ENGINE" in line and "did you mean 'process'?" in line


def test_the_engines_are_settings_chosen_by_flags(monkeypatch):
    from reports.campaign.settings import MutmutEngine, NamedEngine, Settings

    monkeypatch.delenv("CMHARNESS_NAMED_ENGINE", raising=False)
    monkeypatch.setenv("CMHARNESS_MUTMUT_ENGINE", "mutmut")
    settings = Settings()
    assert settings.named_engine is NamedEngine.WARM and settings.mutmut_engine is MutmutEngine.MUTMUT
    args = cli.build_parser().parse_args(["report", "--named-engine", "process", "--mutmut-engine", "warm"])
    assert (args.named_engine, args.mutmut_engine) == ("process", "warm")


def test_a_campaign_that_cannot_go_on_answers_in_one_line_with_exit_3(capsys, monkeypatch, tmp_path):
    """Every error a command can meet is under the error root: a failed baseline is one line, not a traceback."""
    import reports.campaign.pipeline
    from reports.errors import CampaignError, HarnessError, UsageError

    def failing(*args, **kwargs):
        raise CampaignError("the baseline run failed (exit 2: 1 error in 0.3s); its output is in x.log")

    monkeypatch.setattr(reports.campaign.pipeline, "run", failing)
    code = cli.main(["report", "--no-mutmut", "--state-dir", str(tmp_path / "state"), "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == Exit.SEVERE and err.count("\n") == 1 and "baseline run failed" in err and "Traceback" not in err
    from reports.campaign.records import RecordError
    from reports.cli.defect_report import ReportError
    from reports.fuzz.engine import CollectionError

    assert all(issubclass(e, UsageError) for e in (RecordError, ReportError, CollectionError))
    assert issubclass(CampaignError, HarnessError) and not issubclass(CampaignError, UsageError)


@pytest.mark.parametrize("command", ["report", "fuzz", "prove", "compare"])
def test_every_workers_option_takes_one_to_four_a_core_and_says_so_in_one_wording(capsys, command):
    most = most_workers()
    for value in ("0", str(most + 1), "two"):
        line = one_line_error(capsys, [command, "--workers", value])
        assert (
            f"argument --workers: workers is an integer from 1 to {most} (4 a core on this machine), got '{value}'"
            in line
        )
    parser = cli.build_parser(command)
    assert parser.parse_args([command, "--workers", str(most)]).workers == most
    assert parser.parse_args([command, "--workers", "1"]).workers == 1


def test_the_shared_number_types_take_their_range_and_refuse_its_edges_outside():
    assert seconds_argument("0.5") == 0.5 and seconds_argument("1e3") == 1000.0
    for bad in ("0", "-1", "nan", "inf", "-inf", "soon"):
        with pytest.raises(argparse.ArgumentTypeError, match=f"seconds are a finite number > 0, got '{bad}'"):
            seconds_argument(bad)
    assert count_argument(0)("0") == 0 and count_argument(1)("1") == 1
    for least, bad in ((0, "-1"), (1, "0"), (1, "2.0"), (0, "")):
        with pytest.raises(argparse.ArgumentTypeError, match=f"a count is an integer >= {least}, got '{bad}'"):
            count_argument(least)(bad)
