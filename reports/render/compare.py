"""The output of ``cmharness compare``: the terminal table, JSON, CSV and markdown (``csv`` and ``tabulate``), and
the plot (matplotlib)."""

from __future__ import annotations

import argparse
import csv
import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tabulate import tabulate

from reports.compare.cells import CellRecord
from reports.compare.classify import SPLIT_ONLY, CellClass
from reports.compare.corpus import BUDGETS
from reports.errors import UsageError

#: The columns of ``cells.csv`` and ``cells.md``, in ``CellRecord.row``'s order.
COLUMNS = (
    *("cell", "source", "template", "estimator", "mode", "carriers", "budget", "max_tokens", "class", "detail"),
    *("explained_by", "base", "head", "base_kind", "head_kind", "command"),
)


@dataclass(frozen=True)
class ClassCounts:
    """The summary table: how many cells fell in each class, every class in the seed's order (zeros included);
    ``cmharness compare`` computes it from its frame of cells (``reports.frames.class_counts``)."""

    cells: tuple[tuple[CellClass, int], ...]

    def by_wording(self) -> dict[str, int]:
        return {c.value: n for c, n in self.cells}

    @property
    def total(self) -> int:
        return sum(n for _, n in self.cells)


@dataclass(frozen=True)
class CountTable:
    """Counts of records by a row key and a column key (a cross-tabulation): rows and columns sorted, each
    named (``row_name``; ``column_names``, one per part of a column key)."""

    row_name: str
    column_names: tuple[str, ...]
    rows: tuple[str, ...]
    columns: tuple[tuple[str, ...], ...]
    counts: dict[tuple[str, tuple[str, ...]], int]

    def cell(self, row: str, column: tuple[str, ...]) -> int:
        return self.counts.get((row, column), 0)


def crosstab(pairs: Sequence[tuple[str, tuple[str, ...]]], row_name: str, column_names: tuple[str, ...]) -> CountTable:
    counts = dict(Counter(pairs))
    return CountTable(
        row_name,
        column_names,
        tuple(sorted({r for r, _ in counts})),
        tuple(sorted({c for _, c in counts})),
        counts,
    )


def _adjoin(columns: Sequence[Sequence[str]]) -> list[str]:
    """Columns of equal length side by side, each left-justified to its widest string, one space apart."""
    widths = [max(len(x) for x in col) for col in columns]
    return [" ".join(col[k].ljust(w) for col, w in zip(columns, widths, strict=True)) for k in range(len(columns[0]))]


def _text_column(header: Sequence[str], values: Sequence[str]) -> list[str]:
    """A right-justified column: its header lines above its values, all as wide as the widest."""
    width = max(len(x) for x in (*header, *values))
    return [x.rjust(width) for x in (*header, *values)]


def count_lines(counts: dict[str, int], total: int) -> list[str]:
    """The counts by class with each one's share, as a plain-text table."""
    names = list(counts)
    index = [""] + [n.ljust(max(len(n) for n in names)) for n in names]
    cells = _text_column([" cells"], [f"{n: d}" for n in counts.values()])
    # a tenth of a percent rounded as numpy does (the tens, half to even)
    share = _text_column(["share"], [f" {round(1000 * n / max(1, total)) / 10}%" for n in counts.values()])
    return _adjoin([index, cells, share])


def table_lines(table: CountTable) -> list[str]:
    """A cross-tabulation as a plain-text table: the column names' lines, then the row name's, then the rows."""
    width = max(len(x) for x in (table.row_name, *table.rows))
    index = [*table.column_names, *(x.ljust(width) for x in (table.row_name, *table.rows))]
    multi = len(table.column_names) > 1
    columns = []
    for k, col in enumerate(table.columns):
        if multi:  # an outer part is shown once, over the first column it heads
            header = [p if k == 0 or table.columns[k - 1][: j + 1] != col[: j + 1] else "" for j, p in enumerate(col)]
        else:
            header = [" " + col[0]]
        columns.append(_text_column([*header, ""], [f"{table.cell(r, col): d}" for r in table.rows]))
    return _adjoin([index, *columns])


