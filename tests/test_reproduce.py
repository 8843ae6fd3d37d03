"""Scenario expectations: the shipped files are red-first, and reproduce / export / schema / collection work."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from invariants.reproduce import expect_from, judge
from reference.expect import FAITHFUL, expectation_for
from reference.scenario import dump_scenario, load_scenario
from reports.cli import main
from tests.streams import Stream

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = sorted((ROOT / "tests" / "scenarios").rglob("*.scenario.json"))
REPORTS = ROOT / "tests" / "scenarios" / "reports"
ISSUE_307 = REPORTS / "307-coverage-counts-left-out.scenario.json"

pytestmark = pytest.mark.harness


def _ids(paths: list[Path]) -> list[str]:
    return [p.stem.removesuffix(".scenario") for p in paths]


SOUND_PINNED = [p for p in SCENARIOS if not {"typescript", "lines"} & set(p.parts)]  # newer lines: their own variants


@pytest.mark.parametrize("path", SOUND_PINNED, ids=_ids(SOUND_PINNED))
def test_claiming_sounds_behaviour_is_red_where_the_variants_differ(path: Path) -> None:
    """Red-first: each file's sound expectation, claimed of every variant, fails on the variants that differ."""
    sc = load_scenario(path)
    sound = expectation_for(sc.expect, "sound")
    differ = [v for v in FAITHFUL if repr(expectation_for(sc.expect, v)) != repr(sound)]
    assert differ, f"{path.name}: every variant is expected to do what sound does; nothing is pinned"
    claimed = replace(sc, expect={"all": sound})
    red = [v.variant for v in judge(claimed) if not v.ok]
    assert red == differ


@pytest.mark.parametrize("path", SCENARIOS, ids=_ids(SCENARIOS))
def test_each_shipped_scenario_is_green(path: Path) -> None:
    assert all(v.ok for v in judge(load_scenario(path)))


def test_the_seed_has_its_cases() -> None:
    names = _ids(sorted((ROOT / "tests" / "scenarios" / "seed").glob("*.scenario.json")))
    counts = {k: sum(n.startswith(k) for n in names) for k in ("guard", "split", "cleared-by", "floor", "view")}
    assert counts == {"guard": 3, "split": 4, "cleared-by": 7, "floor": 5, "view": 2}


# ----------------------------------------------------------------------------- reproduce


def _wrong(tmp_path: Path) -> Path:
    raw = json.loads(ISSUE_307.read_text(encoding="utf-8"))
    raw["expect"]["sound"]["refuses"]["dropped"] = ["m3"]
    path = tmp_path / "wrong.scenario.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    return path


def test_reproduce_green_exits_0(capsys) -> None:
    assert main(["reproduce", str(REPORTS)]) == 0
    out = capsys.readouterr().out
    assert "main-48bb87a1: as expected" in out and "0 expectation(s) not as expected" in out


def test_reproduce_shows_expected_against_actual(tmp_path, capsys) -> None:
    assert main(["reproduce", str(_wrong(tmp_path))]) == 1
    out = capsys.readouterr().out
    assert "sound: NOT as expected" in out
    line = next(ln for ln in out.splitlines() if "refuses.dropped" in ln)
    assert '["m3"]' in line and '["m3", "m4"]' in line and "MISMATCH" in line
    assert "\x1b[" not in out  # no colour off a terminal


