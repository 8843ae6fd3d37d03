"""The mutation campaign: the baseline run, each named mutant in its own pytest subprocess, and mutmut.

- The *baseline* runs the selected tests once on the unmutated code, recording each test's outcome
  (``reports.mutant_plugin --cm-results``). Tests are parametrized over variant names, so this one
  run gives every test's outcome on every variant.
- A *named mutant* (``reports.mutants``) runs in its own subprocess with ``--cm-mutant``, over the
  tests that passed on the baseline (only those can kill) and looked its variant up (a mutant changes
  one variant's defect set; ``all_variants=True`` runs every passing test). Example tests run first and
  every one of them that fails is a killing test; the property searches run only while nothing has
  failed (``--cm-quick-killers``). It is *killed* when a test fails, *survived* when none does,
  *timeout* when the run outlives ``timeout_factor * baseline time of those tests + timeout_const``
  seconds with no failure yet. When a property search killed it, that test runs again alone with
  shrinking on (at most ``shrink_timeout`` seconds) for the minimal counterexample.
- mutmut's operator mutants run in a copy of the project (``reports.mutmut_run``).

Results are journaled (JSON lines under ``out/journal/``), each keyed by the mutant's id and the
*fingerprint*: a hash of the code under test, the tests, the plugins, the test selection and the
Hypothesis profile. A campaign run again skips what the journal already holds for the current
fingerprint, so an interrupted one resumes. Named mutants change nothing on disk (the switch lives
in the subprocess's memory); mutmut works in its own copy; the source tree is never written.

``--shard I/N`` runs the mutants a stable hash of their id gives to shard I (each shard also runs
the baseline), journaling to ``shard-I-of-N.jsonl``; the report merges every journal in the folder.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import hashlib
import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from concurrent.futures import TimeoutError as FuturesTimeout
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from reports.deps import named_key, settings_part
from reports.mutants import Mutant, in_shard, parse_shard

ROOT = Path(__file__).resolve().parents[1]
#: What the fingerprint covers (files and folders, relative to the project root).
HASHED = ("pyproject.toml", "conftest.py", "strategies", "reference", "invariants", "tests", "reports",
          "examples", "docs", "README.md")
#: The campaign's own modules: changing how results are run or shown never invalidates them.
HARNESS_ONLY = frozenset({"reports/campaign.py", "reports/report.py", "reports/mutmut_run.py",
                          "reports/mutants.py", "reports/equivalent_mutants.toml", "tests/test_campaign.py",
                          "reports/test-order.json", "reports/hints.json", "reports/hints.py",
                          "reports/mutant_order.py", "reports/witness.py", "reports/deps.py", "reports/extra.py",
                          "reports/report_run.py", "reports/mte.py", "reports/md_report.py",
                          "reports/html_report.py"})
SKIP_DIRS = frozenset({"__pycache__", ".hypothesis", ".pytest_cache", "out", "mutants"})
#: The suite less the harness's own tests (marked ``harness``): they test the tooling, not the compile, and
#: would only slow every mutant down.
DEFAULT_SELECTION = ("tests", "-m", "not harness")
RED = frozenset({"failed", "error", "xfailed"})


def red_tests(baseline: dict[str, Any]) -> list[str]:
    """The node ids red on the baseline run, less the expected reds (xfailed): the tests no mutant runs."""
    return [r["nodeid"] for r in baseline["tests"] if r["outcome"] in RED - {"xfailed"}]
BASELINE = "baseline"


@dataclass
class Settings:
    """Where and how a campaign runs."""

    root: Path = ROOT
    out: Path = ROOT / "reports" / "out"
    #: mutmut's work folder (a copy of the project, and mutmut's mutants/ inside it); gitignored.
    mutmut_dir: Path = ROOT / ".cmharness" / "mutmut"
    selection: Sequence[str] = DEFAULT_SELECTION
    profile: str = "ci"
    workers: int = field(default_factory=lambda: os.cpu_count() or 1)
    timeout_factor: float = 3.0
    timeout_const: float = 10.0
    #: Seconds a named mutant's Hypothesis killer may spend shrinking its counterexample.
    shrink_timeout: float = 30.0
    all_variants: bool = False
    python: str = sys.executable
    #: Folders put first on the subprocesses' PYTHONPATH (the project root, then the harness's own).
    pythonpath: Sequence[Path] = ()
    hashed: Sequence[str] = HASHED
    progress: TextIO | None = field(default_factory=lambda: sys.stderr)

    @property
    def journal_dir(self) -> Path:
        return self.out / "journal"

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in ("PYTEST_ADDOPTS", "MUTANT_UNDER_TEST")}
        paths = [str(p) for p in (self.root, *self.pythonpath, ROOT)]
        env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
        env["CMHARNESS_PROFILE"] = self.profile
        env["PYTHONHASHSEED"] = "0"  # set orders (a failure's repr of a frozenset) the same in every run
        return env


# ----------------------------------------------------------------------------- fingerprint


def hashed_files(root: Path, hashed: Iterable[str] = HASHED) -> list[Path]:
    files: list[Path] = []
    for name in hashed:
        path = root / name
        if path.is_file():
            files.append(path)
        elif path.is_dir():
            for dirpath, dirnames, filenames in os.walk(path):
                dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
                files += [Path(dirpath) / f for f in filenames if not f.endswith((".pyc", ".log"))]
    return sorted(f for f in files if f.relative_to(root).as_posix() not in HARNESS_ONLY)


def fingerprint(settings: Settings) -> str:
    """A hash of the code under test, the tests, the selection and the profile (16 hex digits)."""
    h = hashlib.sha256()
    h.update(json.dumps([list(settings.selection), settings.profile, settings.all_variants]).encode())
    for f in hashed_files(settings.root, settings.hashed):
        h.update(f.relative_to(settings.root).as_posix().encode() + b"\0")
        h.update(f.read_bytes() + b"\0")
    return h.hexdigest()[:16]


# ----------------------------------------------------------------------------- journal


class Journal:
    """JSON lines, one record per finished run; the last record for a key wins."""

    def __init__(self, directory: Path, name: str = "all") -> None:
        self.directory = directory
        self.path = directory / f"{name}.jsonl"
        self.lock = threading.Lock()

    def write(self, record: dict[str, Any]) -> None:
        with self.lock:
            self.directory.mkdir(parents=True, exist_ok=True)
            with open(self.path, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(record, sort_keys=True) + "\n")
                fh.flush()
                os.fsync(fh.fileno())


def load_journals(directory: Path, fp: str) -> dict[str, dict[str, Any]]:
    """Every record for fingerprint ``fp`` in every journal of ``directory``, by mutant id.

    A line cut short by a kill is skipped; between journals a finished record beats a partial one.
    """
    records: dict[str, dict[str, Any]] = {}
    if not directory.is_dir():
        return records
    for path in sorted(directory.glob("*.jsonl")):
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError:
                    continue
                if isinstance(rec, dict) and rec.get("fingerprint") == fp and "mutant" in rec:
                    records[rec["mutant"]] = rec
    return records


def _key(settings: Settings, mutant: Mutant, baseline: dict[str, Any], patch: Path | None) -> str:
    if patch is not None:
        from reports.extra import key

        return key(settings, patch.read_text(encoding="utf-8"),
                   [r["nodeid"] for r in baseline["tests"] if r["outcome"] == "passed"])
    nodeids = [r["nodeid"] for r in tests_for(mutant, baseline, settings.all_variants)]
    return named_key(settings.root, mutant.spec, nodeids,
                     settings_part(settings.selection, settings.profile, settings.all_variants))


def reuse_unchanged(directory: Path, pending: Sequence[Mutant], keys: dict[str, str], fp: str) -> list[dict[str, Any]]:
    """Records of earlier runs (any fingerprint) of the pending named mutants whose dependency key is unchanged,
    carried over to fingerprint ``fp``."""
    wanted = {(m.id, keys[m.id]) for m in pending}
    found: dict[str, dict[str, Any]] = {}
    for path in sorted(directory.glob("*.jsonl")) if directory.is_dir() else []:
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                with contextlib.suppress(json.JSONDecodeError, TypeError):
                    rec = json.loads(line)
                    if (rec.get("mutant"), rec.get("deps")) in wanted and rec.get("status"):
                        found[rec["mutant"]] = rec
    return [{**found[m.id], "fingerprint": fp} for m in pending if m.id in found]


# ----------------------------------------------------------------------------- subprocesses


try:
    _PRCTL = ctypes.CDLL(None, use_errno=True).prctl
except (OSError, AttributeError):  # not Linux
    _PRCTL = None


def _die_with_parent() -> None:
    """In the child: SIGKILL when the campaign dies (Linux), so a killed campaign leaves no runs behind."""
    if _PRCTL is not None:
        _PRCTL(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


_LIVE: set[subprocess.Popen[bytes]] = set()
_LIVE_LOCK = threading.Lock()


def kill_group(proc: subprocess.Popen[bytes], sig: int = signal.SIGKILL) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, sig)


def kill_all() -> None:
    """Kill every run still going (each is its own process group, started by this campaign)."""
    with _LIVE_LOCK:
        live = list(_LIVE)
    for proc in live:
        kill_group(proc)


@dataclass
class RunOutcome:
    rows: list[dict[str, Any]]
    returncode: int | None
    wall: float
    timed_out: bool
    stderr_tail: str
    started: float


PYTEST_ARGS = ("-q", "-p", "no:cacheprovider", "-p", "no:randomly", "-p", "reports.mutant_plugin")


def run_pytest(settings: Settings, args: Sequence[str], timeout: float | None) -> RunOutcome:
    """Run pytest with the recording plugin in a fresh process in its own group, killed at the timeout."""
    with tempfile.TemporaryDirectory(prefix="cm-run-") as tmp:
        results = Path(tmp) / "results.jsonl"
        log = Path(tmp) / "output.log"
        full = [*PYTEST_ARGS, f"--cm-results={results}", *args]
        started = time.time()
        returncode, timed_out = _run_process([settings.python, "-m", "pytest", *full], settings, log, timeout)
        wall = time.time() - started
        rows = read_rows(results)
        tail = log.read_text(encoding="utf-8", errors="replace")[-4000:] if log.exists() else ""
    return RunOutcome(rows, returncode, wall, timed_out, tail, started)


def _run_process(cmd: Sequence[str], settings: Settings, log: Path, timeout: float | None) -> tuple[int | None, bool]:
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, cwd=settings.root, env=settings.env(), stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True, preexec_fn=_die_with_parent)
        with _LIVE_LOCK:
            _LIVE.add(proc)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            kill_group(proc)
            proc.wait()
            return None, True
        finally:
            with _LIVE_LOCK:
                _LIVE.discard(proc)
    return proc.returncode, False


def read_rows(path: Path) -> list[dict[str, Any]]:
    """The finished tests' rows; a test started and never finished (the run was killed) has outcome ``running``."""
    rows: dict[str, dict[str, Any]] = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            with contextlib.suppress(json.JSONDecodeError):
                row = json.loads(line)
                if row.get("event") == "start":
                    rows[row["nodeid"]] = {"nodeid": row["nodeid"], "outcome": "running", "t": row["t"],
                                           "duration": 0.0}
                else:
                    rows[row["nodeid"]] = row
    return list(rows.values())


