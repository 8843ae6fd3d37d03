"""A campaign stopped by a signal (issue 6): it removes its temp folders, leaves the source tree unchanged, and
no run outlives it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from campaign_helpers import FAKE_HASHED, make_project

from reports.campaign.fingerprint import hashed_files
from reports.campaign.settings import ROOT

pytestmark = pytest.mark.harness


def _hanging_campaign(root: Path, tmp: Path) -> subprocess.Popen:
    """A campaign over the fake project running its hanging mutant, its temp files under ``tmp``; started
    once the baseline is journaled and the hanging mutant's run has begun."""
    script = textwrap.dedent(f"""
        import signal, sys
        signal.signal(signal.SIGINT, signal.default_int_handler)  # Ctrl-C as in a terminal, even if started ignored
        sys.path[:0] = [{str(ROOT)!r}, {str(ROOT / "tests")!r}]
        from pathlib import Path
        from campaign_helpers import run_named_mutants
        from reports.campaign.settings import Settings
        from reports.campaign.named_mutants import Mutant
        s = Settings(root=Path({str(root)!r}), out=Path({str(root / "out")!r}), selection=("tests",),
                     workers=1, timeout_const=100, hashed={FAKE_HASHED!r}, progress=None)
        run_named_mutants(s, [Mutant("defect:HANGS", "defect", "sound", ("HANGS",), "")])
    """)
    tmp.mkdir(exist_ok=True)
    proc = subprocess.Popen(
        [sys.executable, "-c", script],
        cwd=root.parent,
        start_new_session=True,
        env={**os.environ, "TMPDIR": str(tmp)},
        stderr=subprocess.DEVNULL,
    )
    journal = root / "out" / "journal" / "all.jsonl"
    deadline = time.time() + 240  # upper bounds only: a machine running two suites may take minutes
    while not (journal.exists() and journal.read_text()) and time.time() < deadline:  # the baseline is in
        time.sleep(0.2)
    deadline = time.time() + 120
    while not list(tmp.glob("cm-*")) and time.time() < deadline:  # the hanging mutant's run (or warm session)
        time.sleep(0.1)
    time.sleep(1.0)
    return proc


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_stopped_campaign_removes_its_temp_folders(tmp_path, sig):
    """SIGTERM (as Ctrl-C) stops the runs and removes every ``cm-*`` folder the campaign made (a run's
    ``cm-run-*``, the warm session's ``cm-named-*``)."""
    root = make_project(tmp_path / "p")
    proc = _hanging_campaign(root, tmp_path / "tmp")
    assert list((tmp_path / "tmp").glob("cm-*")), "the hanging mutant's run did not start"
    os.kill(proc.pid, sig)
    assert proc.wait(timeout=120) != 0  # a loaded machine may take a while to stop every run
    assert not list((tmp_path / "tmp").glob("cm-*"))
    assert not _processes_mentioning(str(root)), "a run outlived the stopped campaign"


def test_campaign_killed_leaves_the_source_tree_unchanged(tmp_path):
    root = make_project(tmp_path / "p")
    before = {f: f.read_bytes() for f in hashed_files(root, FAKE_HASHED)}
    proc = _hanging_campaign(root, tmp_path / "tmp")  # a SIGKILL leaves its temp folder: under tmp_path
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    time.sleep(0.5)
    after = {f: f.read_bytes() for f in hashed_files(root, FAKE_HASHED)}
    assert after == before
    assert not _processes_mentioning(str(root)), "a run outlived the killed campaign"


def _processes_mentioning(text: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                cwd = os.readlink(entry / "cwd")
            except OSError:
                continue
            if text in cmdline or cwd.startswith(text):
                found.append(int(entry.name))
    return found
