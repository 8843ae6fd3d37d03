"""mutmut 3's operator mutants over ``strategies/`` and ``reference/``, run and read back, never reimplemented.

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
- ``reports.mutant_plugin`` (loaded through ``pytest_add_cli_args``) records the first failing test
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
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reports.campaign import (
    MUTMUT_PATHS,
    ROOT,
    Journal,
    Settings,
    _die_with_parent,
    fmt_time,
    hashed_files,
    kill_group,
    red_tests,
)
from reports.mutants import shard_of

INTERRUPTED = 2
STATUS_BY_EXIT: dict[int | None, str] = {
    1: "killed", 3: "killed", 0: "survived", 5: "no-coverage", 33: "no-coverage", 34: "skipped",
    36: "timeout", 24: "timeout", -24: "timeout", 152: "timeout", 255: "timeout", 37: "type-check",
}


def mutmut_status(code: int | None) -> str:
    if code is None or code == INTERRUPTED:
        return "pending"
    return STATUS_BY_EXIT.get(code, "error")


@dataclass
class MutmutResult:
    records: list[dict[str, Any]]
    names: list[str]
    pending: int
    ran: bool
    seconds: float
    note: str = ""
    #: Ctrl-C or SIGTERM stopped mutmut: what it finished is in ``records``, the caller re-raises.
    interrupted: bool = False


def mutmut_executable(python: str) -> str:
    candidate = Path(python).parent / "mutmut"
    if candidate.exists():
        return str(candidate)
    found = shutil.which("mutmut")
    if not found:
        raise FileNotFoundError("mutmut is not installed (pip install -e '.[mutation]')")
    return found


# ----------------------------------------------------------------------------- the work copy


def work_dir(settings: Settings) -> Path:
    return settings.mutmut_dir / "project"


def lay_work_copy(settings: Settings, fp: str) -> tuple[Path, dict[str, str | None]]:
    """The project's hashed files in the work folder: copied whole the first time, then brought up to date file
    by file, so that mutmut keeps the results of every function that did not change (it re-mutates a changed
    file and re-runs the mutants of its changed functions; ``reset_for_changed_tests`` does the tests' part)."""
    previous = sync_work_copy(settings)
    (work_dir(settings).parent / "fingerprint").write_text(fp + "\n")
    return work_dir(settings), previous


def sync_work_copy(settings: Settings) -> dict[str, str | None]:
    """Copy what changed into the work folder and drop what is gone; each changed path's previous text (None
    when the work folder had no such file)."""
    work = work_dir(settings)
    names = [*settings.hashed, "reports"]
    wanted = {f.relative_to(settings.root).as_posix(): f for f in hashed_files(settings.root, names)}
    wanted.update({f"reports/{f.name}": f for f in _harness_files(ROOT)})  # the harness's own, wherever it runs
    changed: dict[str, str | None] = {}
    for rel, f in sorted(wanted.items()):
        target = work / rel
        if target.exists() and target.read_bytes() == f.read_bytes():
            continue
        changed[rel] = target.read_text(encoding="utf-8", errors="replace") if target.exists() else None
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(f, target)  # the source's time: newer than mutmut's mutant of it, so mutmut re-mutates it
    tops = {Path(n).parts[0] for n in names}
    for path in sorted(work.rglob("*")) if work.is_dir() else []:
        rel = path.relative_to(work)
        if not path.is_file() or rel.parts[0] == "mutants" or rel.parts[0] not in tops or "__pycache__" in rel.parts:
            continue
        if rel.as_posix() not in wanted and not rel.as_posix().endswith((".pyc", ".log")):
            changed[rel.as_posix()] = path.read_text(encoding="utf-8", errors="replace")
            path.unlink()
            for stale in (work / "mutants" / rel, work / "mutants" / (rel.as_posix() + ".meta")):
                stale.unlink(missing_ok=True)
    return changed


def test_keys(settings: Settings, nodeids: Iterable[str]) -> dict[str, str]:
    from reports.deps import shared_key, test_key

    shared = shared_key(settings.root)
    return {n: test_key(settings.root, n, shared) for n in nodeids}


def reset_for_changed_tests(settings: Settings, work: Path) -> list[str]:
    """Make the mutants of every function a changed test covers pending again (mutmut keys its results by the
    function's source alone); the functions so reset."""
    stats_path = work / "mutants" / "mutmut-stats.json"
    keys_path = work.parent / "test-keys.json"
    if not stats_path.exists() or not keys_path.exists():
        return []
    tests_by_function = json.loads(stats_path.read_text(encoding="utf-8")).get("tests_by_mangled_function_name", {})
    old = json.loads(keys_path.read_text(encoding="utf-8"))
    new = test_keys(settings, old)
    changed = {n for n, k in old.items() if new.get(n) != k}
    functions = sorted(f for f, tests in tests_by_function.items() if changed & set(tests))
    if not functions:
        return []
    wanted = set(functions)
    for _source, (meta, data) in load_meta(work).items():
        codes = data.get("exit_code_by_key", {})
        hit = [k for k in codes if k.rsplit("__mutmut_", 1)[0] in wanted and codes[k] is not None]
        if hit:
            for k in hit:
                codes[k] = None
            meta.write_text(json.dumps(data, indent=4), encoding="utf-8")
    return functions


def save_test_keys(settings: Settings, work: Path) -> None:
    stats_path = work / "mutants" / "mutmut-stats.json"
    if stats_path.exists():
        stats = json.loads(stats_path.read_text(encoding="utf-8"))
        nodeids = {t for tests in stats.get("tests_by_mangled_function_name", {}).values() for t in tests}
        (work.parent / "test-keys.json").write_text(json.dumps(test_keys(settings, sorted(nodeids)), indent=0),
                                                    encoding="utf-8")


def changed_functions(work: Path, previous: dict[str, str | None]) -> list[str]:
    """The functions of the mutated folders whose source differs from the last run's (``module.name``)."""
    from reports.deps import function_sources

    out = []
    for rel, old in sorted(previous.items()):
        if not rel.endswith(".py") or rel.split("/", 1)[0] not in MUTMUT_PATHS or old is None:
            continue
        now = (work / rel).read_text(encoding="utf-8") if (work / rel).exists() else ""
        before, after = function_sources(old), function_sources(now)
        out += [f"{module_of(rel)}.{name}" for name in sorted(set(before) | set(after))
                if before.get(name) != after.get(name)]
    return out


def _harness_files(root: Path) -> list[Path]:
    """The reports package's own modules (the plugin imports them); the fingerprint leaves some out."""
    return sorted(p for p in (root / "reports").glob("*.py")) if (root / "reports").is_dir() else []


def modules(work: Path) -> list[str]:
    """The dotted names of the modules mutmut mutates (those with a function to mutate)."""
    out = []
    for top in MUTMUT_PATHS:
        for path in sorted((work / top).rglob("*.py")):
            if "def " in path.read_text(encoding="utf-8"):
                out.append(".".join(path.relative_to(work).with_suffix("").parts))
    return out


# ----------------------------------------------------------------------------- mutmut's results


def module_of(source: str) -> str:
    """``strategies/cap.py`` -> ``strategies.cap``."""
    return source[: -len(".py")].replace("/", ".")


def meta_files(work: Path) -> list[Path]:
    root = work / "mutants"
    return sorted(p for top in MUTMUT_PATHS for p in (root / top).rglob("*.py.meta")) if root.is_dir() else []


def load_meta(work: Path, repair: bool = False) -> dict[str, tuple[Path, dict[str, Any]]]:
    """Each mutated file's mutmut data by its source path.

    A file that does not parse is skipped; with ``repair`` (only while mutmut is not running: it
    writes these files in place) one that mutmut left half-written when it was killed is removed
    with its mutated module, so that mutmut makes both anew.
    """
    out = {}
    for meta in meta_files(work):
        source = meta.relative_to(work / "mutants").as_posix()[: -len(".meta")]
        try:
            data = json.loads(meta.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError):
            if repair:
                meta.unlink()
                with contextlib.suppress(FileNotFoundError):
                    (work / "mutants" / source).unlink()
            continue
        out[source] = (meta, data)
    return out


def reset_interrupted(work: Path) -> None:
    """Run while mutmut is not: mutmut records a mutant it was stopped in as 'interrupted by user'; make it
    pending again (and drop the files a kill left half-written)."""
    for source, (meta, data) in load_meta(work, repair=True).items():
        if not (work / "mutants" / source).exists():  # mutmut makes both anew
            meta.unlink()
            continue
        codes = data.get("exit_code_by_key", {})
        stale = [k for k, v in codes.items() if v == INTERRUPTED]
        if stale:
            for k in stale:
                codes[k] = None
            meta.write_text(json.dumps(data, indent=4), encoding="utf-8")


def killers(work: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    folder = work / "killers"
    if folder.is_dir():
        for path in sorted(folder.glob("*.jsonl")):
            for line in path.read_text(encoding="utf-8").splitlines():
                with contextlib.suppress(json.JSONDecodeError, KeyError):
                    rec = json.loads(line)
                    out[rec["mutant"]] = rec["test"]
    return out


# ----------------------------------------------------------------------------- running mutmut


def _pending_names(work: Path) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """(all mutant names, names without a result) by module."""
    every: dict[str, list[str]] = {}
    pending: dict[str, list[str]] = {}
    for source, (_, data) in load_meta(work).items():
        module = module_of(source)
        codes = data.get("exit_code_by_key", {})
        every[module] = list(codes)
        pending[module] = [k for k, v in codes.items() if mutmut_status(v) == "pending"]
    return every, pending


def progress_counts(work: Path, owned: Iterable[str]) -> dict[str, int]:
    """Mutants by status over the owned modules (those this run mutates)."""
    mine = set(owned)
    counts: dict[str, int] = {}
    for source, (_, data) in load_meta(work).items():
        if module_of(source) not in mine:
            continue
        for v in data.get("exit_code_by_key", {}).values():
            s = mutmut_status(v)
            counts[s] = counts.get(s, 0) + 1
    return counts


def run_mutmut(settings: Settings, fp: str, baseline: dict[str, Any], budget: float,
               shard: tuple[int, int] | None = None, paths: Sequence[str] = MUTMUT_PATHS,
               ahead: Any = None) -> MutmutResult:
    """Run (or resume) mutmut over the modules under ``paths`` for at most ``budget`` seconds; the records of
    every finished mutant of those modules. ``ahead`` (``reports.mutmut_exec.PreparedAhead``) prepared a cold
    work copy beside the baseline."""
    start = time.time()
    if ahead is not None:
        ahead.ok()  # the preparation beside the baseline has finished with the work copy
    warm = (work_dir(settings) / "mutants").is_dir() and ahead is None
    work, previous = lay_work_copy(settings, fp)
    reset_interrupted(work)
    touched = changed_functions(work, previous) if warm else []
    retest = reset_for_changed_tests(settings, work) if warm else []
    if warm and settings.progress is not None:
        settings.progress.write(
            f"incremental: mutmut re-runs the mutants of {len(touched)} changed function(s)"
            + (f" ({', '.join(touched[:8])}{', ...' if len(touched) > 8 else ''})" if touched else "")
            + f" and of {len(retest)} function(s) whose covering tests changed"
            + (f" ({', '.join(retest[:8])}{', ...' if len(retest) > 8 else ''})" if retest else "") + "\n")
    sources_changed = any(r.endswith(".py") and r.split("/", 1)[0] in MUTMUT_PATHS for r in previous)
    owned = [m for m in modules(work) if m.split(".", 1)[0] in paths
             and (shard is None or shard_of(m, shard[1]) == shard[0])]
    every, pending = _pending_names(work)
    known = all(m in every for m in owned)
    todo = [n for m in owned for n in pending.get(m, [])] if known else []
    ran = False
    interrupted = False
    note = ""
    if owned and (not known or todo or (warm and sources_changed)):
        if budget < 30:
            note = f"not run: only {max(budget, 0):.0f}s of the budget left; it runs next time"
        else:
            args: list[str] = []
            if shard is not None or set(paths) != set(MUTMUT_PATHS):  # name them: mutmut alone runs every module
                args = [n for m in owned if m in every for n in pending[m]]
                args += [f"{m}.*" for m in owned if m not in every]
            try:
                note = _invoke(settings, work, baseline, args, deadline=start + budget, owned=owned, ahead=ahead)
            except KeyboardInterrupt:
                note, interrupted = "interrupted; the pending mutants run next time", True
            ran = True
            reset_interrupted(work)
            save_test_keys(settings, work)
    every, pending = _pending_names(work)
    names = [n for m in owned for n in every.get(m, [])]
    records = collect(work, fp, {m for m in owned}, every)
    left = sum(len(pending.get(m, [])) for m in owned) + sum(1 for m in owned if m not in every)
    return MutmutResult(records, names, left, ran, time.time() - start, note, interrupted)


def read_selection(work: Path) -> list[str]:
    """mutmut's ``pytest_add_cli_args_test_selection`` from the work copy's pyproject.toml."""
    import tomllib

    data = tomllib.loads((work / "pyproject.toml").read_text(encoding="utf-8"))
    return list(data.get("tool", {}).get("mutmut", {}).get("pytest_add_cli_args_test_selection", ["tests/"]))


#: ``CMHARNESS_MUTMUT_ENGINE=mutmut`` runs the mutants with ``mutmut run`` itself (a fresh pytest session per
#: mutant), as a check on ``reports.executor`` and for measuring both.
ENGINE_ENV = "CMHARNESS_MUTMUT_ENGINE"


def _invoke(settings: Settings, work: Path, baseline: dict[str, Any], names: list[str], deadline: float,
            owned: Sequence[str], ahead: Any = None) -> str:
    if os.environ.get(ENGINE_ENV) != "mutmut":
        from reports.mutmut_exec import run_pending

        return run_pending(settings, work, baseline, deadline, owned, ahead)
    skip = work.parent / "skip.txt"
    skip.write_text("".join(t + "\n" for t in red_tests(baseline)), encoding="utf-8")
    env = settings.env()
    env.pop("PYTHONPATH", None)  # mutmut puts its mutants/ first; nothing may shadow it
    env["CMHARNESS_KILLERS"] = str(work / "killers")
    env["CMHARNESS_SKIP"] = str(skip)
    durations = work.parent / "durations.json"
    durations.write_text(json.dumps({r["nodeid"]: r["duration"] for r in baseline["tests"]}), encoding="utf-8")
    env["CMHARNESS_DURATIONS"] = str(durations)
    cmd = [mutmut_executable(settings.python), "run", "--max-children", str(max(1, settings.workers)), *names]
    log_path = work.parent / "mutmut.log"
    stream = settings.progress
    with open(log_path, "ab") as log:
        proc = subprocess.Popen(cmd, cwd=work, env=env, stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True,
                                preexec_fn=_die_with_parent)
        started = last = time.time()
        note = ""
        try:
            while proc.poll() is None:
                time.sleep(1.0)
                now = time.time()
                if now >= deadline:
                    note = "stopped at the end of its budget; the pending mutants run next time"
                    _stop(proc)
                    break
                if stream is not None and now - last >= 15:
                    last = now
                    counts = progress_counts(work, owned)
                    total = sum(counts.values())
                    done = total - counts.get("pending", 0)
                    shown = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()) if k != "pending")
                    stream.write(f"[mutmut {done}/{total}] {shown} | elapsed {fmt_time(now - started)}, "
                                 f"budget left {fmt_time(deadline - now)}\n")
                    stream.flush()
        except BaseException:
            _stop(proc)
            raise
    if proc.returncode not in (0, None) and not note:
        tail = log_path.read_text(encoding="utf-8", errors="replace")[-1500:]
        note = f"mutmut exited {proc.returncode}; see {log_path}: {tail.strip()[-300:]}"
        if stream is not None:
            stream.write(f"mutmut: {note}\n")
    return note


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """Interrupt mutmut (it stops its workers and keeps what it finished), then kill what is left."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(proc.pid, signal.SIGINT)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=20)
    kill_group(proc)
    proc.wait()


def collect(work: Path, fp: str, owned: set[str], every: dict[str, list[str]]) -> list[dict[str, Any]]:
    """Journal records for the finished mutants of the owned modules."""
    from reports.mutmut_describe import describe

    killed_by = killers(work)
    records = []
    for source, (_, data) in sorted(load_meta(work).items()):
        module = module_of(source)
        if module not in owned:
            continue
        codes = data.get("exit_code_by_key", {})
        finished = [k for k, v in codes.items() if mutmut_status(v) != "pending"]
        if not finished:
            continue
        info = describe(work, source, finished)
        for name in finished:
            status = mutmut_status(codes[name])
            killer = killed_by.get(name)
            records.append({"mutant": f"mutmut:{name}", "fingerprint": fp, "kind": "mutmut", "status": status,
                            "exit": codes[name], "duration": round(data.get("durations_by_key", {}).get(name, 0.0), 3),
                            "killed_by": [killer] if killer and status == "killed" else [],
                            **info[name]})
    return records


def journal_records(journal: Journal, records: list[dict[str, Any]], done: dict[str, dict[str, Any]]) -> int:
    """Write the records the journal does not hold yet (the same id and verdict); how many were new."""
    new = 0
    for rec in records:
        old = done.get(rec["mutant"])
        if old is not None and old.get("status") == rec["status"] and old.get("killed_by") == rec["killed_by"]:
            continue
        journal.write(rec)
        done[rec["mutant"]] = rec
        new += 1
    return new