# ----------------------------------------------------------------------------- baseline and named mutants


def run_baseline(settings: Settings, fp: str) -> dict[str, Any]:
    run = run_pytest(settings, list(settings.selection), timeout=None)
    if run.returncode not in (0, 1) or not run.rows:
        raise CampaignError(f"the baseline run failed (pytest exit {run.returncode}):\n{run.stderr_tail}")
    measured = sum(r["duration"] for r in run.rows)
    return {"mutant": BASELINE, "fingerprint": fp, "kind": "baseline", "wall": round(run.wall, 3),
            "overhead": round(max(0.0, run.wall - measured), 3), "exit": run.returncode,
            "tests": run.rows, "finished": time.time()}


class CampaignError(Exception):
    """The campaign cannot go on (the baseline did not run)."""


def tests_for(mutant: Mutant, baseline: dict[str, Any], all_variants: bool) -> list[dict[str, Any]]:
    """The baseline rows a mutant runs: passed on the baseline, not reading the defect table itself (a named
    mutant is an edit of that table: such a test would kill every one of them by construction) and, unless
    ``all_variants``, looked up the mutant's variant (a test that never builds a strategy of that variant
    cannot see its switches)."""
    return [r for r in baseline["tests"] if r["outcome"] == "passed" and not r.get("reads_table")
            and (all_variants or mutant.variant in r.get("variants_used", (mutant.variant,)))]


