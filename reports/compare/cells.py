"""The cells of ``cmharness compare``: each compiled on both sides as a dry run, classified
(``reports.compare.classify``), and explained by the switches (defects and a newer line's behaviours) whose
flip alone, or with one other, makes the sides agree."""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TextIO

from invariants.properties import grace_limit
from invariants.reproduce import prepared
from reference.price import reference_price
from reference.scenario import Scenario, load_scenario, save_scenario, scenario_json
from reference.variant_names import MAIN, PR
from reports.compare import corpus
from reports.compare.classify import CellClass, Side, classify, detail, differences, side_of
from reports.progress_line import ProgressLine
from strategies.defects import Behaviour, Defect, Defects, parse_variant

DEFAULT_BASE, DEFAULT_HEAD = MAIN, PR
#: The most defects the greedy search switches together; with at most ``EXHAUSTIVE`` defects differing,
#: every subset is tried when it fails.
MAX_TOGETHER = 4
EXHAUSTIVE = 7


@dataclass(frozen=True)
class CellRecord:
    """One compared cell: where it sits, what each side did, its class, and what explains it."""

    id: str
    source: str
    template: str
    estimator: str
    mode: str
    carriers: str
    budget_label: str
    max_tokens: float
    base: str
    head: str
    base_kind: str
    head_kind: str
    cls: CellClass
    detail: str
    explained_by: tuple[str, ...]
    command: str

    def row(self) -> dict[str, Any]:
        return {
            "cell": self.id,
            "source": self.source,
            "template": self.template,
            "estimator": self.estimator,
            "mode": self.mode,
            "carriers": self.carriers,
            "budget": self.budget_label,
            "max_tokens": self.max_tokens,
            "class": self.cls.value,
            "detail": self.detail,
            "explained_by": ", ".join(self.explained_by) or "none alone",
            "base": self.base,
            "head": self.head,
            "base_kind": self.base_kind,
            "head_kind": self.head_kind,
            "command": self.command,
        }


@dataclass(frozen=True)
class Job:
    """A batch of cells for one worker: a grid point of the default corpus, or one scenario file."""

    base: str
    head: str
    seed: int
    size: int
    templates: int
    axes: corpus.Axes | None = None
    path: str | None = None
    only: str | None = None
    save_dir: str | None = None


# ----------------------------------------------------------------------------- one cell


#: What one side switches on: its defects and its line's behaviours.
Switch = Defect | Behaviour


def _flipped(side: Defects, flip: frozenset[Switch]) -> Defects:
    """``side`` with each switch of ``flip`` turned the other way (a defect or a behaviour)."""
    return Defects(
        side.active ^ frozenset(s for s in flip if isinstance(s, Defect)),
        side.behaviours ^ frozenset(s for s in flip if isinstance(s, Behaviour)),
    )


def outcome_side(scenario: Scenario, defects: Defects) -> Side:
    """Compile as a dry run (after the scenario's earlier compiles); its side alone (what attribution compares)."""
    strategy = prepared(scenario, defects).strategy
    try:
        return side_of(strategy.compile(scenario.budget, dry_run=True), None)
    except Exception as err:
        return side_of(None, err)


def run_side(scenario: Scenario, defects: Defects) -> tuple[Side, str, str]:
    """Compile as a dry run (after the scenario's earlier compiles); the side, a short description and its kind
    (``sent``, ``sent over`` when the reference price of what it sends is over the grace limit, or the error's
    type)."""
    ready = prepared(scenario, defects)
    strategy, store = ready.strategy, ready.store
    config, budget = scenario.config, scenario.budget
    try:
        result = strategy.compile(budget, dry_run=True)
    except Exception as err:
        side = side_of(None, err)
        where = f" at {side.item}" if side.item else ""
        split = dict(side.report)
        extra = f" (head {split['head_tokens']}, middle {split['middle_tokens']})" if "head_tokens" in split else ""
        return side, f"{type(err).__name__}{where}{extra}", type(err).__name__
    try:
        price = reference_price(result.entries, store, config)
    except Exception:  # a bad value the reference cannot price
        price = math.nan
    over = not price <= grace_limit(budget, config)
    text = f"sent {len(result.entries)} entries (charged {result.stats.total.tokens}, priced {price})"
    return side_of(result, None), text, "sent over" if over else "sent"


def distance(a: Side, b: Side) -> int:
    """How far two outcomes are apart: 0 when they agree, the differing report fields for refusals of one kind."""
    cls = classify(a, b)
    if not cls.differs:
        return 0
    if cls is CellClass.REFUSED_DIFFERENTLY:
        return len(differences(a, b))
    return 1 if cls is CellClass.DIFFERENT_BYTES else 100