def table_markdown(table: CountTable) -> str:
    return tabulate(
        [[r, *(table.cell(r, c) for c in table.columns)] for r in table.rows],
        headers=[table.row_name, *(", ".join(c) for c in table.columns)],
        tablefmt="pipe",
    )


def rows(records: Sequence[CellRecord]) -> list[list[object]]:
    """The records' rows in ``COLUMNS``' order (``max_tokens`` as floats in every row once one is not whole)."""
    out = [[r.row()[c] for c in COLUMNS] for r in records]
    k = COLUMNS.index("max_tokens")
    if any(isinstance(row[k], float) for row in out):
        for row in out:
            row[k] = float(row[k])  # type: ignore[arg-type]
    return out


def split_only(records: Sequence[CellRecord], estimator: str = "default", mode: str = "positioned") -> dict[str, int]:
    """Under one estimator and mode: how many cells differ, and how many only in the refusals' head/middle split."""
    picked = [r for r in records if r.estimator == estimator and r.mode == mode and r.cls.differs]
    split = sum(1 for r in picked if r.detail == SPLIT_ONLY)
    return {"differing": len(picked), "split_only": split}


def explanations(records: Sequence[CellRecord]) -> CountTable:
    """The differing cells by what explains them and their class."""
    diff = [r for r in records if r.cls.differs]
    return crosstab([(r.row()["explained_by"], (r.cls.value,)) for r in diff], "explained_by", ("class",))


def header(records: Sequence[CellRecord], args: argparse.Namespace, seconds: float) -> str:
    where = (
        f"the default corpus ({args.templates} templates x 144 cells, seed {args.seed}, size {args.size})"
        if not args.corpus or args.with_default
        else ""
    )
    files = f"{len(args.corpus)} corpus folder(s)" if args.corpus else ""
    corpus = " and ".join(x for x in (where, files) if x)
    return (
        f"compare {args.base} -> {args.head}: {len(records)} cells from {corpus}, "
        f"{seconds:.1f}s on {args.workers} worker(s)"
    )


def render_text(records: Sequence[CellRecord], summary: ClassCounts, args: argparse.Namespace, seconds: float) -> str:
    lines = [header(records, args, seconds), ""]
    lines += count_lines(summary.by_wording(), summary.total)
    over = {side: sum(1 for r in records if getattr(r, f"{side}_kind") == "sent over") for side in ("base", "head")}
    lines += [
        "",
        f"sent over the grace limit (the reference price of what was sent): base {over['base']} cells, "
        f"head {over['head']} cells",
    ]
    diff = [r for r in records if r.cls.differs]
    if diff:
        lines += ["", "differing cells by estimator and mode:"]
        lines += table_lines(
            crosstab([(r.cls.value, (r.estimator, r.mode)) for r in diff], "class", ("estimator", "mode"))
        )
        lines += [
            "",
            "what explains them (a defect or line behaviour that, switched alone, makes the sides agree;"
            " A+B: only together):",
        ]
        lines += table_lines(explanations(records))
        so = split_only(records)
        lines += [
            "",
            f"default estimator, positioned: {so['differing']} differing cells, {so['split_only']} of them "
            "only in the refusals' head and middle split",
        ]
        new_bytes = [r for r in diff if r.cls is CellClass.DIFFERENT_BYTES]
        if new_bytes:
            lines += ["", f"{len(new_bytes)} cell(s) send different bytes on the two sides:"]
            lines += [
                f"  {r.id}: explained by {', '.join(r.explained_by) or 'no defect alone'}; {r.command}"
                for r in new_bytes
            ]
        shown = diff[: args.show]
        more = "; every one with --out DIR" if len(diff) > len(shown) else ""
        lines += ["", f"differing cells ({len(shown)} of {len(diff)}{more}):"]
        for r in shown:
            why = ", ".join(r.explained_by) or "none alone"
            lines.append(f"  {r.id}: {r.cls.value}; {r.detail}; explained by {why}")
            lines.append(f"    base {r.base} | head {r.head}")
            lines.append(f"    {r.command}")
    return "\n".join(lines) + "\n"