def timeout_for(rows: Sequence[dict[str, Any]], baseline: dict[str, Any], settings: Settings) -> float:
    return settings.timeout_factor * (sum(r["duration"] for r in rows) + baseline["overhead"]) + settings.timeout_const


def run_named(mutant: Mutant, baseline: dict[str, Any], settings: Settings, fp: str) -> dict[str, Any]:
    """Run one named mutant; the journal record of its outcome."""
    rows = tests_for(mutant, baseline, settings.all_variants)
    record: dict[str, Any] = {"mutant": mutant.id, "fingerprint": fp, "kind": mutant.kind, "spec": mutant.spec,
                              "ran": len(rows), "all_variants": settings.all_variants, "finished": 0.0}
    if not rows:
        record.update(status="no-coverage", killed_by=[], failures={}, duration=0.0, finished=time.time())
        return record
    timeout = timeout_for(rows, baseline, settings)
    mutant_args = [*settings.selection, f"--cm-mutant={mutant.spec}"]
    run = _run_only(settings, [*mutant_args, "--cm-no-shrink", "--cm-quick-killers"], [r["nodeid"] for r in rows],
                    timeout)
    failed = [r for r in run.rows if r["outcome"] in ("failed", "error")]
    running = [r["nodeid"] for r in run.rows if r["outcome"] == "running"]
    shrink_started = time.time()
    shrunk = _shrink_one(settings, mutant_args, failed, baseline) if failed else {}
    shrink_seconds = time.time() - shrink_started
    if failed:
        status = "killed"
    elif run.timed_out:
        status = "timeout"
    elif run.returncode in (0, 5):
        status = "survived"
    else:
        status = "error"
    record.update(
        status=status, timed_out=run.timed_out, timeout=round(timeout, 1), exit=run.returncode,
        duration=round(run.wall + shrink_seconds, 3), shrink_seconds=round(shrink_seconds, 3),
        time_to_kill=round(min(r["t"] for r in failed) - run.started, 3) if failed else None,
        killed_by=[r["nodeid"] for r in failed],
        failures={r["nodeid"]: shrunk.get(r["nodeid"], r.get("text", "")) for r in failed},
        shrunk=sorted(shrunk),
        outcomes={r["nodeid"]: r["outcome"] for r in run.rows if r["outcome"] not in ("passed", "running")},
        timed_out_in=running[0] if run.timed_out and running else None,
        passed=sum(1 for r in run.rows if r["outcome"] == "passed"),
        slowest=[[r["nodeid"], round(r["duration"], 2)]
                 for r in sorted(run.rows, key=lambda r: -r["duration"])[:5] if r["duration"] >= 1.0],
        log_tail=run.stderr_tail if status == "error" else "", finished=time.time())
    return record


