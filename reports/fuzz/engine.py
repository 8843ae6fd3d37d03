"""The fuzzing campaign: HypoFuzz's workers over the project's property tests, pooled in one example database.

The parent collects the fuzz targets once (HypoFuzz's own collection: ``@given`` tests and state machines' test
cases that are not derandomized and use the profile's database), deals them out to ``workers`` processes
(``spawn``: each a fresh interpreter that collects again), and prints a progress line from what the workers
report. It stops at the time limit, on Ctrl-C or SIGTERM, or when every target has failed; a worker stops by
finishing its current batch of inputs, saving its report and flushing the database, so what it found is kept.
The failures are then read back from the database, the one every machine sharing it sees.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import queue
import signal
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from invariants.database import DATABASE_ENV, open_database
from invariants.plugin import PROFILE_ENV, VARIANTS_ENV
from reports.errors import UsageError
from reports.fuzz.verdict import Finding, Target, expected_red, stops, unexpected

#: The checkout the tests live in (the fuzzer runs them from there).
ROOT = Path(__file__).resolve().parents[2]
#: The property tests the fuzzer searches: the invariants on every variant, the lifecycle, the scenario-file fuzz.
TARGET_FILES: tuple[str, ...] = ("tests/test_invariants.py", "tests/test_lifecycle.py", "tests/test_scenario_fuzz.py")
#: Seconds between two progress reports of a worker.
REPORT_EVERY = 0.5


@dataclass(frozen=True)
class Plan:
    """What to fuzz, where the findings go, on how many processes, for how long (None: until stopped), and
    whether to stop at the first failure that is not an expected red."""

    database: str
    variants: tuple[str, ...] = ()
    workers: int = 1
    seconds: float | None = None
    files: tuple[str, ...] = TARGET_FILES
    root: Path = ROOT
    stop_on_failure: bool = False

    def environment(self) -> dict[str, str]:
        """What the plugin reads in a worker: the fuzz profile, the database, the variants."""
        env = {PROFILE_ENV: "fuzz", DATABASE_ENV: self.database}
        if self.variants:
            env[VARIANTS_ENV] = " ".join(self.variants)
        return env

    def pytest_args(self) -> list[str]:
        return ["-p", "no:cacheprovider", "-q", *self.files]


@dataclass(frozen=True)
class Progress:
    """A worker's running totals: inputs run, distinct behaviours its targets reached, the node ids failed."""

    worker: int
    cases: int
    behaviours: int
    failed: tuple[str, ...]
    done: bool = False


@dataclass
class Outcome:
    """What a campaign did: targets, seconds, totals, failures in the database, and why it stopped."""

    targets: list[Target]
    skipped: dict[str, str]
    seconds: float = 0.0
    #: Seconds from the first worker's first report (its collection done) to the stop: what cases/s is over.
    fuzzing_seconds: float = 0.0
    cases: int = 0
    behaviours: int = 0
    findings: list[Finding] = field(default_factory=list)
    stopped_by: str = "time"


class CollectionError(UsageError):
    """The plan's test files could not be collected; the message is one line."""


@contextlib.contextmanager
def environment(plan: Plan) -> Iterator[None]:
    """The plan's environment and the checkout on ``sys.path`` (the tests import ``tests.*``), then restored: the
    modules imported from the checkout meanwhile are forgotten, so that another plan's test module of the same name
    is imported afresh."""
    saved = {k: os.environ.get(k) for k in (*plan.environment(), VARIANTS_ENV)}
    before, root = set(sys.modules), plan.root.resolve()
    os.environ.pop(VARIANTS_ENV, None)
    os.environ.update(plan.environment())
    sys.path.insert(0, str(plan.root))
    try:
        yield
    finally:
        sys.path.remove(str(plan.root))
        for name in set(sys.modules) - before:
            if _imported_from(sys.modules[name], root):
                del sys.modules[name]
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _imported_from(module: object, root: Path) -> bool:
    """Whether ``module`` was loaded from a file under ``root`` (resolved)."""
    file = getattr(module, "__file__", None)
    return file is not None and Path(file).resolve().is_relative_to(root)


def collect(plan: Plan) -> tuple[list[Target], dict[str, str]]:
    """The fuzz targets HypoFuzz takes from the plan's files, and the tests it leaves out with the reason."""
    from hypofuzz.collection import collect_tests

    with environment(plan), contextlib.chdir(plan.root):
        try:
            result = collect_tests(plan.pytest_args())
        except SystemExit as stop:  # HypoFuzz exits when pytest cannot collect (its output printed above)
            raise CollectionError(f"pytest could not collect {' '.join(plan.files)} (exit {stop.code})") from None
    targets = [
        Target(t.nodeid, t.database_key, _expected_red(t.pytest_item)) for t in result.fuzz_targets if t.pytest_item
    ]
    skipped = {nodeid: str(why.get("status_reason", "")) for nodeid, why in result.not_collected.items()}
    return targets, skipped