def render_json(records: Sequence[CellRecord], summary: ClassCounts, args: argparse.Namespace, seconds: float) -> str:
    doc = {
        "base": args.base,
        "head": args.head,
        "cells": len(records),
        "seconds": round(seconds, 2),
        "workers": args.workers,
        "counts": summary.by_wording(),
        "default_positioned": split_only(records),
        "sent_over": {
            side: sum(1 for r in records if getattr(r, f"{side}_kind") == "sent over") for side in ("base", "head")
        },
        "differing": [r.row() for r in records if r.cls.differs],
    }
    return json.dumps(doc, indent=2, default=str) + "\n"


def write_tables(records: Sequence[CellRecord], summary: ClassCounts, out: Path, args: argparse.Namespace) -> None:
    """``cells.csv`` and ``cells.md`` (every differing cell) and ``summary.md`` (the counts and explanations), in the
    folder ``out`` (made before the run, ``reports.cli.compare``)."""
    diff = rows([r for r in records if r.cls.differs])
    with open(out / "cells.csv", "w", encoding="utf-8", newline="") as fh:
        if diff:
            writer = csv.writer(fh, lineterminator="\n")
            writer.writerow(COLUMNS)
            writer.writerows(diff)
        else:
            fh.write("\n")
    (out / "cells.md").write_text(
        (tabulate(diff, headers=COLUMNS, tablefmt="pipe") if diff else "no differing cell") + "\n", encoding="utf-8"
    )
    table = tabulate([[c, n] for c, n in summary.by_wording().items()], headers=["", "cells"], tablefmt="pipe")
    page = [f"# compare {args.base} -> {args.head}", "", table, ""]
    if diff:
        page += ["## What explains the differing cells", "", table_markdown(explanations(records)), ""]
    (out / "summary.md").write_text("\n".join(page), encoding="utf-8")


def plot(records: Sequence[CellRecord], path: Path, base: str, head: str) -> None:
    """Outcomes by budget for both sides: one panel per side, stacked bars of sent and each refusal."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as err:
        raise UsageError("--plot needs matplotlib (pip install 'cmharness[plot]')") from err
    if not records:
        raise UsageError("--plot: no cells to plot")
    labels = {r.budget_label for r in records}
    order = [b for b in BUDGETS if b in labels] + sorted(labels - set(BUDGETS))
    sides = {
        f"base {base}": Counter((r.budget_label, r.base_kind) for r in records),
        f"head {head}": Counter((r.budget_label, r.head_kind) for r in records),
    }
    outcomes = {kind for side in sides.values() for _, kind in side}
    kinds = [k for k in ("sent", "sent over") if k in outcomes] + sorted(outcomes - {"sent", "sent over"})
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.5), sharey=True)
    for ax, (side, by) in zip(axes, sides.items(), strict=True):
        bottom = [0] * len(order)
        for kind in kinds:
            heights = [by[(b, kind)] for b in order]
            ax.bar(range(len(order)), heights, width=0.8, bottom=bottom, label=kind)
            bottom = [x + y for x, y in zip(bottom, heights, strict=True)]
        ax.set_xticks(range(len(order)), order, rotation=90)
        ax.set_title(side)
        ax.set_xlabel("budget (at the store's edges)")
        ax.set_ylabel("cells")
    handles, legend = axes[0].get_legend_handles_labels()
    fig.legend(handles, legend, title="outcome", loc="center right")
    fig.suptitle(f"outcomes by budget: {base} -> {head} ({len(records)} cells)")
    fig.tight_layout(rect=(0, 0, 0.86, 1))
    try:
        fig.savefig(path, format="png", dpi=100)
    except OSError as err:
        raise UsageError(f"--plot {path}: {err.strerror or err}") from err
    finally:
        plt.close(fig)
