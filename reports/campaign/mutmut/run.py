"""mutmut 3's operator mutants over the model (``strategies/``, ``reference/``, the judges of ``invariants/``) and the
tools' verdict rules in ``reports/``, run and read back, never reimplemented.

mutmut is configured in ``pyproject.toml`` (``[tool.mutmut]``). The campaign runs it in a copy of
the project, ``.cmharness/mutmut/project/`` (mutmut in turn writes only its own ``mutants/`` folder inside
that copy), so the source tree is never touched, not even by a ``mutants/`` folder of its own.

- The copy is laid anew when the fingerprint changes (mutmut alone would keep a survivor's verdict
  after the tests change); otherwise mutmut's own per-mutant results (``mutants/**/*.meta``,
  written as each mutant finishes) make a second run resume where the first stopped.
- mutmut gets a wall-clock budget: at its end mutmut is interrupted, the mutants it did not reach
  stay *pending*, and the next campaign goes on with them. Its tests are those of its
  ``pytest_add_cli_args_test_selection``, less the tests that are red on the unmutated code
  (``CMHARNESS_SKIP``), with the ``ci`` Hypothesis profile.
- ``reports.campaign.plugins.mutant_plugin`` (loaded through ``pytest_add_cli_args``) records the first failing test
  of each mutant (mutmut stops at it), so a killed mutant names its killer.
- Each finished mutant becomes a journal record: status, duration, killer, the original and
  mutated line, a short diff, its location in the source and a mutator category read off the change.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reports.campaign.mutation_scope import MUTMUT_PATHS
from reports.campaign.mutmut.execute import run_pending
from reports.campaign.mutmut.results import (
    collect,
    pending_names,
    progress_counts,
    reset_interrupted,
)
from reports.campaign.mutmut.work_copy import (
    changed_functions,
    lay_work_copy,
    mark_prepared,
    modules,
    mutated_sources,
    needs_preparing,
    reopen_for_new_hints,
    reset_for_changed_tests,
    save_test_keys,
    work_dir,
)
from reports.campaign.named_mutants import shard_of
from reports.campaign.processes import ended, kill_group, spawn
from reports.campaign.progress import fmt_time
from reports.campaign.records import BaselineRecord, MutmutRecord, Status
from reports.campaign.runs import red_tests
from reports.campaign.settings import MutmutEngine, Settings
from reports.errors import CampaignError


@dataclass(frozen=True)
class MutmutResult:
    records: list[MutmutRecord]
    names: list[str]
    pending: int
    ran: bool
    seconds: float
    note: str = ""
    #: Ctrl-C or SIGTERM stopped mutmut: what it finished is in ``records``, the caller re-raises.
    interrupted: bool = False


def mutmut_command(python: str) -> list[str]:
    """mutmut's command line, run through ``reports.campaign.mutmut.decorated`` so that it mutates what the warm
    engine's preparation does."""
    if not (Path(python).parent / "mutmut").exists() and not shutil.which("mutmut"):
        raise CampaignError("mutmut is not installed (pip install -e '.[mutation]'), or run with --no-mutmut")
    return [python, "-m", "reports.campaign.mutmut.decorated"]


# ----------------------------------------------------------------------------- running mutmut