def _expected_red(item: object) -> bool:
    """Whether a collected test's failure is excused (``reports.fuzz.verdict.expected_red`` on its ``red_on`` mark
    and its ``variant`` parameter)."""
    mark = item.get_closest_marker("red_on")  # type: ignore[attr-defined]
    params = getattr(getattr(item, "callspec", None), "params", {})
    return expected_red(mark.args if mark is not None else (), params.get("variant"))


def deal(nodeids: Sequence[str], workers: int) -> list[list[str]]:
    """Round-robin shares of the targets; with fewer targets than workers, every worker takes them all."""
    if len(nodeids) < workers:
        return [list(nodeids) for _ in range(workers)]
    return [list(nodeids[i::workers]) for i in range(workers)]


def findings(plan: Plan, targets: Sequence[Target]) -> list[Finding]:
    """The targets with a failing input saved in the plan's database, by any worker on any machine."""
    from hypofuzz.database import FailureState, HypofuzzDatabase

    db = HypofuzzDatabase(open_database(plan.database))
    found = []
    for target in targets:
        failures = {
            state: list(db.failures(state=state).fetch(target.key))
            for state in (FailureState.SHRUNK, FailureState.UNSHRUNK)
        }
        if not any(failures.values()):
            continue
        origins = [
            observation.status_reason
            for state, saved in failures.items()
            for choices in saved
            if (observation := db.failure_observations(state=state).fetch(target.key, choices)) is not None
        ]
        in_fuzzer = bool(origins) and all(FUZZER_SOURCE in origin for origin in origins)
        shrunk, unshrunk = (len(failures[s]) for s in (FailureState.SHRUNK, FailureState.UNSHRUNK))
        found.append(Finding(target, shrunk, unshrunk, in_fuzzer, origins[0] if origins else ""))
    return found


#: A failure whose origin is in HypoFuzz's own code: on Python before 3.12 its line tracer adds stack frames, and
#: the scenario-file fuzz's deeply nested documents can run it out of stack (RecursionError) where pytest does not.
FUZZER_SOURCE = f"{os.sep}hypofuzz{os.sep}"


def run(plan: Plan, on_progress: Callable[[float, float, int, int, int], None] | None = None) -> Outcome:
    """Fuzz until the plan's time, a stop signal, or a failure in every target; the failures in the database."""
    targets, skipped = collect(plan)
    outcome = Outcome(targets, skipped)
    if not targets:
        return outcome
    context = multiprocessing.get_context("spawn")
    reports: multiprocessing.Queue[Progress] = context.Queue()
    shares = deal([t.nodeid for t in targets], plan.workers)
    processes = [
        context.Process(target=_work, args=(plan, i, share, reports), name=f"cmharness-fuzz-{i}", daemon=True)
        for i, share in enumerate(shares)
    ]
    latest: dict[int, Progress] = {}
    not_excused = unexpected(targets)
    stop: list[str] = []
    previous = {sig: signal.signal(sig, lambda s, _f: stop.append(signal.Signals(s).name)) for sig in _STOP_SIGNALS}
    start = time.monotonic()
    first_report = 0.0
    last_print = 0.0
    try:
        for process in processes:
            process.start()
        while not stop:
            elapsed = time.monotonic() - start
            if plan.seconds is not None and elapsed >= plan.seconds:
                stop.append("time")
                break
            with contextlib.suppress(queue.Empty):
                report = reports.get(timeout=0.2)
                latest[report.worker] = report
                first_report = first_report or time.monotonic()
            if all(not p.is_alive() for p in processes) or (
                len(latest) == len(processes) and all(r.done for r in latest.values())
            ):
                stop.append("every target failed" if all(p.exitcode == 0 for p in processes) else "workers exited")
                break
            if plan.stop_on_failure and stops(not_excused, (nodeid for r in latest.values() for nodeid in r.failed)):
                stop.append("a failure found")
                break
            if on_progress is not None and elapsed - last_print >= 1.0:
                last_print = elapsed
                on_progress(elapsed, time.monotonic() - first_report if first_report else 0.0, *_totals(latest))
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        _stop(processes, reports, latest)
    outcome.seconds = time.monotonic() - start
    outcome.fuzzing_seconds = time.monotonic() - first_report if first_report else 0.0
    outcome.cases, outcome.behaviours, _ = _totals(latest)
    outcome.stopped_by = stop[0] if stop else "time"
    outcome.findings = findings(plan, targets)
    return outcome