def _run_only(settings: Settings, args: list[str], nodeids: Sequence[str], timeout: float | None) -> RunOutcome:
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False, encoding="utf-8") as fh:
        fh.write("\n".join(nodeids) + "\n")
        only = fh.name
    try:
        return run_pytest(settings, [*args, f"--cm-only={only}"], timeout)
    finally:
        os.unlink(only)


def _shrink_one(settings: Settings, args: list[str], failed: list[dict[str, Any]],
                baseline: dict[str, Any]) -> dict[str, str]:
    """Run the quickest killing test that printed a Hypothesis example again, shrinking: its minimal example.

    Shrinking stops at ``settings.shrink_timeout`` seconds; the report then shows the example unshrunk.
    """
    durations = {r["nodeid"]: r["duration"] for r in baseline["tests"]}
    found = [r for r in failed if "Falsifying" in r.get("text", "") or "Failing test case" in r.get("text", "")]
    if not found:
        return {}
    nodeid = min(found, key=lambda r: durations.get(r["nodeid"], 0.0))["nodeid"]
    again = _run_only(settings, args, [nodeid], settings.shrink_timeout)
    texts = {r["nodeid"]: r.get("text", "") for r in again.rows if r["outcome"] in ("failed", "error")}
    return {nodeid: texts[nodeid]} if nodeid in texts else {}


class Progress:
    """A line per finished mutant on stderr: counts by status, elapsed time and an ETA."""

    def __init__(self, total: int, workers: int, stream: TextIO | None, label: str = "mutants") -> None:
        self.total, self.workers, self.stream, self.label = total, max(1, workers), stream, label
        self.done = 0
        self.counts: dict[str, int] = {}
        self.start = time.time()
        self.busy = 0.0

    def finished(self, mutant_id: str, record: dict[str, Any]) -> None:
        self.done += 1
        status = record["status"]
        self.counts[status] = self.counts.get(status, 0) + 1
        self.busy += record.get("duration", 0.0)
        if self.stream is None:
            return
        elapsed = time.time() - self.start
        left = self.total - self.done
        eta = (self.busy / self.done) * left / self.workers if self.done else 0.0
        counts = ", ".join(f"{k} {v}" for k, v in sorted(self.counts.items()))
        extra = f" by {len(record['killed_by'])} test(s)" if status == "killed" else ""
        self.stream.write(f"[{self.done}/{self.total} {self.label}] {mutant_id}: {status}{extra} "
                          f"({record.get('duration', 0):.1f}s) | {counts} | elapsed {fmt_time(elapsed)}, "
                          f"ETA {fmt_time(eta)}\n")
        self.stream.flush()


