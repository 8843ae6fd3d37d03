"""A report's journal and ``cmharness compare``'s cells as pandas DataFrames, for the questions the report's tables
do not answer (which tests kill the most, which functions' mutants survive, what explains the differing cells).

``load(path)`` reads what ``cmharness report`` wrote (its ``--out`` folder, the journal folder in it, or one journal
file) and builds the report's model (``reports.render.report_model.build``) from it, as the report does; ``mutants``,
``kill_matrix`` and ``tests`` turn that model into frames. ``cells(folder)`` reads what ``cmharness compare
--save-cells`` wrote; ``cell_frame`` and ``class_counts`` are the frame and summary ``cmharness compare`` prints.
A path that holds no journal, or no saved cells, is a ``UsageError`` naming it (``python -m reports.frames PATH``:
one line, exit 2).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from invariants.properties import grace_limit
from reference.model import Budget, Config
from reference.scenario import ScenarioError
from reports.campaign.fingerprint import fingerprint as code_fingerprint
from reports.campaign.named_mutants import Mutant, named_mutants
from reports.campaign.records import BaselineRecord, Kind, MutantRecord, Record, Records, loads
from reports.campaign.settings import Settings
from reports.compare.cells import CellRecord, load_corpus_file
from reports.compare.classify import CellClass
from reports.compare.corpus import BUDGETS, CARRIERS, ESTIMATORS, MODES
from reports.errors import UsageError
from reports.exit_codes import Exit
from reports.render.compare import COLUMNS, ClassCounts
from reports.render.report_model import Report, build

if TYPE_CHECKING:
    import pandas as pd


def _pandas() -> ModuleType:
    """pandas, imported when a frame is built, never at module level: it loads numpy, collecting the suite imports
    this module (tests/test_frames.py), and once numpy is loaded Hypothesis saves and restores its random state
    around every example of the session (``test_collecting_the_suite_loads_no_numpy``)."""
    import pandas

    return pandas


def _numpy() -> ModuleType:
    """numpy, imported with pandas (whose dependency it is) when a frame is built, for the reason ``_pandas`` says."""
    import numpy

    return numpy


# ----------------------------------------------------------------------------- the journal


@dataclass(frozen=True)
class MutantLine:
    """A row of ``mutants``: one mutant, named or mutmut's (where it is: ``file``, ``function``, ``mutator`` and
    ``line``, where known)."""

    id: str
    kind: str
    status: str
    file: str | None
    function: str | None
    mutator: str | None
    line: int | None
    killers: tuple[str, ...]
    first_killer: str | None
    duration: float | None


@dataclass(frozen=True)
class SuiteLine:
    """A row of ``tests``: one test (node id) on the baseline, and its red-first witness or why it has none."""

    test: str
    base: str
    file: str
    variant: str | None
    outcome: str
    duration: float
    witness: str | None
    failure: str | None
    reason: str | None


@dataclass(frozen=True, eq=False)
class Frames:
    """A report's journal as three frames, with the fingerprint and journal they were read from."""

    fingerprint: str
    journal: Path
    mutants: pd.DataFrame
    kill_matrix: pd.DataFrame
    tests: pd.DataFrame


def journal_files(path: str | Path) -> list[Path]:
    """The journal files of ``path``: a report's output folder (its ``journal/``), a journal folder, or one file."""
    p = Path(path)
    if p.is_file():
        return [p]
    if not p.is_dir():
        raise UsageError(f"{path}: no such file or folder")
    for folder in (p / "journal", p):
        files = sorted(folder.glob("*.jsonl"))
        if files:
            return files
    raise UsageError(f"{path}: no journal in it (*.jsonl, here or in journal/: run cmharness report)")


def read_journal(files: Sequence[Path], path: str | Path) -> list[Record]:
    """Every record of ``path``'s journal ``files``, in order (a line cut short by a kill is skipped)."""
    records: list[Record] = []
    for f in files:
        try:
            with open(f, encoding="utf-8") as fh:
                records += [r for r in map(loads, fh) if r is not None]
        except (OSError, UnicodeError) as err:
            reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
            raise UsageError(f"{f}: cannot read: {reason}") from err
    if not records:
        raise UsageError(f"{path}: not a journal of cmharness report (no record in {', '.join(map(str, files))})")
    return records


