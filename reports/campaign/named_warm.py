"""The named mutants from one warm pytest session (``reports.campaign.plugins.warm_session``): collect the suite
once, fork a child
per mutant with its switches on, instead of a fresh pytest process of several seconds per mutant.

Each child runs what ``reports.campaign.run_named`` would (the baseline's passing tests that look its
variant up; example tests first in an order drawn from the mutant, every failing one a killer; the
property searches only while nothing failed) and writes one row per test; the parent keeps
``Settings.workers`` children going and kills one that outlives its timeout. Each child is a fresh copy
of the collected session, so no switch or memo passes from one mutant to the next.
``--named-engine process`` runs each mutant in a process of its own instead.
"""

from __future__ import annotations

import contextlib
import json
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from reports.campaign.named_mutants import Mutant, tests_for
from reports.campaign.processes import PYTEST_ARGS, RunOutcome, kill_group, run_failed, spawn
from reports.campaign.records import FAILING, BaselineRecord, MutantRecord, Status, decode_row
from reports.campaign.runs import mutant_record, not_covered, timeout_for
from reports.campaign.settings import Settings

#: The outcome a child writes for a test it started and did not finish.
RUNNING = "running"


def run_warm(
    settings: Settings, mutants: Sequence[Mutant], baseline: BaselineRecord, fp: str, deadline: float | None
) -> Iterator[MutantRecord]:
    """Each mutant's journal record, as it finishes; those unfinished at ``deadline`` are not yielded."""
    planned, meta = [], {}
    for m in mutants:
        rows = tests_for(m, baseline, settings.all_variants)
        meta[m.id] = (m, rows, timeout_for(rows, baseline, settings))
        if not rows:
            yield not_covered(m, settings, fp)
            continue
        planned.append({"name": m.id, "spec": m.spec, "tests": [r.nodeid for r in rows], "limit": meta[m.id][2]})
    if not planned:
        return
    with tempfile.TemporaryDirectory(prefix="cm-named-") as tmp:
        plan, out, log = Path(tmp) / "plan.json", Path(tmp) / "out.jsonl", Path(tmp) / "log"
        plan.write_text(json.dumps({"workers": max(1, settings.workers), "mutants": planned}), encoding="utf-8")
        cmd = [
            settings.python,
            "-m",
            "pytest",
            *PYTEST_ARGS,
            "--capture=sys",
            "--tb=short",
            "--cm-no-shrink",
            "-p",
            "reports.campaign.plugins.warm_session",
            f"--cm-execute={plan}",
            f"--cm-execute-out={out}",
            *settings.selection,
        ]
        with open(log, "wb") as sink:
            proc = spawn(cmd, settings.root, settings.env(), sink)
        seen, offset = set(), 0
        rows_of: dict[str, dict[str, dict[str, Any]]] = {}
        try:
            while True:
                running = proc.poll() is None
                offset, finished = _read(out, offset, rows_of)
                for name, end in finished:
                    if name not in seen:
                        seen.add(name)
                        m, rows, limit = meta[name]
                        yield _record(m, rows_of.get(name, {}), end, limit, baseline, settings, fp)
                if not running:
                    break
                if deadline is not None and time.time() >= deadline:
                    break
                time.sleep(0.2)
        finally:
            kill_group(proc)
            proc.wait()
        if len(seen) < len(planned) and (deadline is None or time.time() < deadline):
            tail = log.read_text(encoding="utf-8", errors="replace")[-2000:]
            raise run_failed(settings, "the warm named-mutant session", proc.returncode, tail)


def _read(
    path: Path, offset: int, rows_of: dict[str, dict[str, dict[str, Any]]]
) -> tuple[int, list[tuple[str, dict[str, Any]]]]:
    """New complete lines of the executor's output: rows filed by mutant; the mutants that ended."""
    if not path.exists():
        return offset, []
    with open(path, encoding="utf-8") as fh:
        fh.seek(offset)
        chunk = fh.read()
    complete = chunk[: chunk.rfind("\n") + 1]
    ended = []
    for line in complete.splitlines():
        with contextlib.suppress(json.JSONDecodeError, KeyError):
            rec = json.loads(line)
            rows = rows_of.setdefault(rec["name"], {})
            if "start" in rec:
                rows[rec["start"]] = {"nodeid": rec["start"], "outcome": RUNNING, "t": rec["t"], "duration": 0.0}
            elif "row" in rec:
                rows[rec["row"]["nodeid"]] = rec["row"]
            elif "exit" in rec:
                ended.append((rec["name"], rec))
    return offset + len(complete.encode("utf-8")), ended


def _record(
    mutant: Mutant,
    rows_by_id: dict[str, dict[str, Any]],
    end: dict[str, Any],
    limit: float,
    baseline: BaselineRecord,
    settings: Settings,
    fp: str,
) -> MutantRecord:
    """A mutant's record from the rows its child wrote (a test started and never finished is ``running``)."""
    rows = [decode_row(r) for r in rows_by_id.values() if r["outcome"] != RUNNING]
    running = [r["nodeid"] for r in rows_by_id.values() if r["outcome"] == RUNNING]
    timed_out = end["exit"] == 36
    status = (
        Status.KILLED
        if any(r.outcome in FAILING for r in rows)
        else Status.TIMEOUT
        if timed_out
        else Status.SURVIVED
        if end["exit"] == 0
        else Status.ERROR
    )
    run = RunOutcome(rows, running, end["exit"], end["seconds"], timed_out, "", end.get("started", 0.0))
    return mutant_record(mutant, baseline, settings, fp, run, status, limit, ran=len(rows_by_id), engine="warm")
