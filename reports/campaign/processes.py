"""The campaign's subprocesses: pytest with the recording plugin, each in its own process group, killed at its
timeout, with the campaign, or on SIGTERM/SIGHUP as on Ctrl-C."""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from reports.campaign.protocol import CallsEvent, TestFinished, TestStarted, decode_result, read_lines
from reports.campaign.records import TestRow
from reports.campaign.settings import Settings
from reports.errors import CampaignError

try:
    _PRCTL = ctypes.CDLL(None, use_errno=True).prctl
except (OSError, AttributeError):  # not Linux
    _PRCTL = None


def _die_with_parent() -> None:
    """In the child: SIGKILL when the campaign dies (Linux), so a killed campaign leaves no runs behind."""
    if _PRCTL is not None:
        _PRCTL(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def spawn(cmd: Sequence[str], cwd: Path, env: Mapping[str, str], out: IO[bytes]) -> subprocess.Popen[bytes]:
    """A run of the campaign: its output to ``out``, no input, in a process group of its own (``kill_group``
    ends it and its children) that dies with the campaign."""
    return subprocess.Popen(
        cmd,
        cwd=cwd,
        env=env,
        stdout=out,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
        preexec_fn=_die_with_parent,
    )


def ended(proc: subprocess.Popen[bytes], seconds: float) -> bool:
    """Whether ``proc`` ends within ``seconds``, returning as soon as it does (a poll loop's wait)."""
    try:
        proc.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        return False
    return True


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
    rows: list[TestRow]  # the tests that finished
    running: list[str]  # the tests started and never finished (the run was killed)
    returncode: int | None
    wall: float
    timed_out: bool
    stderr_tail: str
    started: float
    #: With ``--cm-calls``: each finished test's calls, the shared calls and the modules instrumented (every process).
    calls: dict[str, tuple[str, ...]] = field(default_factory=dict)
    shared: frozenset[str] = frozenset()
    modules: frozenset[str] | None = None
    spawned: frozenset[str] = frozenset()  # the tests that started a Python process


#: The option that records which functions each test calls (``reports.campaign.plugins.call_recorder``): the
#: baseline's coverage, and what a named mutant's tests reach under it.
CALLS = "--cm-calls"
PYTEST_ARGS = ("-q", "-p", "no:cacheprovider", "-p", "no:randomly", "-p", "reports.campaign.plugins.mutant_plugin")


def run_pytest(
    settings: Settings, args: Sequence[str], timeout: float | None, env: Mapping[str, str] | None = None
) -> RunOutcome:
    """Run pytest with the recording plugin in a fresh process in its own group, killed at the timeout (``env``:
    variables added to the run's environment)."""
    with tempfile.TemporaryDirectory(prefix="cm-run-") as tmp:
        results = Path(tmp) / "results.jsonl"
        log = Path(tmp) / "output.log"
        full = [*PYTEST_ARGS, f"--cm-results={results}", *args]
        started = time.time()
        returncode, timed_out = run_process([settings.python, "-m", "pytest", *full], settings, log, timeout, env)
        wall = time.time() - started
        tests, events = read_results(results)
        tail = log.read_text(encoding="utf-8", errors="replace")[-4000:] if log.exists() else ""
    done = [t for t in tests if isinstance(t, TestFinished)]
    running = [t.nodeid for t in tests if isinstance(t, TestStarted)]
    calls = {t.row.nodeid: t.calls for t in done if t.calls is not None}
    shared = frozenset(f for e in events for f in e.shared)
    modules = [frozenset(e.modules) for e in events]
    instrumented = frozenset.intersection(*modules) if modules else None
    spawned = frozenset(t.row.nodeid for t in done if t.spawned)
    return RunOutcome(
        [t.row for t in done], running, returncode, wall, timed_out, tail, started, calls, shared, instrumented, spawned
    )


def run_process(
    cmd: Sequence[str], settings: Settings, log: Path, timeout: float | None, env: Mapping[str, str] | None = None
) -> tuple[int | None, bool]:
    with open(log, "wb") as out:
        proc = spawn(cmd, settings.root, {**settings.env(), **(env or {})}, out)
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


def run_failed(settings: Settings, what: str, returncode: int | None, output: str) -> CampaignError:
    """The error of a run the campaign cannot go on without: its last line of output, the rest kept in the state
    folder (``what``: the run, in words)."""
    log = settings.state_dir / (what.removeprefix("the ").replace(" ", "-") + "-failure.log")
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text(output, encoding="utf-8")
    last = next((line.strip() for line in reversed(output.splitlines()) if line.strip()), "no output")
    return CampaignError(f"{what} failed (exit {returncode}: {last[:200]}); its output is in {log}")


def read_results(path: Path) -> tuple[list[TestStarted | TestFinished], list[CallsEvent]]:
    """Each test's last line in a ``--cm-results`` file (a test started and never finished, the run was killed, is
    its ``TestStarted``), and each process's closing calls event."""
    tests: dict[str, TestStarted | TestFinished] = {}
    events: list[CallsEvent] = []
    for message in read_lines(path, decode_result)[0]:
        if isinstance(message, CallsEvent):
            events.append(message)
        elif isinstance(message, TestStarted):
            tests[message.nodeid] = message
        else:
            tests[message.row.nodeid] = message
    return list(tests.values()), events


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
