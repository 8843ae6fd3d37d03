"""mutmut's mutants run by ``reports.campaign.plugins.warm_session``: mutmut generates them and maps tests to
functions; one warm pytest session per run forks a child per mutant (see ``reports.campaign.plugins.warm_session``),
and the verdicts go back into mutmut's own result files (``mutants/**/*.meta``, killers under ``killers/``), read as
before by ``reports.campaign.mutmut.results``.

Each mutant runs the tests that cover its function (mutmut's stats) less those red on the unmutated code, in
``reports.campaign.mutmut.test_order``'s order, and stops at the first failure. Each test may take
``PER_TEST_FACTOR x`` its baseline time plus ``PER_TEST_CONST`` (a mutant that loops forever is a timeout within
seconds), and the mutant ``3 x`` its tests' baseline time plus 10 s in all.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TextIO

from reports.campaign.dependency_keys import coverage_of
from reports.campaign.equivalents import Equivalent, load_equivalents
from reports.campaign.hints import Hints, committed_hints, function_of
from reports.campaign.mutmut.meta import load_meta, module_of, mutant_name
from reports.campaign.mutmut.results import described, seed_from_journal
from reports.campaign.mutmut.work_copy import (
    canonical_stats,
    keep_verdicts,
    mark_prepared,
    read_selection,
    record_ran,
    reopen_recovered,
    reopen_rerun,
    verdicts,
)
from reports.campaign.plugins.mutant_plugin import SKIP_ENV
from reports.campaign.processes import ended, kill_group, spawn
from reports.campaign.progress import fmt_time
from reports.campaign.protocol import (
    FunctionTests,
    KillerLine,
    MutantEnded,
    MutantExit,
    MutantKiller,
    MutantStarted,
    PlannedMutant,
    WarmPlan,
    decode_warm,
    encode_line,
    read_lines,
    write_plan,
)
from reports.campaign.records import BaselineRecord, MutmutRecord, Status
from reports.campaign.runs import red_tests
from reports.campaign.settings import Settings

LIMIT_FACTOR, LIMIT_CONST = 3.0, 10.0
PER_TEST_FACTOR, PER_TEST_CONST = 10.0, 2.0
#: What each of the warm session's exit codes is, shown in the progress lines (any other code is an error).
STATUS_OF = {
    MutantExit.KILLED: Status.KILLED,
    MutantExit.SURVIVED: Status.SURVIVED,
    MutantExit.TIMEOUT: Status.TIMEOUT,
    MutantExit.NO_TESTS: Status.NO_COVERAGE,
}
#: The duration a test the hints do not know is ordered by: a fixed value, so that a new test's place in a mutant's
#: order (and so the first killer named) does not depend on how fast this machine ran it.
UNKNOWN_DURATION = 1.0


def _env(settings: Settings, path: Path | None) -> dict[str, str]:
    env = settings.env()
    env.pop("PYTHONPATH", None)
    if path is not None:
        env["PYTHONPATH"] = str(path)
    return env


def _run(
    cmd: Sequence[str], cwd: Path, env: dict[str, str], log: Path, deadline: float, poll: Any = None
) -> tuple[int | None, bool]:
    """Run ``cmd`` to its end or the deadline (then killed); (exit code, stopped at the deadline)."""
    with open(log, "ab") as out:
        proc = spawn(cmd, cwd, env, out)
        try:
            while not ended(proc, 0.5):
                if time.time() >= deadline:
                    kill_group(proc)
                    proc.wait()
                    return None, True
                if poll is not None:
                    poll()
        except BaseException:
            kill_group(proc)
            proc.wait()
            raise
    return proc.returncode, False


@dataclass(frozen=True)
class MutmutPlan:
    """What a run of mutmut's mutants does: the warm session's plan, and the reviewed equivalents it does not run
    (each mutant's key in mutmut's files, by name)."""

    warm: WarmPlan
    reviewed: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Verdict:
    """A mutant's result from the warm session: its exit code (``MutantExit``), seconds, first killer, and the tests
    it ran (in order, up to the killer, or the one it timed out in)."""

    exit: int
    seconds: float = 0.0
    killer: str | None = None
    ran: tuple[str, ...] = ()


def plan(work: Path, owned: Sequence[str], baseline: BaselineRecord, hints: Hints) -> MutmutPlan:
    """The executor's plan: the pending mutants of the owned modules (each with its function and time limit),
    each function's covering tests and known killers (``hints``: what the last complete report learnt), and the
    tests' per-test time limits."""
    stats = json.loads((work / "mutants" / "mutmut-stats.json").read_text(encoding="utf-8"))
    covering = stats.get("tests_by_mangled_function_name", {})
    durations = {r.nodeid: r.duration for r in baseline.tests}
    red = set(red_tests(baseline))
    killers = hints.killers
    listed = load_equivalents()
    mine = set(owned)
    mutants: list[PlannedMutant] = []
    reviewed: dict[str, str] = {}
    functions: dict[str, FunctionTests] = {}
    for source, (_, data) in sorted(load_meta(work).items()):
        if module_of(source) not in mine:
            continue
        codes = data.get("exit_code_by_key", {})
        unrun = [k for k, c in codes.items() if c in (None, MutantExit.SKIPPED)]
        equivalent = reviewed_equivalents(work, source, unrun, listed, list(codes))
        for key, code in codes.items():
            if code is not None and not (code == MutantExit.SKIPPED and key not in equivalent):
                continue
            name = mutant_name(key)
            if key in equivalent:
                if code != MutantExit.SKIPPED:
                    reviewed[name] = key
                continue
            fn = function_of(name)
            if fn not in functions:
                tests = tuple(t for t in covering.get(fn, ()) if t not in red)
                kept = set(tests)
                functions[fn] = FunctionTests(tests, tuple(t for t in killers.get(fn, ()) if t in kept))
            total = sum(durations.get(t, 1.0) for t in functions[fn].tests)
            mutants.append(PlannedMutant(name, LIMIT_FACTOR * total + LIMIT_CONST, function=fn, key=key))
    used = sorted({t for f in functions.values() for t in f.tests})
    warm = WarmPlan(
        mutants=tuple(mutants),
        functions=functions,
        durations={t: durations.get(t, 1.0) for t in used},
        # the order's durations: the last complete report's, never this run's, so that this run's speed never
        # changes which test runs first, nor so which test a report names as a mutant's first killer
        order_durations={t: hints.durations.get(t, UNKNOWN_DURATION) for t in used},
        per_test=(PER_TEST_FACTOR, PER_TEST_CONST),
    )
    return MutmutPlan(warm, reviewed)