def fmt_time(seconds: float) -> str:
    seconds = max(0, round(seconds))
    return f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"


def journal_name(shard: tuple[int, int] | None) -> str:
    return "all" if shard is None else f"shard-{shard[0]}-of-{shard[1]}"


def ensure_baseline(settings: Settings, fp: str, journal: Journal, done: dict[str, dict[str, Any]]) -> dict[str, Any]:
    if BASELINE in done:
        return done[BASELINE]
    if settings.progress:
        settings.progress.write("baseline: running the selected tests on the unmutated code...\n")
        settings.progress.flush()
    baseline = run_baseline(settings, fp)
    journal.write(baseline)
    done[BASELINE] = baseline
    if settings.progress:
        counts: dict[str, int] = {}
        for r in baseline["tests"]:
            counts[r["outcome"]] = counts.get(r["outcome"], 0) + 1
        settings.progress.write(f"baseline: {len(baseline['tests'])} tests in {baseline['wall']:.1f}s "
                                f"({', '.join(f'{k} {v}' for k, v in sorted(counts.items()))})\n")
    return baseline


@contextlib.contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """In the main thread, SIGTERM and SIGHUP raise ``KeyboardInterrupt``: a campaign stopped by them kills its
    runs and removes their temp folders as Ctrl-C does (the handlers before are put back after)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt(f"stopped by {signal.Signals(signum).name}")

    previous = {sig: signal.signal(sig, interrupt) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def run_named_mutants(settings: Settings, mutants: Sequence[Mutant], *, shard: tuple[int, int] | None = None,
                      fp: str | None = None, on_record: Callable[[dict[str, Any]], None] | None = None,
                      deadline: float | None = None, patches: dict[str, Path] | None = None
                      ) -> dict[str, dict[str, Any]]:
    """Run the baseline (unless journaled) and every pending named mutant of the shard, in parallel.

    At ``deadline`` (a ``time.time()``) the runs still going are stopped and not journaled: the next
    campaign runs them. Returns every journaled record of the current fingerprint (all shards), by id.
    """
    with terminate_as_interrupt():
        return _run_named_mutants(settings, mutants, shard=shard, fp=fp, on_record=on_record, deadline=deadline,
                                  patches=patches or {})


def _run_named_mutants(settings: Settings, mutants: Sequence[Mutant], *, shard: tuple[int, int] | None,
                       fp: str | None, on_record: Callable[[dict[str, Any]], None] | None,
                       deadline: float | None, patches: dict[str, Path]) -> dict[str, dict[str, Any]]:
    fp = fp or fingerprint(settings)
    journal = Journal(settings.journal_dir, journal_name(shard))
    done = load_journals(settings.journal_dir, fp)
    baseline = ensure_baseline(settings, fp, journal, done)
    mine = in_shard([m.id for m in mutants], shard) if shard else [m.id for m in mutants]
    pending = [m for m in mutants if m.id in set(mine) and m.id not in done]
    if settings.progress and len(pending) < len(mine):
        settings.progress.write(f"resuming: {len(mine) - len(pending)} of {len(mine)} named mutants already "
                                "journaled\n")
    keys = {m.id: _key(settings, m, baseline, patches.get(m.id)) for m in pending}
    kept = reuse_unchanged(settings.journal_dir, pending, keys, fp)
    for rec in kept:
        journal.write(rec)
        done[rec["mutant"]] = rec
    if settings.progress and kept:
        rerun = [m.id for m in pending if m.id not in done]
        settings.progress.write(f"incremental: {len(kept)} named mutant(s) kept (their switch sites and tests are "
                                f"unchanged); {len(rerun)} re-run" + (f": {', '.join(rerun)}" if rerun else "") + "\n")
    pending = [m for m in pending if m.id not in done]
    progress = Progress(len(pending), settings.workers, settings.progress, "named mutants")
    workers = max(1, min(settings.workers, len(pending)))
    halted = threading.Event()

    def one(mutant: Mutant) -> dict[str, Any] | None:
        if halted.is_set():
            return None
        if mutant.id in patches:
            from reports.extra import run_extra

            return run_extra(mutant, patches[mutant.id], baseline, settings, fp)
        return {**run_named(mutant, baseline, settings, fp), "deps": keys[mutant.id]}

    def halt() -> None:
        halted.set()
        for fut in futures:
            fut.cancel()
        kill_all()

    if os.environ.get("CMHARNESS_NAMED_ENGINE") != "process":
        from reports.named_warm import run_warm

        warm = [m for m in pending if m.id not in patches]
        for record in run_warm(settings, warm, baseline, fp, deadline):
            record["deps"] = keys[record["mutant"]]
            journal.write(record)
            done[record["mutant"]] = record
            progress.finished(record["mutant"], record)
            if on_record:
                on_record(record)
        left = [m.id for m in warm if m.id not in done]
        if left and settings.progress:
            settings.progress.write(f"budget reached: {len(left)} named mutant(s) left for the next run\n")
        pending = [m for m in pending if m.id in patches]
        if left:
            return done
    pool = ThreadPoolExecutor(max_workers=workers)
    futures: dict[Any, Mutant] = {}
    try:
        futures = {pool.submit(one, m): m for m in pending}
        wait = None if deadline is None else max(0.0, deadline - time.time())
        try:
            for fut in as_completed(futures, timeout=wait):
                record = fut.result()
                if record is None:
                    continue
                journal.write(record)
                done[record["mutant"]] = record
                progress.finished(record["mutant"], record)
                if on_record:
                    on_record(record)
        except FuturesTimeout:
            if settings.progress:
                left = sum(1 for f in futures if not f.done())
                settings.progress.write(f"budget reached: {left} named mutant(s) left for the next run\n")
            halt()
    except BaseException:
        halt()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    return done


DEFAULT_BUDGET = 1800.0
#: The folders mutmut mutates: everything the tests test (a test of ``reference/`` can only be shown red by a
#: mutant there). ``--mutmut-paths`` narrows a run; results of other runs stay in the report.
MUTMUT_PATHS = ("strategies", "reference")
DEFAULT_MUTMUT_PATHS = MUTMUT_PATHS


def shard_argument(text: str) -> tuple[int, int]:
    """``--shard``: ``I/N`` with 1 <= I <= N."""
    try:
        return parse_shard(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def seconds_argument(text: str) -> float:
    """``--budget``: a finite number of seconds > 0."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"a budget is a finite number of seconds > 0, got {text!r}")
    return value


