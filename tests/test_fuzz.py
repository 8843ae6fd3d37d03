"""``cmharness fuzz``: bad option values, and a planted defect found by fuzz workers and replayed by ``pytest``.

The end-to-end test starts a real ``redis-server`` on loopback (skipped where none is installed; ``.ci/run``
installs it), runs two ``cmharness fuzz`` processes against it on ``sound`` with a planted defect, and checks
that a failure either found is replayed by a fresh ``pytest`` reading the same database, in the ``replay``
profile (only the inputs the database holds), while the same run on an empty database finds nothing.
"""

from __future__ import annotations

import contextlib
import io
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from reports.cli import main
from reports.fuzz.engine import TARGET_FILES, deal

pytestmark = pytest.mark.harness

ROOT = Path(__file__).resolve().parents[1]
#: A defect the invariants find within seconds of fuzzing; the replay profile needs the database to find it.
PLANTED = "sound+QUESTION_PRICED_AS_LABEL"
FAILED = re.compile(r"^\s*FAILED (\S+)", re.MULTILINE)


def _fuzz(*args: str) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = main(["fuzz", *args])
    return code, err.getvalue()


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize(
    "value, says",
    [
        ("redis://", "give both host and port"),
        ("redis://127.0.0.1", "give both host and port"),
        ("redis://127.0.0.1:port", "the port is not a number"),
        ("redis://127.0.0.1:99999", "the port is not a number"),
        ("redis://127.0.0.1:6379/x", "after the port only /DB"),
        ("http://127.0.0.1:6379", "unknown scheme 'http'"),
        ("", "an empty database value"),
        ("pyproject.toml", "is a file, not a folder"),
        ("CLOSED", "cannot reach the Redis server"),
    ],
)
def test_a_bad_database_is_one_line_and_exit_2(value: str, says: str) -> None:
    if value == "CLOSED":
        value = f"redis://127.0.0.1:{_closed_port()}"
    code, err = _fuzz("--database", str(ROOT / value) if value.endswith(".toml") else value, "--time", "1")
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("cmharness: error: "), err
    assert says in lines[0]


@pytest.mark.parametrize(
    "args, says",
    [
        (["--variant", "sound+NO_SUCH_DEFECT"], "unknown defect"),
        (["--variant", "sond"], "did you mean 'sound'"),
        (["--workers", "0"], "argument --workers: workers is an integer from 1 to"),
        (["--time", "-5"], "argument --time: seconds are a finite number > 0, got '-5'"),
        (["--tests", "tests/no_such_test.py"], "no such test file"),
    ],
)
def test_other_bad_values_are_one_line_and_exit_2(args: list[str], says: str, tmp_path: Path) -> None:
    code, err = _fuzz("--database", str(tmp_path / "db"), *args)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and says in lines[0], err


def test_targets_are_dealt_round_robin_and_shared_when_few() -> None:
    assert deal(["a", "b", "c"], 2) == [["a", "c"], ["b"]]
    assert deal(["a"], 2) == [["a"], ["a"]]


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    """A ``redis-server`` of its own on 127.0.0.1 and a free port, nothing saved to disk; stopped after."""
    server = shutil.which("redis-server")
    if server is None:
        pytest.skip("redis-server is not installed (apt-get install redis-server; .ci/run does)")
    port = _closed_port()
    proc = subprocess.Popen(
        [server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", tmp_path],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.5):
                break
            time.sleep(0.1)
        yield f"redis://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _replay(database: str, files: tuple[str, ...] = ("tests/test_invariants.py",)) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-q",
            "-rf",
            "--cm-profile",
            "replay",
            "--cm-database",
            database,
            "--cm-variant",
            PLANTED,
            *files,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_two_fuzz_processes_share_a_redis_database_and_pytest_replays_their_failure(redis_url: str) -> None:
    # Up to three minutes: the planted defect shows after about 500 cases (50 s alone); each stops at a failure.
    command = [sys.executable, "-m", "reports.cli", "fuzz", "--workers", "1", "--time", "180", "--stop-on-failure"]
    command += ["--database", f"{redis_url}/0", "--variant", PLANTED, "--tests", "tests/test_invariants.py"]
    workers = [subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)]
    workers.append(subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
    outputs = [w.communicate(timeout=300)[0] for w in workers]
    found = {nodeid for out in outputs for nodeid in FAILED.findall(out)}
    assert found, "neither fuzz process found the planted defect:\n" + "\n".join(outputs)
    assert all(w.returncode == 1 for w in workers), outputs  # each reads the failures the other saved, too

    replayed = _replay(f"{redis_url}/0")
    assert replayed.returncode == 1, replayed.stdout[-3000:]
    assert found <= set(FAILED.findall(replayed.stdout)), replayed.stdout[-3000:]
    assert "cmharness: the counterexample as a scenario file" in replayed.stdout

    empty = _replay(f"{redis_url}/1")  # the same server, another database: nothing to replay, nothing fails
    assert empty.returncode == 0, empty.stdout[-3000:]


@pytest.mark.slow
def test_a_minute_of_fuzzing_on_every_target_finds_a_planted_defect_and_pytest_replays_it(tmp_path: Path) -> None:
    database = str(tmp_path / "fuzz-db")
    command = [sys.executable, "-m", "reports.cli", "fuzz", "--workers", "2", "--time", "60"]
    done = subprocess.run(
        [*command, "--database", database, "--variant", PLANTED],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=200,
    )
    found = {nodeid for nodeid in FAILED.findall(done.stdout) if f"[{PLANTED}]" in nodeid}
    assert done.returncode == 1 and found, done.stdout + done.stderr
    replayed = _replay(database, TARGET_FILES)
    assert replayed.returncode == 1 and found <= set(FAILED.findall(replayed.stdout)), replayed.stdout[-3000:]