def reviewed_equivalents(
    work: Path, source: str, keys: Sequence[str], listed: Mapping[str, Equivalent], every: Sequence[str]
) -> set[str]:
    """The ``keys`` listed in ``listed`` (``mutation/equivalent_mutants.toml``) whose mutated line is still the one
    reviewed: no test can tell them from the original, so they are not run (mutmut's "skipped"; the report counts
    them as equivalent). An entry whose line changed is stale: that mutant runs. ``every`` is all the file's mutants:
    they are described once (``described``), and the report reads the same descriptions."""
    names = {mutant_name(k): k for k in keys if f"mutmut:{mutant_name(k)}" in listed}
    if not names:
        return set()
    info = described(work, source, every)
    return {key for name, key in names.items() if listed[f"mutmut:{name}"].replacement in (None, info[key].replacement)}


def read_results(path: Path) -> dict[str, Verdict]:
    """Each ended mutant's verdict and killer from the executor's output (lines cut short are skipped)."""
    ended: dict[str, MutantEnded] = {}
    killers: dict[str, str] = {}
    ran: dict[str, dict[str, None]] = {}  # ordered, each test once (a timeout's confirmation runs its tests again)
    for message in read_lines(path, decode_warm)[0]:
        if isinstance(message, MutantEnded):
            ended[message.name] = message
        elif isinstance(message, MutantKiller):
            killers[message.name] = message.killer
        elif isinstance(message, MutantStarted):
            ran.setdefault(message.name, {})[message.nodeid] = None
    return {
        name: Verdict(end.exit, end.seconds, killers.get(name), tuple(ran.get(name, ()))) for name, end in ended.items()
    }


def merge(work: Path, keys: Mapping[str, str], results: Mapping[str, Verdict]) -> int:
    """Write the verdicts of the mutants ``keys`` names (each one's key in mutmut's files, by name) into mutmut's
    result files and the killers file, and the tests each ran; how many were written."""
    by_key = {key: results[name] for name, key in keys.items() if name in results}
    if not by_key:
        return 0
    record_ran(work, {key: r.ran for key, r in by_key.items()}, time.time())
    (work / "killers").mkdir(exist_ok=True)
    with open(work / "killers" / "executor.jsonl", "a", encoding="utf-8") as fh:
        for key, r in sorted(by_key.items()):
            if r.killer and r.exit == MutantExit.KILLED:
                fh.write(encode_line(KillerLine(key, r.killer)))
    for _source, (meta, data) in load_meta(work).items():
        codes = data.get("exit_code_by_key", {})
        hit = [k for k in codes if k in by_key]
        if hit:
            for k in hit:
                codes[k] = by_key[k].exit
                data.setdefault("durations_by_key", {})[k] = by_key[k].seconds
            meta.write_text(json.dumps(data, indent=4), encoding="utf-8")
    return len(by_key)


def _prepare(
    settings: Settings, work: Path, red: Sequence[str], deadline: float, poll: Any = None
) -> tuple[int | None, bool]:
    """mutmut's preparation (``reports.campaign.mutmut.prepare``) in the work copy: (exit code, stopped at the
    deadline)."""
    skip = work.parent / "skip.txt"  # mutmut's stats run needs a green suite: the tests red on the baseline leave
    skip.write_text("".join(t + "\n" for t in red), encoding="utf-8")
    env = {**_env(settings, None), SKIP_ENV: str(skip)}
    return _run(
        [settings.python, "-m", "reports.campaign.mutmut.prepare", str(max(1, settings.workers))],
        work,
        env,
        work.parent / "mutmut.log",
        deadline,
        poll,
    )