def pick_fingerprint(records: Iterable[Record], path: str | Path, wanted: str | None = None) -> str:
    """The fingerprint to read: ``wanted``; else the code's, as ``cmharness report`` computes it, when the journal
    has its baseline; else the one of the baseline that finished last (the code changed since the report)."""
    baselines = [r for r in records if isinstance(r, BaselineRecord)]
    known = list(dict.fromkeys(b.fingerprint for b in baselines))
    if wanted is not None:
        if wanted not in known:
            raise UsageError(f"{path}: no baseline for fingerprint {wanted} (journaled: {', '.join(known) or 'none'})")
        return wanted
    if not baselines:
        raise UsageError(f"{path}: the journal holds no baseline (run cmharness report)")
    code = code_fingerprint(Settings(progress=None))
    if code in known:
        return code
    return max(reversed(baselines), key=lambda b: b.finished).fingerprint


def mutants_of(records: Records) -> list[Mutant]:
    """The named mutants the report lists: the project's, then the journal's others (extra patches, and mutants
    the project no longer names), so that every journaled one has its row."""
    out = named_mutants()
    ids = {m.id for m in out}
    for rec in records.values():
        if isinstance(rec, MutantRecord) and rec.key not in ids:
            variant, *defects = rec.spec.split("+") if rec.kind != Kind.EXTRA and rec.spec else ("*",)
            out.append(Mutant(rec.key, rec.kind, variant, tuple(defects), ""))
    return out


def read(path: str | Path, fingerprint: str | None = None) -> tuple[Report, Path]:
    """The report's model built from ``path``'s journal (``fingerprint``'s records; see ``pick_fingerprint``),
    and the journal file or folder it was read from."""
    files = journal_files(path)
    every = read_journal(files, path)
    fp = pick_fingerprint(every, path, fingerprint)
    records = {r.key: r for r in every if r.fingerprint == fp}
    return build(records, fp, mutants_of(records)), Path(path) if Path(path).is_file() else files[0].parent


def load(path: str | Path, fingerprint: str | None = None) -> Frames:
    """What ``cmharness report`` wrote (its ``--out`` folder, the journal folder in it, or a journal file) as
    frames: ``mutants``, ``kill_matrix`` and ``tests``."""
    report, journal = read(path, fingerprint)
    return Frames(report.fp, journal, mutants(report), kill_matrix(report), tests(report))


def mutant_lines(report: Report) -> list[MutantLine]:
    """One line per mutant: the named ones in the report's order, then mutmut's by id."""
    out = []
    for n in report.named:
        where = report.extra_locations.get(n.id)
        out.append(
            MutantLine(
                n.id,
                n.kind.value,
                n.status.value,
                (where.file or None) if where is not None else None,
                None,
                None,
                where.line if where is not None else None,
                n.killed_by,
                n.killed_by[0] if n.killed_by else None,
                n.duration,
            )
        )
    for m in report.mutmut:
        c = m.change
        out.append(
            MutantLine(
                m.id,
                Kind.MUTMUT.value,
                m.status.value,
                m.file,
                c.function if c is not None else None,
                c.mutator if c is not None else None,
                m.line if c is not None else None,
                m.killed_by,
                m.killed_by[0] if m.killed_by else None,
                m.duration,
            )
        )
    return out


def mutants(report: Report) -> pd.DataFrame:
    """One row a mutant (index ``id``): kind, status, where (file, function, mutator, line), killers (every killing
    test the journal names; mutmut names only its first), first killer, duration (NaN: not run)."""
    pd = _pandas()
    frame = pd.DataFrame(mutant_lines(report), columns=list(MutantLine.__dataclass_fields__))
    return frame.astype({"line": "Int64", "duration": float}).set_index("id")


