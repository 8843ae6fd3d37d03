"""The copy of the project mutmut runs in (``.cmharness/mutmut/project/``): laid and brought up to date file by file,
the mutants of changed functions and of functions whose covering tests changed made pending again."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

from reports.campaign.dependency_keys import Coverage, digest, function_keys, shared_key, test_key
from reports.campaign.fingerprint import hashed_files
from reports.campaign.hints import committed_digest, function_of
from reports.campaign.mutation_scope import MUTMUT_PATHS, is_code, is_mutated, mutmut_config
from reports.campaign.mutmut.meta import load_meta, module_of, mutated_functions, tests_by_function, unmangled
from reports.campaign.mutmut.results import mutmut_status
from reports.campaign.records import Status
from reports.campaign.settings import ROOT, Settings


def work_dir(settings: Settings) -> Path:
    return settings.mutmut_dir / "project"


#: Present from a change of the work copy until mutmut has prepared it again: until then its ``mutants/`` copy, where
#: the mutants' and the witnesses' tests run, is stale (a new test is not even there to collect).
UNPREPARED = "unprepared"


def lay_work_copy(settings: Settings) -> tuple[Path, dict[str, str | None]]:
    """The project's hashed files in the work folder: copied whole the first time, then brought up to date file
    by file, so that mutmut keeps the results of every function that did not change (it re-mutates a changed
    file and re-runs the mutants of its changed functions; ``reset_for_changed_tests`` does the tests' part)."""
    previous = sync_work_copy(settings)
    work = work_dir(settings)
    if previous:  # something was copied or removed: the folders exist
        (work.parent / UNPREPARED).touch()
    return work, previous


def needs_preparing(work: Path) -> bool:
    """Whether the work copy changed since mutmut last prepared it."""
    return (work.parent / UNPREPARED).exists()


def mark_prepared(work: Path) -> None:
    """mutmut has prepared the work copy as it stands."""
    (work.parent / UNPREPARED).unlink(missing_ok=True)


def sync_work_copy(settings: Settings) -> dict[str, str | None]:
    """Copy what changed into the work folder and drop what is gone; each changed path's previous text (None
    when the work folder had no such file)."""
    work = work_dir(settings)
    names = [*settings.hashed, "reports"]
    wanted = {f.relative_to(settings.root).as_posix(): f for f in hashed_files(settings.root, names)}
    wanted.update(
        {f.relative_to(ROOT).as_posix(): f for f in _harness_files(ROOT)}
    )  # the harness's own, wherever it runs
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
    shared = shared_key(settings.root)
    return {n: test_key(settings.root, n, shared) for n in nodeids}


def reset_for_changed_tests(settings: Settings, work: Path) -> list[str]:
    """Make the mutants of every function a changed test covers pending again (mutmut keys its results by the
    function's source alone); the functions so reset."""
    covered = tests_by_function(work)
    keys_path = work.parent / "test-keys.json"
    if covered is None or not keys_path.exists():
        return []
    old = json.loads(keys_path.read_text(encoding="utf-8"))
    new = test_keys(settings, old)
    changed = {n for n, k in old.items() if new.get(n) != k}
    functions = sorted(f for f, tests in covered.items() if changed & set(tests))
    reopen(work, functions)
    return functions


def reopen(work: Path, functions: Iterable[str]) -> None:
    """Make every finished mutant of ``functions`` (mangled names) pending again."""
    wanted = set(functions)
    if wanted:
        _reopen(work, lambda key: function_of(key) in wanted)


def _reopen(work: Path, chosen: Callable[[str], bool]) -> list[str]:
    """Make every finished mutant whose key in mutmut's files is ``chosen`` pending again; their keys."""
    reopened: list[str] = []
    for _source, (meta, data) in load_meta(work).items():
        codes = data.get("exit_code_by_key", {})
        hit = [k for k in codes if codes[k] is not None and chosen(k)]
        if hit:
            for k in hit:
                codes[k] = None
            meta.write_text(json.dumps(data, indent=4), encoding="utf-8")
            reopened += hit
    return reopened


#: Each function's covering tests when its mutants' verdicts were given (a hash of the sorted node ids).
COVERING = "covering.json"


def covering_digests(covered: Mapping[str, Iterable[str]]) -> dict[str, str]:
    """Each mutated function's covering tests (``meta.tests_by_function``), hashed: what a verdict of its mutants was
    given against."""
    return {f: digest(*sorted(tests)) for f, tests in covered.items()}


def reopen_recovered(work: Path) -> list[str]:
    """The functions whose covering tests changed since their mutants' verdicts (a test added or gone: a cold run would
    run the new set, and may name another first killer or kill a survivor), their mutants pending again. A work copy
    with verdicts but no record of what they were given against reopens the functions of its survivors."""
    saved = work.parent / COVERING
    if saved.exists():
        before = json.loads(saved.read_text(encoding="utf-8"))
        now = covering_digests(tests_by_function(work) or {})
        changed = sorted(f for f, d in now.items() if f in before and before[f] != d)
    else:
        changed = sorted(
            {
                function_of(k)
                for _source, (_, data) in load_meta(work).items()
                for k, code in data.get("exit_code_by_key", {}).items()
                if mutmut_status(code) in (Status.SURVIVED, Status.NO_COVERAGE)
            }
        )
    reopen(work, changed)
    return changed


#: The tests each finished mutant ran under it (in order, up to its killer) and when its verdict was given.
RAN = "ran.json"


def _load_ran(path: Path) -> dict[str, tuple[float, list[str]]]:
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
        table = saved["tests"]
        return {k: (float(when), [table[i] for i in ix]) for k, (when, ix) in saved["mutants"].items()}
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return {}


def record_ran(work: Path, ran: Mapping[str, Sequence[str]], when: float) -> None:
    """Remember the tests each mutant (by its key in mutmut's files) ran under it, and when its verdict was given
    (``reopen_rerun`` reads them)."""
    path = work.parent / RAN
    saved = _load_ran(path)
    saved.update({key: (when, list(tests)) for key, tests in ran.items()})
    table = sorted({t for _, tests in saved.values() for t in tests})
    index = {t: i for i, t in enumerate(table)}
    mutants = {k: [when, [index[t] for t in tests]] for k, (when, tests) in sorted(saved.items())}
    path.write_text(json.dumps({"tests": table, "mutants": mutants}), encoding="utf-8")


def reopen_rerun(work: Path, again_at: Mapping[str, float]) -> list[str]:
    """The finished mutants one of whose tests ran again on the baseline after their verdicts (``again_at``: each
    test's baseline row, when it was run): the code that test calls changed since, so what it does under the mutant
    may have too (a cold run may name another first killer, or none). Pending again; their keys."""
    saved = _load_ran(work.parent / RAN)
    stale = {k for k, (when, tests) in saved.items() if any(again_at.get(t, 0.0) > when for t in tests)}
    return sorted(_reopen(work, stale.__contains__)) if stale else []


#: The committed hints the work copy's verdicts were given under (their digest, ``hints.committed_digest``).
ORDERED_BY = "hints-digest"


def reopen_for_new_hints(work: Path) -> list[str]:
    """Every function's finished mutants pending again when the committed hints changed since their verdicts were
    given, or the work copy does not say under which (the hints order a mutant's tests, so they name its first
    killer); the functions so reopened."""
    saved = work.parent / ORDERED_BY
    if saved.is_file() and saved.read_text(encoding="utf-8").strip() == committed_digest():
        return []
    functions = sorted(
        {
            function_of(k)
            for _source, (_, data) in load_meta(work).items()
            for k, code in data.get("exit_code_by_key", {}).items()
            if code is not None
        }
    )
    reopen(work, functions)
    return functions


def save_test_keys(settings: Settings, work: Path) -> None:
    """What the next run compares to find what changed: each covering test's key, each function's covering set, and
    the hints the verdicts were given under."""
    (work.parent / ORDERED_BY).write_text(committed_digest() + "\n", encoding="utf-8")
    covered = tests_by_function(work)
    (work.parent / COVERING).write_text(json.dumps(covering_digests(covered or {}), indent=0), encoding="utf-8")
    if covered is not None:
        nodeids = {t for tests in covered.values() for t in tests}
        (work.parent / "test-keys.json").write_text(
            json.dumps(test_keys(settings, sorted(nodeids)), indent=0), encoding="utf-8"
        )


def changed_functions(work: Path, previous: dict[str, str | None]) -> list[str]:
    """The functions of the mutated code whose code differs from the last run's (``module.name``; a comment or a
    docstring is no change; the harness's own files are not the mutated code)."""
    out = []
    sources = set(mutated_sources(work, previous))
    for rel, old in sorted(previous.items()):
        if rel not in sources or old is None:
            continue
        now = (work / rel).read_text(encoding="utf-8") if (work / rel).exists() else ""
        before, after = function_keys(old), function_keys(now)
        out += [
            f"{module_of(rel)}.{name}"
            for name in sorted(set(before) | set(after))
            if before.get(name) != after.get(name)
        ]
    return out


#: A mutated file's finished mutants: mutant key -> (mutmut's exit code, seconds, the key of the mutant's code).
Verdicts = dict[str, tuple[int, float, str]]


def verdicts(work: Path, sources: Iterable[str]) -> dict[str, Verdicts]:
    """The finished mutants of the mutated files ``sources``, with a key of each mutant's code (read before mutmut
    mutates them again)."""
    out: dict[str, Verdicts] = {}
    wanted = set(sources)
    for source, (_, data) in load_meta(work).items():
        if source not in wanted:
            continue
        codes = {k: c for k, c in data.get("exit_code_by_key", {}).items() if c is not None}
        if codes:
            keys = _mutant_keys(work / "mutants" / source)
            seconds = data.get("durations_by_key", {})
            out[source] = {k: (c, seconds.get(k, 0.0), keys.get(k.rsplit(".", 1)[-1], "")) for k, c in codes.items()}
    return out


def keep_verdicts(work: Path, before: dict[str, Verdicts]) -> int:
    """After mutmut mutated changed files again: each mutant whose code reads as it did (only a comment or a
    docstring of its function changed, which mutmut counts as a change) keeps its verdict; how many kept."""
    kept = 0
    for source, (meta, data) in load_meta(work).items():
        old = before.get(source, {})
        codes = data.get("exit_code_by_key", {})
        pending = [k for k, c in codes.items() if c is None and old.get(k, (0, 0.0, ""))[2]]
        if not pending:
            continue
        keys = _mutant_keys(work / "mutants" / source)
        same = [k for k in pending if keys.get(k.rsplit(".", 1)[-1]) == old[k][2]]
        for k in same:
            codes[k] = old[k][0]
            data.setdefault("durations_by_key", {})[k] = old[k][1]
        if same:
            meta.write_text(json.dumps(data, indent=4), encoding="utf-8")
            kept += len(same)
    return kept


def _mutant_keys(path: Path) -> dict[str, str]:
    """The key of each mutant function of a mutated module, by its generated name."""
    if not path.is_file():
        return {}
    keys = function_keys(path.read_text(encoding="utf-8"))
    return {name.rsplit(".", 1)[-1]: key for name, key in keys.items() if "__mutmut_" in name}


def canonical_stats(work: Path, coverage: Coverage) -> list[str]:
    """mutmut's per-function coverage made the baseline's (``coverage``): each function's covering tests are the
    tests of mutmut's selection that the baseline saw call it. mutmut credits a call to the test running when it was
    made, so a value computed once and read by many tests (a cache, a module's fixture) counts for whichever test came
    first, and after a change it measures again only some tests: its sets would depend on the order the tests ran in
    and on the runs before, the baseline's do not. A function whose calls the baseline could not see in a test (in a
    module it did not instrument, or shared: run at import, in a cached property) keeps mutmut's tests, with the
    baseline's added. The functions whose covering tests changed (mangled); whether their mutants run again is
    ``reopen_recovered``'s question."""
    path = work / "mutants" / "mutmut-stats.json"
    try:
        stats = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    covered = stats.setdefault("tests_by_mangled_function_name", {})
    selected = set(stats.get("duration_by_test", {}))
    functions = set(covered) | mutated_functions(work)
    changed = []
    for mangled in sorted(functions):
        name = unmangled(mangled)
        have = set(covered.get(mangled, ()))
        seen = set(coverage.tests_of.get(name, ())) & selected
        module = mangled.rpartition(".")[0].removesuffix(".__init__")
        unseen = name in coverage.shared or module not in coverage.modules
        now = have | seen if unseen else seen
        if now != have:
            covered[mangled] = sorted(now)
            changed.append(mangled)
    if changed:
        path.write_text(json.dumps(stats), encoding="utf-8")
    return changed


def _harness_files(root: Path) -> list[Path]:
    """The reports package's own modules (the plugin imports them); the fingerprint leaves some out."""
    return sorted(p for p in (root / "reports").rglob("*.py") if "__pycache__" not in p.parts)


def mutated_sources(work: Path, paths: Iterable[str]) -> list[str]:
    """Of ``paths`` (from the project root), the sources of the mutated code, whose change is a change of the code
    mutmut mutates: the Python files of the model's folders (``MODEL_PATHS``), and those of the tool's own folder that
    ``only_mutate`` names (the verdict rules); the rest of ``reports/`` (the campaign itself, the command line around
    the verdicts) is not, however often it changes."""
    config = mutmut_config(work)
    return [rel for rel in paths if is_code(rel, config)]


def modules(work: Path) -> list[str]:
    """The dotted names of the modules mutmut mutates (``is_mutated``) in the mutated folders, those with a function."""
    config = mutmut_config(work)
    out = []
    for top in MUTMUT_PATHS:
        for path in sorted((work / top).rglob("*.py")):
            rel = path.relative_to(work)
            if is_mutated(rel.as_posix(), config) and "def " in path.read_text(encoding="utf-8"):
                out.append(".".join(rel.with_suffix("").parts))
    return out


def read_selection(work: Path) -> list[str]:
    """mutmut's ``pytest_add_cli_args_test_selection`` from the work copy's pyproject.toml."""
    return list(mutmut_config(work).get("pytest_add_cli_args_test_selection", ["tests/"]))