def run_mutmut(
    settings: Settings,
    fp: str,
    baseline: BaselineRecord,
    budget: float,
    shard: tuple[int, int] | None = None,
    paths: Sequence[str] = MUTMUT_PATHS,
    ahead: Any = None,
    journaled: Sequence[MutmutRecord] = (),
) -> MutmutResult:
    """Run (or resume) mutmut over the modules under ``paths`` for at most ``budget`` seconds; the records of
    every finished mutant of those modules. ``ahead`` (``reports.campaign.mutmut.execute.PreparedAhead``) prepared a
    cold
    work copy beside the baseline."""
    start = time.time()
    if ahead is not None:
        ahead.ok()  # the preparation beside the baseline has finished with the work copy
    warm = (work_dir(settings) / "mutants").is_dir() and ahead is None
    work, previous = lay_work_copy(settings)
    reset_interrupted(work)
    rehinted = reopen_for_new_hints(work) if warm else []
    touched = changed_functions(work, previous) if warm else []
    retest = reset_for_changed_tests(settings, work) if warm else []
    if rehinted and settings.progress is not None:
        settings.progress.write(
            f"incremental: the committed hints are not those of the work copy's verdicts: the mutants of all "
            f"{len(rehinted)} function(s) run again in their order\n"
        )
    elif warm and settings.progress is not None:
        settings.progress.write(
            f"incremental: mutmut re-runs the mutants of {len(touched)} changed function(s)"
            + (f" ({', '.join(touched[:8])}{', ...' if len(touched) > 8 else ''})" if touched else "")
            + f" and of {len(retest)} function(s) whose covering tests changed"
            + (f" ({', '.join(retest[:8])}{', ...' if len(retest) > 8 else ''})" if retest else "")
            + "\n"
        )
    changed = mutated_sources(work, previous)  # the harness's own files are no change of the mutated code
    owned = [
        m for m in modules(work) if m.split(".", 1)[0] in paths and (shard is None or shard_of(m, shard[1]) == shard[0])
    ]
    every, pending = pending_names(work)
    known = all(m in every for m in owned)
    todo = [n for m in owned for n in pending.get(m, [])] if known else []
    ran = False
    interrupted = False
    note = ""
    if owned and (not known or todo or (warm and needs_preparing(work))):
        if budget < 30:
            note = f"not run: only {max(budget, 0):.0f}s of the budget left; it runs next time"
        else:
            args: list[str] = []
            if shard is not None or set(paths) != set(MUTMUT_PATHS):  # name them: mutmut alone runs every module
                args = [n for m in owned if m in every for n in pending[m]]
                args += [f"{m}.*" for m in owned if m not in every]
            try:
                note = _invoke(
                    settings,
                    work,
                    baseline,
                    args,
                    deadline=start + budget,
                    owned=owned,
                    ahead=ahead,
                    changed=changed,
                    journaled=journaled,
                )
            except KeyboardInterrupt:
                note, interrupted = "interrupted; the pending mutants run next time", True
            ran = True
            reset_interrupted(work)
            save_test_keys(settings, work)
    every, pending = pending_names(work)
    names = [n for m in owned for n in every.get(m, [])]
    records = collect(work, fp, {m for m in owned}, every)
    left = sum(len(pending.get(m, [])) for m in owned) + sum(1 for m in owned if m not in every)
    return MutmutResult(records, names, left, ran, time.time() - start, note, interrupted)


def _invoke(
    settings: Settings,
    work: Path,
    baseline: BaselineRecord,
    names: list[str],
    deadline: float,
    owned: Sequence[str],
    ahead: Any = None,
    changed: Sequence[str] = (),
    journaled: Sequence[MutmutRecord] = (),
) -> str:
    if settings.mutmut_engine is MutmutEngine.WARM:  # else mutmut run's own loop: a check, and to measure both
        return run_pending(settings, work, baseline, deadline, owned, ahead, changed, journaled)
    skip = work.parent / "skip.txt"
    skip.write_text("".join(t + "\n" for t in red_tests(baseline)), encoding="utf-8")
    env = settings.env()
    env.pop("PYTHONPATH", None)  # mutmut puts its mutants/ first; nothing may shadow it
    env["CMHARNESS_KILLERS"] = str(work / "killers")
    env["CMHARNESS_SKIP"] = str(skip)
    durations = work.parent / "durations.json"
    durations.write_text(json.dumps({r.nodeid: r.duration for r in baseline.tests}), encoding="utf-8")
    env["CMHARNESS_DURATIONS"] = str(durations)
    cmd = [*mutmut_command(settings.python), "run", "--max-children", str(max(1, settings.workers)), *names]
    log_path = work.parent / "mutmut.log"
    stream = settings.progress
    with open(log_path, "ab") as log:
        proc = spawn(cmd, work, env, log)
        started = last = time.time()
        note = ""
        try:
            while not ended(proc, 1.0):
                now = time.time()
                if now >= deadline:
                    note = "stopped at the end of its budget; the pending mutants run next time"
                    _stop(proc)
                    break
                if stream is not None and now - last >= 15:
                    last = now
                    counts = progress_counts(work, owned)
                    total = sum(counts.values())
                    done = total - counts.get(Status.PENDING, 0)
                    shown = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()) if k != Status.PENDING)
                    stream.write(
                        f"[mutmut {done}/{total}] {shown} | elapsed {fmt_time(now - started)}, "
                        f"budget left {fmt_time(deadline - now)}\n"
                    )
                    stream.flush()
        except BaseException:
            _stop(proc)
            raise
    if proc.returncode not in (0, None) and not note:
        tail = log_path.read_text(encoding="utf-8", errors="replace")[-1500:]
        note = f"mutmut exited {proc.returncode}; see {log_path}: {tail.strip()[-300:]}"
        if stream is not None:
            stream.write(f"mutmut: {note}\n")
    if proc.returncode == 0:  # mutmut run prepares the copy before its mutants
        mark_prepared(work)
    return note


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """Interrupt mutmut (it stops its workers and keeps what it finished), then kill what is left."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(proc.pid, signal.SIGINT)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=20)
    kill_group(proc)
    proc.wait()