def workers_argument(text: str) -> int:
    """``--workers``: an integer >= 1."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"workers is an integer >= 1, got {text!r}")
    return value


def folder_argument(text: str) -> str:
    """``--out``: a folder, or a path where one can be made (not a regular file)."""
    path = Path(text)
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} exists and is not a folder")
    return text


def add_report_arguments(parser: Any) -> None:
    """The ``cmharness report`` options (here, so that building the parser does not import pandas)."""
    parser.add_argument("--shard", metavar="I/N", type=shard_argument,
                        help="run only the mutants of shard I of N (a stable slice)")
    parser.add_argument("--merge", action="store_true",
                        help="run nothing: build the report from every journal in the journal folder")
    parser.add_argument("--no-mutmut", action="store_true", help="leave mutmut's operator mutants out of this run")
    parser.add_argument("--mutmut-paths", nargs="+", choices=MUTMUT_PATHS, default=list(DEFAULT_MUTMUT_PATHS),
                        metavar="FOLDER", help=f"the folders mutmut mutates in this run, of {', '.join(MUTMUT_PATHS)} "
                                               f"(default: {' '.join(DEFAULT_MUTMUT_PATHS)}); results of earlier "
                                               "runs over other folders stay in the report")
    parser.add_argument("--budget", type=seconds_argument, default=DEFAULT_BUDGET, metavar="SECONDS",
                        help=f"wall-clock budget of the run; mutmut gets what the rest leaves (default "
                             f"{DEFAULT_BUDGET:.0f}); mutants it does not reach run next time")
    parser.add_argument("--workers", type=workers_argument, default=None,
                        help="parallel runs, at least 1 (default: the CPU count)")
    parser.add_argument("--all-variants", action="store_true",
                        help="run a mutant against the tests of every variant, not only its own")
    parser.add_argument("--out", type=folder_argument, default=None,
                        help="output folder, made when missing (default reports/out)")
    parser.add_argument("--extra-mutants", metavar="DIR", default=None,
                        help="also run each DIR/*.patch (a unified diff of the tree) as a mutant, with the named ones")
    parser.add_argument("--full", action="store_true",
                        help="a cold run: forget every journaled result and run everything again")
