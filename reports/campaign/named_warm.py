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
import subprocess
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from reports.campaign.named_mutants import Mutant, tests_for
from reports.campaign.processes import PYTEST_ARGS, RunOutcome, _die_with_parent, kill_group
from reports.campaign.records import Outcome, Status
from reports.campaign.runs import _shrink_one, timeout_for
from reports.campaign.settings import Settings


def run_warm(
    settings: Settings, mutants: Sequence[Mutant], baseline: dict[str, Any], fp: str, deadline: float | None
) -> Iterator[dict[str, Any]]:
    """Each mutant's journal record, as it finishes; those unfinished at ``deadline`` are not yielded."""
    planned, meta = [], {}
    for m in mutants:
        rows = tests_for(m, baseline, settings.all_variants)
        meta[m.id] = (m, rows, timeout_for(rows, baseline, settings))
        if not rows:
            yield {
                "mutant": m.id,
                "fingerprint": fp,
                "kind": m.kind,
                "spec": m.spec,
                "ran": 0,
                "all_variants": settings.all_variants,
                "status": Status.NO_COVERAGE,
                "killed_by": [],
                "failures": {},
                "duration": 0.0,
                "finished": time.time(),
            }
            continue
        planned.append({"name": m.id, "spec": m.spec, "tests": [r["nodeid"] for r in rows], "limit": meta[m.id][2]})
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
            proc = subprocess.Popen(
                cmd,
                cwd=settings.root,
                env=settings.env(),
                stdout=sink,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
                preexec_fn=_die_with_parent,
            )
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
            raise RuntimeError(f"the warm named-mutant session ended early (exit {proc.returncode}):\n{tail}")


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
                rows[rec["start"]] = {"nodeid": rec["start"], "outcome": "running", "t": rec["t"], "duration": 0.0}
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
    baseline: dict[str, Any],
    settings: Settings,
    fp: str,
) -> dict[str, Any]:
    rows = list(rows_by_id.values())
    failed = [r for r in rows if r["outcome"] in (Outcome.FAILED, Outcome.ERROR)]
    running = [r["nodeid"] for r in rows if r["outcome"] == "running"]
    timed_out = end["exit"] == 36
    args = [*settings.selection, f"--cm-mutant={mutant.spec}"]
    shrink_started = time.time()
    shrunk = _shrink_one(settings, args, failed, baseline) if failed else {}
    shrink_seconds = time.time() - shrink_started
    status = (
        Status.KILLED
        if failed
        else Status.TIMEOUT
        if timed_out
        else Status.SURVIVED
        if end["exit"] == 0
        else Status.ERROR
    )
    run = RunOutcome(rows, end["exit"], end["seconds"], timed_out, "", end.get("started", 0.0))
    return {
        "mutant": mutant.id,
        "fingerprint": fp,
        "kind": mutant.kind,
        "spec": mutant.spec,
        "ran": len(rows),
        "all_variants": settings.all_variants,
        "status": status,
        "timed_out": timed_out,
        "timeout": round(limit, 1),
        "exit": run.returncode,
        "duration": round(run.wall + shrink_seconds, 3),
        "shrink_seconds": round(shrink_seconds, 3),
        "time_to_kill": round(min(r["t"] for r in failed) - run.started, 3) if failed else None,
        "killed_by": [r["nodeid"] for r in failed],
        "failures": {r["nodeid"]: shrunk.get(r["nodeid"], r.get("text", "")) for r in failed},
        "shrunk": sorted(shrunk),
        "outcomes": {r["nodeid"]: r["outcome"] for r in rows if r["outcome"] not in (Outcome.PASSED, "running")},
        "timed_out_in": running[0] if timed_out and running else None,
        "passed": sum(1 for r in rows if r["outcome"] == Outcome.PASSED),
        "slowest": [
            [r["nodeid"], round(r["duration"], 2)]
            for r in sorted(rows, key=lambda r: -r["duration"])[:5]
            if r["duration"] >= 1.0
        ],
        "log_tail": "",
        "finished": time.time(),
        "engine": "warm",
    }