def kill_matrix(report: Report) -> pd.DataFrame:
    """Tests by mutants, True exactly where the journal names the test a killer of the mutant; the rows every test
    of the baseline and every killer, the columns every mutant, both sorted."""
    pd, np = _pandas(), _numpy()
    killers = {r.id: r.killed_by for r in (*report.named, *report.mutmut)}
    rows = sorted({r.nodeid for r in report.tests}.union(*killers.values()))
    columns = sorted(killers)
    row_of = {test: k for k, test in enumerate(rows)}
    cells = np.zeros((len(rows), len(columns)), dtype=bool)
    for k, mutant in enumerate(columns):
        cells[[row_of[test] for test in killers[mutant]], k] = True
    return pd.DataFrame(
        cells, index=pd.Index(rows, name="test", dtype=object), columns=pd.Index(columns, name="mutant", dtype=object)
    )


def suite_lines(report: Report) -> list[SuiteLine]:
    """One line per test of the baseline, in the baseline's order, with its base's witness or reason."""
    checks = report.checks
    out = []
    for t in report.tests:
        witness, failure = checks.witness.get(t.base, (None, None))
        out.append(
            SuiteLine(
                t.nodeid,
                t.base,
                t.file,
                t.variant,
                t.outcome.value,
                t.duration,
                witness,
                failure,
                checks.without.get(t.base),
            )
        )
    return out


def tests(report: Report) -> pd.DataFrame:
    """One row a test of the baseline (index ``test``, the node id): its base (without the variant), file, variant,
    baseline outcome and duration, and its red-first witness with the failure's first line, or the reason it has
    none (neither for a test that only skipped; a missing value is NA)."""
    pd = _pandas()
    return pd.DataFrame(suite_lines(report), columns=list(SuiteLine.__dataclass_fields__)).set_index("test")


# ----------------------------------------------------------------------------- compare's cells


def cell_frame(records: Sequence[CellRecord]) -> pd.DataFrame:
    """Compared cells, one row a cell in ``cells.csv``'s columns (``reports.render.compare.COLUMNS``)."""
    pd = _pandas()
    return pd.DataFrame([r.row() for r in records], columns=list(COLUMNS)).astype({"max_tokens": float})


def class_counts(frame: pd.DataFrame) -> ClassCounts:
    """The cells of each class (a group-by of ``frame``'s ``class``), every class in the seed's order."""
    sizes = frame.groupby("class").size()
    return ClassCounts(tuple((c, int(sizes.get(c.value, 0))) for c in CellClass))


def _one_of(words: Iterable[str]) -> str:
    return "|".join(re.escape(w) for w in words)


#: A saved cell's description, as ``reports.compare.cells.compare_cell`` writes it.
NOTE = re.compile(
    rf"compare cell (?P<cell>.+?): (?P<cls>{_one_of(c.value for c in CellClass)}) \((?P<detail>.*?)\); "
    r"base (?P<base_variant>\S+): (?P<base>.*?); head (?P<head_variant>\S+): (?P<head>.*); "
    r"explained by (?P<explained>[^;]*)",
    re.S,
)
#: A cell id of the default corpus: template, estimator, mode, carriers, budget.
CORPUS_ID = re.compile(rf"t\d+/({_one_of(ESTIMATORS)})/({_one_of(MODES)})/({_one_of(CARRIERS)})/({_one_of(BUDGETS)})")
SENT = re.compile(r"sent \d+ entries \(charged .*, priced (?P<price>\S+)\)")


def side_kind(text: str, budget: Budget, config: Config) -> str:
    """A side's kind from its description: ``sent``, ``sent over`` the grace limit, or the refusal's error."""
    sent = SENT.fullmatch(text)
    if sent is None:
        return text.split(" ", 1)[0]
    return "sent" if float(sent["price"]) <= grace_limit(budget, config) else "sent over"