def explain(scenario: Scenario, base: Defects, head: Defects, base_side: Side, head_side: Side) -> tuple[str, ...]:
    """The switches (defects and line behaviours) that differ between the sides and, switched alone on either
    side, make the two agree.

    When none does alone, a set is grown greedily on each side (each step the switch that brings it
    closest to the other side); if the set makes the two agree, it is the explanation, written ``A+B``.
    When that fails and few switches differ, the smallest subset that makes them agree is searched for.
    """
    differ: list[Switch] = [d for d in Defect if d in base.active ^ head.active]
    differ += [b for b in Behaviour if b in base.behaviours ^ head.behaviours]
    start = distance(base_side, head_side)

    def gap(which: str, flip: frozenset[Switch]) -> int:
        if which == "base":
            return distance(outcome_side(scenario, _flipped(base, flip)), head_side)
        return distance(base_side, outcome_side(scenario, _flipped(head, flip)))

    alone: dict[tuple[str, Switch], int] = {}
    for d in differ:
        alone[("base", d)] = gap("base", frozenset({d}))
        alone[("head", d)] = gap("head", frozenset({d})) if alone[("base", d)] else 0
    found = [d.name for d in differ if alone[("base", d)] == 0 or alone[("head", d)] == 0]
    if found:
        return tuple(found)
    for which in ("base", "head"):
        chosen: list[Switch] = []
        current = start
        steps = {d: alone[(which, d)] for d in differ}
        while steps and len(chosen) < MAX_TOGETHER:
            best = min(steps, key=lambda d: (steps[d], differ.index(d)))
            if steps[best] >= current:
                break
            chosen.append(best)
            current = steps.pop(best)
            if current == 0:
                return ("+".join(d.name for d in sorted(chosen, key=differ.index)),)
            steps = {d: gap(which, frozenset([*chosen, d])) for d in steps}
    if len(differ) <= EXHAUSTIVE:
        for size in range(2, len(differ) + 1):
            for subset in itertools.combinations(differ, size):
                if any(gap(which, frozenset(subset)) == 0 for which in ("base", "head")):
                    return ("+".join(d.name for d in subset),)
    return ()


def compare_cell(
    job: Job, cell_id: str, labels: tuple[str, str, str, str, str], scenario: Scenario, savable: bool
) -> CellRecord:
    base, head = parse_variant(job.base), parse_variant(job.head)
    b_side, b_text, b_kind = run_side(scenario, base)
    h_side, h_text, h_kind = run_side(scenario, head)
    cls = classify(b_side, h_side)
    explained: tuple[str, ...] = ()
    command = ""
    if cls.differs:
        explained = explain(scenario, base, head, b_side, h_side)
        command = reproduce_command(job, cell_id, savable)
        if job.save_dir and savable:
            path = Path(job.save_dir) / cell_file(cell_id)
            note = (
                f"compare cell {cell_id}: {cls.value} ({detail(b_side, h_side)}); base {job.base}: {b_text}; "
                f"head {job.head}: {h_text}; explained by {', '.join(explained) or 'no defect alone'}"
            )
            save_scenario(replace(scenario, description=note, source=None, expect={}), path)
    return CellRecord(
        cell_id,
        job.path or "corpus",
        *labels,
        scenario.budget.max_tokens,
        b_text,
        h_text,
        b_kind,
        h_kind,
        cls,
        detail(b_side, h_side),
        explained,
        command,
    )


def cell_file(cell_id: str) -> str:
    return cell_id.replace("/", "_") + ".scenario.json"


def reproduce_command(job: Job, cell_id: str, savable: bool) -> str:
    if job.save_dir and savable:
        path = Path(job.save_dir) / cell_file(cell_id)
        return f"cmharness check {path} --variant {job.base} --variant {job.head} --explain"
    if job.path is not None:
        return f"cmharness check {job.path} --variant {job.base} --variant {job.head} --explain"
    return (
        f"cmharness compare --base {job.base} --head {job.head} --seed {job.seed} --size {job.size} "
        f"--templates {job.templates} --cell {cell_id}"
    )


def run_job(job: Job) -> list[CellRecord]:
    """Every cell of one job (the unit a worker process runs)."""
    if job.path is not None:
        scenario = load_corpus_file(job.path)
        cid = Path(job.path).name
        if job.only and not cid.startswith(job.only):
            return []
        return [
            compare_cell(
                job,
                cid,
                ("file", "-", "positioned" if scenario.config.positioned_recall_pairs else "combined", "-", "file"),
                scenario,
                True,
            )
        ]
    assert job.axes is not None
    out = []
    for cell in corpus.cells(job.seed, job.size, job.axes):
        if job.only and not cell.id.startswith(job.only):
            continue
        ax = cell.axes
        out.append(
            compare_cell(
                job,
                cell.id,
                (f"t{ax.template}", ax.estimator, ax.mode, ax.carriers, cell.budget_label),
                Scenario(cell.store, cell.config, cell.budget, None),
                ax.estimator != "custom",
            )
        )
    return out


# ----------------------------------------------------------------------------- the run


#: Top-level keys of a scenario file that say what is expected of it or where it comes from, not what it
#: compiles; ``compare`` drops them before reading (the scenario loader may not know them).
NOT_COMPILED = ("expect", "source", "$schema")


def load_corpus_file(path: str) -> Scenario:
    """A scenario file of a ``--corpus`` folder, its expectations and provenance left out."""
    raw = scenario_json(Path(path).read_text(encoding="utf-8"))
    if isinstance(raw, dict):
        raw = {k: v for k, v in raw.items() if k not in NOT_COMPILED}
    return load_scenario(raw)


def run_all(todo: Sequence[Job], workers: int, progress: TextIO | None) -> tuple[list[CellRecord], float]:
    started = time.monotonic()
    total = sum(1 if j.path else len(corpus.BUDGETS) for j in todo)
    records: list[CellRecord] = []
    line = ProgressLine(progress)

    def tick(batch: Iterable[CellRecord]) -> None:
        records.extend(batch)
        state = f"compare: {len(records)}/{total} cells, {time.monotonic() - started:.1f}s"
        if len(records) < total:
            line.show(state)
        else:
            line.close(state)

    if workers <= 1 or len(todo) <= 1:
        for j in todo:
            tick(run_job(j))
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for batch in pool.map(run_job, todo, chunksize=1):
                tick(batch)
    return records, time.monotonic() - started
