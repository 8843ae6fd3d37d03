"""The progress line that ``compare`` and ``fuzz`` share: in place on a terminal, whole lines now and then in a log."""

from __future__ import annotations

import argparse

import pytest

from reports.cli import fuzz as fuzz_cli
from reports.fuzz.engine import Outcome, Plan
from reports.progress_line import LOG_EVERY, ProgressLine
from tests.streams import Stream

pytestmark = pytest.mark.harness


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_terminal_sees_every_state_rewritten_in_place_and_the_line_ended_at_the_close() -> None:
    stream, clock = Stream(tty=True), Clock()
    line = ProgressLine(stream, clock)
    for i in range(3):
        clock.now += 0.5
        line.show(f"state {i}")
    line.close()
    assert stream.getvalue() == "\rstate 0\rstate 1\rstate 2\n"


def test_a_log_sees_a_whole_line_each_interval_and_the_last_state_at_the_close() -> None:
    stream, clock = Stream(tty=False), Clock()
    line = ProgressLine(stream, clock)
    for t in (1.0, 9.9, 11.0, 15.0, 20.9, 21.5):
        clock.now = 1000.0 + t
        line.show(f"at {t}")
    line.close()
    assert "\r" not in stream.getvalue()
    # 11.0 is the first state LOG_EVERY after the start; 21.5 the first LOG_EVERY after that; 15.0 and 20.9 wait.
    assert stream.getvalue().splitlines() == ["at 11.0", "at 21.5"]
    line.show("at the end")
    line.close()
    assert stream.getvalue().splitlines()[-1] == "at the end"
    assert LOG_EVERY == 10.0


def test_a_closing_line_ends_the_run_on_a_terminal_and_in_a_log_alike() -> None:
    for tty, written in ((True, "\rdone\n"), (False, "done\n")):
        stream = Stream(tty)
        ProgressLine(stream, Clock()).close("done")
        assert stream.getvalue() == written


def test_no_stream_writes_nothing_and_does_not_fail() -> None:
    line = ProgressLine(None, Clock())
    line.show("state")
    line.close("done")


def test_fuzz_in_a_log_shows_its_progress_even_when_the_engine_skips_past_each_tenth_second(monkeypatch) -> None:
    """The engine reports about once a second, late under load: a report at 9.9 s and the next at 11.0 s must still
    give the log its line (a rule on whole elapsed seconds, ``int(elapsed) % 10 == 0``, lost both)."""
    clock = Clock()
    monkeypatch.setattr("reports.progress_line.time.monotonic", clock)
    plan = Plan("db", (), 1, 30.0, ("tests/test_properties.py",))
    monkeypatch.setattr(fuzz_cli, "plan_of", lambda _args: plan)

    def engine(_plan: Plan, on_progress) -> Outcome:
        for elapsed in (1.0, 5.0, 9.9, 11.0, 19.95, 21.05):
            clock.now = 1000.0 + elapsed
            on_progress(elapsed, elapsed, int(elapsed * 100), 7, 0)
        return Outcome(targets=[object()], skipped={}, seconds=22.0, fuzzing_seconds=21.0, cases=2105)

    monkeypatch.setattr(fuzz_cli, "fuzz", engine)
    stdout = Stream(tty=False)
    fuzz_cli.run(argparse.Namespace(), stdout)
    progress = [s for s in stdout.getvalue().splitlines() if "cases/s" in s]
    assert [p.split()[1] for p in progress] == ["11", "21"], stdout.getvalue()