def _saved_row(path: Path) -> dict[str, object]:
    """One saved cell's row, in ``COLUMNS`` and ``file``, ``base_variant``, ``head_variant``."""
    try:
        scenario = load_corpus_file(str(path))
    except ScenarioError as err:
        raise UsageError(f"{path}: {err}") from err
    except (OSError, UnicodeError) as err:
        reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        raise UsageError(f"{path}: cannot read: {reason}") from err
    note = NOTE.fullmatch(scenario.description or "")
    if note is None:
        raise UsageError(f"{path}: not a cell saved by cmharness compare --save-cells (no compare note)")
    cell = note["cell"]
    grid = CORPUS_ID.fullmatch(cell)
    if grid is not None:
        source, labels = "corpus", (cell.split("/", 1)[0], *grid.groups())
    else:  # a --corpus file: compare labels it as reports.compare.cells.run_job does
        mode = "positioned" if scenario.config.positioned_recall_pairs else "combined"
        source, labels = cell, ("file", "-", mode, "-", "file")
    explained = note["explained"]
    budget, config = scenario.budget, scenario.config
    sides = f"--variant {note['base_variant']} --variant {note['head_variant']}"
    return {
        "cell": cell,
        "source": source,
        **dict(zip(("template", "estimator", "mode", "carriers", "budget"), labels, strict=True)),
        "max_tokens": budget.max_tokens,
        "class": note["cls"],
        "detail": note["detail"],
        "explained_by": "none alone" if explained == "no defect alone" else explained,
        "base": note["base"],
        "head": note["head"],
        "base_kind": side_kind(note["base"], budget, config),
        "head_kind": side_kind(note["head"], budget, config),
        "command": f"cmharness check {path} {sides} --explain",
        "file": str(path),
        "base_variant": note["base_variant"],
        "head_variant": note["head_variant"],
    }


def cells(folder: str | Path) -> pd.DataFrame:
    """What ``cmharness compare --save-cells DIR`` wrote (every differing cell) as a frame, one row a cell by id: the
    columns of ``cells.csv`` (``source`` is ``corpus``, or the name of the ``--corpus`` file the cell came from),
    then the saved file and the two sides' variants. An empty folder is an empty frame (no cell differed)."""
    pd = _pandas()
    root = Path(folder)
    if not root.is_dir():
        raise UsageError(f"{folder}: not a folder of cells saved by cmharness compare --save-cells")
    files = sorted(root.glob("*.scenario.json"))
    if not files and any(root.iterdir()):
        raise UsageError(f"{folder}: no cell saved by cmharness compare --save-cells in it (*.scenario.json)")
    columns = [*COLUMNS, "file", "base_variant", "head_variant"]
    frame = pd.DataFrame([_saved_row(f) for f in files], columns=columns).astype({"max_tokens": float})
    return frame.sort_values("cell", kind="stable", ignore_index=True)


# ----------------------------------------------------------------------------- python -m reports.frames


def overview(path: str, fingerprint: str | None, saved_cells: bool) -> list[str]:
    """A few lines on what ``path`` holds: the frames' sizes, and the mutants' and cells' counts."""
    if saved_cells:
        frame = cells(path)
        by_class = frame.groupby("class").size()
        return [f"{path}: {len(frame)} saved cell(s)", *(f"  {c}: {n}" for c, n in by_class.items())]
    f = load(path, fingerprint)
    statuses = ", ".join(f"{s} {n}" for s, n in f.mutants.groupby("status").size().items())
    return [
        f"fingerprint {f.fingerprint}, journal {f.journal}",
        f"mutants: {len(f.mutants)} ({statuses})",
        f"tests: {len(f.tests)}, {f.tests['witness'].notna().sum()} with a witness",
        f"kill matrix: {f.kill_matrix.shape[0]} tests x {f.kill_matrix.shape[1]} mutants, "
        f"{int(f.kill_matrix.to_numpy().sum())} kill(s)",
    ]


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m reports.frames PATH [--fingerprint FP] [--cells]``: what the frames of PATH hold; a path that
    holds no journal (or no saved cells) is one line on stderr and exit 2."""
    parser = argparse.ArgumentParser(prog="python -m reports.frames", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "path",
        help="a report's --out folder, its journal folder or a journal file (or, with --cells, a --save-cells folder)",
    )
    parser.add_argument(
        "--fingerprint",
        metavar="FP",
        help="the journal's fingerprint to read (default: the code's, else the last baseline's)",
    )
    parser.add_argument("--cells", action="store_true", help="PATH is a folder cmharness compare --save-cells wrote")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else Exit.USAGE
    try:
        lines = overview(args.path, args.fingerprint, args.cells)
    except UsageError as err:
        print(f"{parser.prog}: error: {err}", file=sys.stderr)
        return Exit.USAGE
    print("\n".join(lines))
    return Exit.OK


if __name__ == "__main__":
    sys.exit(main())
