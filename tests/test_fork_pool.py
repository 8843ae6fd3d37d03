"""The one fork pool of the campaign's child sessions (reports/campaign/plugins/warm_session.py, ``ForkPool``): the
named mutants, mutmut's mutants and the witness search's candidates all run in its children."""

from __future__ import annotations

import os
import time

import pytest

from reports.campaign.plugins.warm_session import ForkPool
from reports.campaign.protocol import MutantExit

pytestmark = pytest.mark.harness


def drain(pool: ForkPool[str]) -> dict[str, tuple[int | None, bytes]]:
    ended = {}
    while pool.running:
        ended |= {e.key: (e.exit, e.sent) for e in pool.wait()}
    return ended


def test_each_child_gives_its_exit_code_and_what_it_sent_and_one_past_its_limit_is_cut():
    pool: ForkPool[str] = ForkPool(workers=4)
    pool.start("sends", lambda send: send(b"x" * 200_000) and 0, 5.0)  # more than a pipe holds: drained meanwhile
    pool.start("killed", lambda send: MutantExit.KILLED, 5.0)
    pool.start("raises", lambda send: 1 // 0, 5.0)
    pool.start("loops", lambda send: time.sleep(30) or 0, 0.3)
    started = time.time()
    ended = drain(pool)
    assert time.time() - started < 2.0  # the loop cut at its 0.3 s, not left to run
    assert ended == {
        "sends": (0, b"x" * 200_000),
        "killed": (MutantExit.KILLED, b""),
        "raises": (MutantExit.CRASHED, b""),
        "loops": (None, b""),
    }


def test_no_more_than_its_workers_run_at_once(tmp_path):
    """Each child notes its pid in a folder while it runs; the parent starts a child only when one has ended."""
    pool: ForkPool[str] = ForkPool(workers=2)
    seen = []

    def body(send) -> int:
        mark = tmp_path / str(os.getpid())
        mark.touch()
        time.sleep(0.2)
        mark.unlink()
        return 0

    queue = [f"m{k}" for k in range(5)]
    while queue or pool.running:
        while queue and not pool.full():
            pool.start(queue.pop(0), body, 5.0)
        seen.append(len(list(tmp_path.iterdir())))
        pool.wait()
    assert max(seen) == 2 and len(pool.running) == 0


class _Item:
    """A stand-in for a collected test: its node id, and a ``hypothesis`` handle when it is a property test."""

    def __init__(self, nodeid: str, prop: bool = False) -> None:
        self.nodeid = nodeid
        self.obj = type("Test", (), {"hypothesis": object()} if prop else {})()

    def get_closest_marker(self, name: str) -> None:
        return None


def test_a_named_child_tears_down_towards_the_next_test_it_runs_not_the_next_it_files():
    """A test filed from an earlier run is not run: pytest must tear down towards the next test that runs (else a
    module's fixtures are left up for a test of another module); a failing filed row stops the property tests."""
    from reports.campaign.plugins.warm_session import _next_run, _reached
    from reports.campaign.records import Outcome, TestRow

    ex1, ex2, ex3, prop1, prop2 = (_Item(n, n.startswith("p")) for n in ("e1", "e2", "e3", "p1", "p2"))
    tests = [ex1, ex2, ex3, prop1, prop2]

    def row(nodeid: str, outcome: Outcome) -> TestRow:
        return TestRow(nodeid, outcome, 0.0, 0.0, nodeid, "f", None)

    assert _next_run(tests, 0, {}, False) is ex2
    assert _next_run(tests, 0, {"e2": row("e2", Outcome.PASSED)}, False) is ex3
    passed = {n: row(n, Outcome.PASSED) for n in ("e2", "e3", "p1")}
    assert _next_run(tests, 0, passed, False) is prop2
    assert _next_run(tests, 0, {"e2": row("e2", Outcome.FAILED)}, False) is ex3  # example tests all run
    failing = {"e2": row("e2", Outcome.FAILED), "e3": row("e3", Outcome.PASSED)}
    assert _next_run(tests, 0, failing, False) is prop1  # no property runs: none to set up for
    assert _next_run(tests, 4, {}, False) is None
    assert _reached(prop1, row("p1", Outcome.FAILED)) and _reached(ex1, row("e1", Outcome.SKIPPED))
    assert not _reached(prop1, row("p1", Outcome.SKIPPED)) and not _reached(ex1, None)
