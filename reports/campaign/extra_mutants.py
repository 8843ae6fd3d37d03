"""Extra mutants: unified diffs (``DIR/*.patch``), each applied to a copy of the tree and run like a named mutant.

``cmharness report --extra-mutants DIR`` runs them after the named mutants. Each patch is applied with
``git apply`` (``patch -p1`` where git is missing) to a fresh copy of the project's hashed files, and the
tests that passed on the baseline run there, example tests first (every failing one a killing test),
the property searches only while nothing has failed. A patch that does not apply is an ``error`` with
the reason. The id is ``extra:<file stem>``; the journal key is the patch, the files it touches and
the tests' sources, so an unchanged patch over unchanged code is not run again.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from reports.campaign.dependency_keys import digest, tests_key
from reports.campaign.fingerprint import hashed_files, walk
from reports.campaign.named_mutants import Mutant
from reports.campaign.records import FAILING, BaselineRecord, Kind, MutantRecord, Outcome, Status
from reports.campaign.runs import run_only, timeout_for
from reports.campaign.settings import Settings

_FILE = re.compile(r"^\+\+\+ (?:b/)?(\S+)", re.M)
_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)", re.M)


def extra_mutants(folder: Path) -> list[Mutant]:
    """One mutant per ``*.patch`` in ``folder``, in name order; its wording is the patch's first comment line."""
    return [
        Mutant(f"extra:{p.stem}", Kind.EXTRA, "*", (), describe(p.read_text(encoding="utf-8")))
        for p in sorted(folder.glob("*.patch"))
    ]


def describe(text: str) -> str:
    """The patch's own description: its first line before the diff, else the files it changes."""
    for line in text.splitlines():
        if line.startswith(("diff ", "--- ", "+++ ", "@@", "Index:")):
            break
        if line.strip():
            return line.strip().lstrip("#").strip()
    return "patch of " + ", ".join(touched(text))


def touched(text: str) -> list[str]:
    return list(dict.fromkeys(f for f in _FILE.findall(text) if f != "/dev/null"))


def not_a_patch(path: Path) -> str | None:
    """Why ``path`` cannot be an extra mutant at all (unreadable, or no unified diff in it), or None. A diff that no
    longer applies to the tree is a mutant all the same: the report shows it as an ``error`` with git's reason."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return f"cannot read: {exc}"
    if not touched(text) or not _HUNK.search(text):
        return "not a unified diff (no '+++ FILE' header with an '@@' hunk)"
    return None


def first_line(text: str) -> int:
    m = _HUNK.search(text)
    return int(m.group(1)) if m else 1


def key(settings: Settings, patch: str, nodeids: Sequence[str]) -> str:
    sources = [
        (settings.root / f).read_text(encoding="utf-8", errors="replace") if (settings.root / f).exists() else ""
        for f in touched(patch)
    ]
    return digest(patch, *sources, tests_key(settings.root, nodeids))


def apply_patch(patch: Path, tree: Path) -> str | None:
    """Apply ``patch`` inside ``tree``; None, or why it does not apply."""
    if shutil.which("git"):
        cmd = ["git", "apply", "--whitespace=nowarn", str(patch)]
    else:
        cmd = ["patch", "-p1", "--forward", "--batch", "-i", str(patch)]
    proc = subprocess.run(cmd, cwd=tree, capture_output=True, text=True)
    if proc.returncode:
        return (
            (proc.stderr or proc.stdout).strip().splitlines()[0]
            if (proc.stderr or proc.stdout).strip()
            else f"{cmd[0]} exited {proc.returncode}"
        )
    return None


def copy_tree(settings: Settings, into: Path) -> None:
    """The code under test and the harness's own modules (the child session loads its plugins from there)."""
    harness = [f for f in walk(settings.root, ["reports"]) if f.suffix == ".py"]
    for f in sorted({*hashed_files(settings.root, settings.hashed), *harness}):
        target = into / f.relative_to(settings.root)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(f, target)


def run_extra(mutant: Mutant, patch: Path, baseline: BaselineRecord, settings: Settings, fp: str) -> MutantRecord:
    """Run one patch; the journal record of its outcome."""
    text = patch.read_text(encoding="utf-8")
    rows = [r for r in baseline.tests if r.outcome == Outcome.PASSED]
    files = touched(text)
    record = MutantRecord(
        key=mutant.id,
        fingerprint=fp,
        kind=Kind.EXTRA,
        spec=f"patch:{patch.name}",
        ran=len(rows),
        status=Status.PENDING,
        finished=0.0,
        diff=text,
        file=files[0] if files else "",
        line=first_line(text),
        deps=key(settings, text, [r.nodeid for r in rows]),
    )
    started = time.time()
    with tempfile.TemporaryDirectory(prefix="cm-extra-") as tmp:
        tree = Path(tmp)
        copy_tree(settings, tree)
        problem = apply_patch(patch.resolve(), tree)
        if problem:
            return replace(record, status=Status.ERROR, reason=f"does not apply: {problem}", finished=time.time())
        local = replace(settings, root=tree)
        run = run_only(
            local,
            [*settings.selection, "--cm-no-shrink", "--cm-quick-killers"],
            [r.nodeid for r in rows],
            timeout_for(rows, baseline, settings),
        )
    failed = [r for r in run.rows if r.outcome in FAILING]
    status = (
        Status.KILLED
        if failed
        else Status.TIMEOUT
        if run.timed_out
        else Status.SURVIVED
        if run.returncode in (0, 5)
        else Status.ERROR
    )
    return replace(
        record,
        status=status,
        duration=round(time.time() - started, 3),
        exit=run.returncode,
        killed_by=tuple(r.nodeid for r in failed),
        failures={r.nodeid: r.text for r in failed},
        time_to_kill=round(min(r.t for r in failed) - run.started, 3) if failed else None,
        log_tail=run.stderr_tail if status == Status.ERROR else "",
        finished=time.time(),
    )