_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def _totals(latest: dict[int, Progress]) -> tuple[int, int, int]:
    failed = {nodeid for r in latest.values() for nodeid in r.failed}
    return sum(r.cases for r in latest.values()), sum(r.behaviours for r in latest.values()), len(failed)


def _stop(processes: Sequence[multiprocessing.process.BaseProcess], reports: queue.Queue, latest: dict) -> None:
    """SIGTERM to each worker still running, up to 30 s for them to save and flush, then SIGKILL."""
    for process in processes:
        if process.is_alive() and process.pid is not None:
            os.kill(process.pid, signal.SIGTERM)
    deadline = time.monotonic() + 30
    while any(p.is_alive() for p in processes) and time.monotonic() < deadline:
        with contextlib.suppress(queue.Empty):
            report = reports.get(timeout=0.2)
            latest[report.worker] = report
    for process in processes:
        if process.is_alive():
            process.kill()
        process.join()
    with contextlib.suppress(queue.Empty):
        while True:
            report = reports.get_nowait()
            latest[report.worker] = report


# ----------------------------------------------------------------------------- in a worker process


class _Stopped(KeyboardInterrupt):
    """Raised in a worker by SIGTERM or SIGINT, or when every target of its share has failed; a
    ``KeyboardInterrupt`` so that neither Hypothesis nor HypoFuzz takes it for a failure of the test."""


def _work(plan: Plan, index: int, nodeids: list[str], reports: multiprocessing.Queue) -> None:
    """A worker: HypoFuzz's ``FuzzWorker`` over ``nodeids``; it reports progress and stops cleanly."""

    def interrupt(_sig: int, _frame: object) -> None:
        raise _Stopped

    signal.signal(signal.SIGTERM, interrupt)
    signal.signal(signal.SIGINT, interrupt)
    os.chdir(plan.root)
    os.environ.pop(VARIANTS_ENV, None)
    os.environ.update(plan.environment())
    sys.path.insert(0, str(plan.root))
    from hypofuzz import detection
    from hypofuzz.hypofuzz import FuzzWorker

    detection._in_hypofuzz_run = True
    _explain_comments_under_their_old_name()

    class Worker(FuzzWorker):
        last = 0.0

        def _update_targets(self, ids: Sequence[str]) -> None:
            super()._update_targets(ids)
            now = time.monotonic()
            if now - self.last >= REPORT_EVERY:
                self.last = now
                reports.put(self.progress())
            if self.targets and not self.valid_targets:
                raise _Stopped

        def progress(self, done: bool = False) -> Progress:
            every = [*self.targets.values(), *self.dropped_targets.values()]
            return Progress(
                worker=index,
                cases=sum(t.provider.ninputs for t in every),
                behaviours=sum(len(t.provider.corpus.behavior_counts) for t in every if t.provider.corpus),
                failed=tuple(sorted(t.nodeid for t in every if t.has_found_failure)),
                done=done,
            )

        def flush(self) -> None:
            current = self._current_target
            if current is not None:
                with contextlib.suppress(Exception):
                    current.save_report()
            # Every target shares one database; its writes are queued on a thread until joined.
            first = next(iter(self.collected_targets.values()), None)
            join = getattr(first.database._db, "_join", None) if first is not None else None
            if join is not None:
                join(timeout=20)

    worker = Worker(pytest_args=plan.pytest_args(), shared_state=_shared_state(nodeids))
    try:
        with contextlib.redirect_stdout(open(os.devnull, "w")):
            worker.start()
    except _Stopped:
        pass
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        worker.flush()
        reports.put(worker.progress(done=True))


def _explain_comments_under_their_old_name() -> None:
    """HypoFuzz 25.11 reads a shrunk result's explain-phase comments as ``slice_comments``, which newer Hypothesis
    calls ``span_comments``; without the old name a worker dies on its first shrunk failure."""
    from hypothesis.internal.conjecture.data import ConjectureResult

    if not hasattr(ConjectureResult, "slice_comments"):
        ConjectureResult.slice_comments = property(lambda result: result.span_comments)  # type: ignore[attr-defined]


def _shared_state(nodeids: list[str]) -> dict[str, dict]:
    """The hub's side of HypoFuzz's worker state: here a fixed share, and the worker's own notes."""
    return {
        "hub_state": {"nodeids": nodeids},
        "worker_state": {"nodeids": {}, "current_lifetime": 0.0, "expected_lifetime": 0.0, "valid_nodeids": []},
    }
