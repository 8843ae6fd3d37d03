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