class PreparedAhead:
    """mutmut's preparation of a cold work copy, started in a thread beside the baseline (which leaves a core
    idle) on the guess that no test is red; ``ok()`` waits for it. When the guess is wrong (the baseline finds a
    red test) or it failed, ``run_pending`` prepares again with the red tests left out."""

    def __init__(self, settings: Settings, work: Path, deadline: float) -> None:
        self.code: int | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._main, args=(settings, work, deadline), daemon=True)
        self._thread.start()

    def _main(self, settings: Settings, work: Path, deadline: float) -> None:
        def poll() -> None:
            if self._stop.is_set():
                raise InterruptedError("stopped")

        with contextlib.suppress(InterruptedError):
            self.code, _ = _prepare(settings, work, [], deadline, poll)

    def ok(self) -> bool:
        self._thread.join()
        return self.code == 0

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def run_pending(
    settings: Settings,
    work: Path,
    baseline: BaselineRecord,
    deadline: float,
    owned: Sequence[str],
    ahead: PreparedAhead | None = None,
    changed: Sequence[str] = (),
    journaled: Sequence[MutmutRecord] = (),
) -> str:
    """Prepare (mutmut; not again when ``ahead`` did it with no test red) and run every pending mutant of the
    owned modules (the executor) until the deadline; the mutants of the ``changed`` source files whose code reads as
    before keep their verdicts, and those the journal holds a verdict of for this code (``journaled``) take it."""
    stream: TextIO | None = settings.progress
    log = work.parent / "mutmut.log"
    started = time.time()
    red = red_tests(baseline)
    beside = ahead is not None and ahead.ok() and not red
    if not beside:
        before = verdicts(work, changed)
        code, stopped = _prepare(settings, work, red, deadline)
        keep_verdicts(work, before)
        if stopped:
            return "stopped at the end of its budget while mutmut generated the mutants; they run next time"
        if code != 0:
            tail = log.read_text(encoding="utf-8", errors="replace")[-300:].strip()
            return f"mutmut's preparation exited {code}; see {log}: {tail}"
    mark_prepared(work)
    prepared = time.time()
    cover = coverage_of(baseline)
    if cover is not None:
        canonical_stats(work, cover)
    reopened = reopen_recovered(work)
    rerun = reopen_rerun(work, {r.nodeid: r.t for r in baseline.tests})
    seeded = seed_from_journal(work, journaled)  # last: what the journal holds for this code stands
    the_plan = plan(work, owned, baseline, committed_hints())
    planned = {m.name: m.key for m in the_plan.warm.mutants}
    merge(work, the_plan.reviewed, dict.fromkeys(the_plan.reviewed, Verdict(MutantExit.SKIPPED)))
    if stream is not None:
        when = "beside the baseline" if beside else f"in {fmt_time(prepared - started)}"
        stream.write(
            f"mutmut: prepared {when} (mutants and per-function coverage); "
            f"{len(planned)} mutant(s) to run, {len(the_plan.reviewed)} reviewed equivalent(s) not run"
            + (f", {seeded} verdict(s) taken from the journal" if seeded else "")
            + (
                f"; the mutants of {len(reopened)} function(s) whose covering tests changed run again"
                if reopened
                else ""
            )
            + (f"; {len(rerun)} mutant(s) whose tests call changed code run again" if rerun else "")
            + "\n"
        )
        stream.flush()
    if not planned:
        return ""
    plan_path, out = work.parent / "plan.json", work.parent / "results.jsonl"
    write_plan(plan_path, replace(the_plan.warm, workers=max(1, settings.workers)))
    out.unlink(missing_ok=True)
    last = [time.time()]

    def poll() -> None:
        now = time.time()
        if stream is not None and now - last[0] >= 15:
            last[0] = now
            done = read_results(out)
            counts: dict[str, int] = {}
            for r in done.values():
                s = STATUS_OF.get(r.exit, Status.ERROR)
                counts[s] = counts.get(s, 0) + 1
            shown = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
            stream.write(
                f"[mutmut {len(done)}/{len(planned)}] {shown} | elapsed {fmt_time(now - started)}, "
                f"budget left {fmt_time(deadline - now)}\n"
            )
            stream.flush()

    # --tb=native: pytest's own styles parse the source of every frame, and a mutated file is large
    cmd = [
        settings.python,
        "-m",
        "pytest",
        "-q",
        "--rootdir=.",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:randomly",
        "--capture=sys",
        "--tb=native",
        "-p",
        "reports.campaign.plugins.mutant_plugin",
        "--cm-no-shrink",
        "-p",
        "reports.campaign.plugins.warm_session",
        f"--cm-execute={plan_path}",
        f"--cm-execute-out={out}",
        *read_selection(work),
    ]
    try:
        _, stopped = _run(cmd, work / "mutants", _env(settings, work / "mutants"), log, deadline, poll)
    finally:
        merge(work, planned, read_results(out))
    return "stopped at the end of its budget; the pending mutants run next time" if stopped else ""