def test_reproduce_json_and_stdin(monkeypatch, capsys) -> None:
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO(ISSUE_307.read_text(encoding="utf-8")))
    assert main(["reproduce", "-", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["ok"] and [v["variant"] for v in got["scenarios"][0]["variants"]] == [
        "main-48bb87a1",
        "pr-8bb01ab8",
        "sound",
    ]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{", "invalid JSON"),
        ('{"store": {"messages": []}}', "no expect section"),
        ('{"store": {"messages": []}, "expect": {"sond": {"holds": true}}}', 'did you mean "sound"?'),
        (
            '{"store": {"messages": []}, "expect": {"sound": {"breaks": ["never-ovr"]}}}',
            "bad.scenario.json: unknown invariant 'never-ovr' at expect.sound.breaks[0]; did you mean 'never-over'?",
        ),
    ],
)
def test_reproduce_unreadable_exits_2(tmp_path, capsys, content, message) -> None:
    path = tmp_path / "bad.scenario.json"
    path.write_text(content, encoding="utf-8")
    assert main(["reproduce", str(path)]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


# ----------------------------------------------------------------------------- export and schema


def test_export_round_trips(tmp_path, capsys) -> None:
    """Exported from a file without expect: green as it stands; with --as-sound, red where the defect is."""
    raw = json.loads(ISSUE_307.read_text(encoding="utf-8"))
    del raw["expect"]
    bare = tmp_path / "bare.json"
    bare.write_text(json.dumps(raw), encoding="utf-8")
    pinned, as_sound = tmp_path / "p.scenario.json", tmp_path / "s.scenario.json"
    assert main(["export", str(bare), "--out", str(pinned)]) == 0
    assert main(["export", str(bare), "--out", str(as_sound), "--as-sound", "--source", "307"]) == 0
    assert main(["reproduce", str(pinned)]) == 0
    assert main(["reproduce", str(as_sound)]) == 1
    verdicts = judge(load_scenario(as_sound))
    assert [v.variant for v in verdicts if not v.ok] == list(FAITHFUL)
    assert load_scenario(as_sound).source == 307


def test_export_reads_a_failing_tests_output(tmp_path, capsys) -> None:
    sc = load_scenario(ISSUE_307)
    text = (
        "E   cmharness.InvariantViolation: [nothing-lost] ...\nthe case:\n"
        + json.dumps(dump_scenario(replace(sc, expect={})), indent=2)
        + "\nsave it with: cmharness export ...\n"
    )
    path = tmp_path / "out.txt"
    path.write_text(text, encoding="utf-8")
    assert main(["export", str(path)]) == 0
    assert load_scenario(json.loads(capsys.readouterr().out)).expect == expect_from(sc)


def test_export_of_text_without_a_scenario_exits_2(tmp_path, capsys) -> None:
    path = tmp_path / "out.txt"
    path.write_text("no json here {nor here", encoding="utf-8")
    assert main(["export", str(path)]) == 2
    assert "no scenario JSON found" in capsys.readouterr().err


def test_schema_command_writes_the_shipped_schema(tmp_path, capsys) -> None:
    out = tmp_path / "s.json"
    assert main(["schema", "--out", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == (ROOT / "docs" / "scenario.schema.json").read_text(encoding="utf-8")


# ----------------------------------------------------------------------------- collection


def test_pytest_collects_scenario_files_and_shows_mismatches(pytester) -> None:
    """Files in a scenarios folder's subfolders too (as tests/scenarios/reports/); a file without an expect
    section is a collection error, never a silent pass."""
    folder = pytester.path / "scenarios"
    (folder / "reports").mkdir(parents=True)
    (folder / "reports" / "ok.scenario.json").write_text(ISSUE_307.read_text(encoding="utf-8"), encoding="utf-8")
    (folder / "wrong.scenario.json").write_text(_wrong(pytester.path).read_text(encoding="utf-8"), encoding="utf-8")
    (folder / "broken.scenario.json").write_text('{"store": 5}', encoding="utf-8")
    (folder / "bare.scenario.json").write_text('{"store": {"messages": []}}', encoding="utf-8")
    result = pytester.runpytest("-p", "invariants.plugin", "--continue-on-collection-errors", str(folder))
    result.assert_outcomes(passed=5, failed=1, errors=2)
    out = result.stdout.str()
    assert "bare.scenario.json: no expect section" in out
    assert "wrong.scenario.json: not as expected on sound" in out
    assert '✗ refuses.dropped: expected ["m3"], got ["m3", "m4"]' in out
    assert "broken.scenario.json: store: expected an object, got 5" in out


@pytest.mark.parametrize(
    ("tb", "shown", "not_shown"),
    [
        ("native", "Traceback (most recent call last):", "def boom"),
        ("long", "def boom", "Traceback (most recent call last):"),
    ],
)
def test_a_crashing_scenario_item_follows_the_tb_option(pytester, monkeypatch, tb, shown, not_shown) -> None:
    """A crash (not a mismatch) is shown in the ``--tb`` style asked for; the mutation runs ask for a cheap one."""
    from invariants import scenario_items

    def boom(scenario, variant):
        raise RuntimeError("crashed inside the compile")

    monkeypatch.setattr(scenario_items, "judge_variant", boom)
    folder = pytester.path / "scenarios"
    folder.mkdir()
    (folder / "ok.scenario.json").write_text(ISSUE_307.read_text(encoding="utf-8"), encoding="utf-8")
    result = pytester.runpytest_inprocess("-p", "invariants.plugin", f"--tb={tb}", str(folder))
    out = result.stdout.str()
    assert "RuntimeError: crashed inside the compile" in out
    assert shown in out and not_shown not in out


def test_a_failing_property_test_prints_a_scenario_and_the_command_that_keeps_it(pytester) -> None:
    pytester.makepyfile(
        test_found="""
from reference.model import Budget, Config, Message, Store, Text
from invariants import assert_holds

def test_never_over():
    store = Store(messages=(Message("m0", "user", (Text("a" * 290),)),))
    try:
        assert_holds("never-over", store, Config(), Budget(max_tokens=5), "sound")
    except Exception as err:
        raise AssertionError(f"sound refused or broke: {err}") from None

def test_fake_break():
    from invariants.properties import InvariantViolation, Violation
    store = Store(messages=(Message("m0", "user", (Text("hi"),)),))
    raise InvariantViolation([Violation("never-over", "made up")], case=(store, Config(), Budget(max_tokens=5)))
"""
    )
    result = pytester.runpytest("-p", "invariants.plugin")
    result.assert_outcomes(passed=1, failed=1)
    out = result.stdout.str()
    assert "cmharness: the counterexample as a scenario file" in out
    assert (
        "cmharness export .cmharness/counterexamples/test_found-test_fake_break.scenario.json --out "
        "tests/scenarios/found/test_found-test_fake_break.scenario.json" in out
    )
    saved = pytester.path / ".cmharness" / "counterexamples" / "test_found-test_fake_break.scenario.json"
    sc = load_scenario(saved)
    assert [m.id for m in sc.store.messages] == ["m0"] and sc.budget.max_tokens == 5
    assert main(["export", str(saved), "--out", str(pytester.path / "kept.scenario.json")]) == 0
    assert all(v.ok for v in judge(load_scenario(pytester.path / "kept.scenario.json")))


def _readme_example() -> dict:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split("<!-- pin-example -->", 1)[1].split("```json", 1)[1].split("```", 1)[0]
    return json.loads(block)


def test_the_readme_example_is_red_on_the_faithful_variants_and_green_on_sound(tmp_path, capsys) -> None:
    path = tmp_path / "307-mine.scenario.json"
    path.write_text(json.dumps(_readme_example()), encoding="utf-8")
    assert main(["reproduce", str(path)]) == 1
    assert [v.variant for v in judge(load_scenario(path)) if not v.ok] == list(FAITHFUL)
    assert main(["export", str(path), "--out", str(path)]) == 0
    pinned = json.loads(path.read_text(encoding="utf-8"))["expect"]
    assert pinned["faithful"]["sends"]["summaries"] == [["L1-1"]]
    assert pinned["faithful"]["breaks"] == ["stats-total", "nothing-lost"]
    assert pinned["sound"]["refuses"]["dropped"] == ["m3", "m4"] and pinned["sound"]["holds"] is True
    assert main(["reproduce", str(path)]) == 0


def test_typescript_refusal_names_are_accepted_in_expectations() -> None:
    raw = _readme_example()
    raw["expect"] = {"sound": {"refuses": {"droppedIds": ["m3", "m4"], "middleCountUnit": "raw-messages"}}}
    got = load_scenario(raw).expect["sound"].refuses
    assert got.dropped == ("m3", "m4") and got.unit == "raw-messages"


def test_reproduce_colours_only_on_a_terminal(tmp_path, monkeypatch) -> None:
    import argparse

    from reports.cli import reproduce

    monkeypatch.delenv("NO_COLOR", raising=False)
    args = argparse.Namespace(files=[str(_wrong(tmp_path))], variants=["sound"], json=False)
    out = Stream(tty=True)
    assert reproduce.run(args, out) == 1
    assert reproduce.RED in out.getvalue() and reproduce.GREEN in out.getvalue()
    monkeypatch.setenv("NO_COLOR", "1")
    out = Stream(tty=True)
    reproduce.run(args, out)
    assert "\x1b[" not in out.getvalue()


def test_reproduce_refuses_an_unknown_variant(capsys) -> None:
    assert main(["reproduce", str(ISSUE_307), "--variant", "mian"]) == 2
    assert "unknown variant 'mian'" in capsys.readouterr().err


def test_export_into_the_repository_names_the_schema(tmp_path) -> None:
    out = ROOT / "tests" / "scenarios" / "found" / "_export_test.scenario.json"
    try:
        assert main(["export", str(ISSUE_307), "--out", str(out)]) == 0
        doc = json.loads(out.read_text(encoding="utf-8"))
        assert doc["$schema"] == "../../../docs/scenario.schema.json"
        assert load_scenario(out).expect == expect_from(load_scenario(ISSUE_307))
    finally:
        out.unlink(missing_ok=True)
        if out.parent.exists() and not any(out.parent.iterdir()):
            out.parent.rmdir()


@pytest.mark.parametrize("command", ["price", "check", "reproduce"])
def test_a_lone_surrogate_in_an_id_is_printed_escaped(tmp_path, command) -> None:
    """On a real UTF-8 stdout a lone surrogate cannot be encoded: the CLI prints it escaped, exit 0/1."""
    import os
    import subprocess
    import sys

    raw = json.loads(ISSUE_307.read_text(encoding="utf-8"))
    raw["store"]["messages"][0]["id"] = "m0\ud800"
    path = tmp_path / "s.scenario.json"
    path.write_text(json.dumps(raw, ensure_ascii=True), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONIOENCODING": "utf-8"}
    done = subprocess.run(
        [sys.executable, "-m", "reports.cli", command, str(path)],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr.decode("utf-8", "replace")
    assert b"Traceback" not in done.stderr
    if command == "price":
        assert b"m0\\ud800" in done.stdout


def test_reproduce_reports_an_empty_folder_and_runs_the_rest(tmp_path, capsys) -> None:
    assert main(["reproduce", str(tmp_path), str(ISSUE_307)]) == 2
    captured = capsys.readouterr()
    assert "no .scenario.json or .fixture.json files in this directory" in captured.err
    assert "1 scenario(s): 0 expectation(s) not as expected, 1 unreadable" in captured.out
