"""The output of ``cmharness compare``: the terminal table, JSON, CSV and markdown (pandas), and the plot."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from reports.compare.cells import CellRecord
from reports.compare.classify import SPLIT_ONLY, CellClass
from reports.compare.corpus import BUDGETS
from reports.errors import UsageError

if TYPE_CHECKING:
    import pandas as pd  # imported where used: see reports/__init__.py


def rows(records: Sequence[CellRecord]) -> pd.DataFrame:
    import pandas as pd

    return pd.DataFrame([r.row() for r in records])


def counts(records: Sequence[CellRecord]) -> dict[str, int]:
    return {c.value: sum(1 for r in records if r.cls is c) for c in CellClass}


def split_only(records: Sequence[CellRecord], estimator: str = "default", mode: str = "positioned") -> dict[str, int]:
    """Under one estimator and mode: how many cells differ, and how many only in the refusals' head/middle split."""
    picked = [r for r in records if r.estimator == estimator and r.mode == mode and r.cls.differs]
    split = sum(1 for r in picked if r.detail == SPLIT_ONLY)
    return {"differing": len(picked), "split_only": split}


def explanations(records: Sequence[CellRecord]) -> pd.DataFrame:
    import pandas as pd

    diff = rows([r for r in records if r.cls.differs])
    if diff.empty:
        return diff
    return pd.crosstab(diff["explained_by"], diff["class"])


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


def render_text(records: Sequence[CellRecord], args: argparse.Namespace, seconds: float) -> str:
    import pandas as pd

    lines = [header(records, args, seconds), ""]
    table = pd.DataFrame({"cells": counts(records)})
    table["share"] = (100 * table["cells"] / max(1, len(records))).round(1).astype(str) + "%"
    lines += table.to_string().splitlines()
    over = {side: sum(1 for r in records if getattr(r, f"{side}_kind") == "sent over") for side in ("base", "head")}
    lines += [
        "",
        f"sent over the grace limit (the reference price of what was sent): base {over['base']} cells, "
        f"head {over['head']} cells",
    ]
    diff = [r for r in records if r.cls.differs]
    if diff:
        by = rows(diff)
        lines += ["", "differing cells by estimator and mode:"]
        lines += pd.crosstab(by["class"], [by["estimator"], by["mode"]]).to_string().splitlines()
        lines += [
            "",
            "what explains them (a defect or line behaviour that, switched alone, makes the sides agree;"
            " A+B: only together):",
        ]
        lines += explanations(records).to_string().splitlines()
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


def render_json(records: Sequence[CellRecord], args: argparse.Namespace, seconds: float) -> str:
    doc = {
        "base": args.base,
        "head": args.head,
        "cells": len(records),
        "seconds": round(seconds, 2),
        "workers": args.workers,
        "counts": counts(records),
        "default_positioned": split_only(records),
        "sent_over": {
            side: sum(1 for r in records if getattr(r, f"{side}_kind") == "sent over") for side in ("base", "head")
        },
        "differing": [r.row() for r in records if r.cls.differs],
    }
    return json.dumps(doc, indent=2, default=str) + "\n"


def write_tables(records: Sequence[CellRecord], out: Path, args: argparse.Namespace) -> None:
    """``cells.csv`` and ``cells.md`` (every differing cell) and ``summary.md`` (the counts and explanations)."""
    import pandas as pd

    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise UsageError(f"--out {out}: {err.strerror or err}") from err
    diff = rows([r for r in records if r.cls.differs])
    diff.to_csv(out / "cells.csv", index=False)
    (out / "cells.md").write_text(
        (diff.to_markdown(index=False) if not diff.empty else "no differing cell") + "\n", encoding="utf-8"
    )
    table = pd.DataFrame({"cells": counts(records)})
    summary = [f"# compare {args.base} -> {args.head}", "", table.to_markdown(), ""]
    if not diff.empty:
        summary += ["## What explains the differing cells", "", explanations(records).to_markdown(), ""]
    (out / "summary.md").write_text("\n".join(summary), encoding="utf-8")


def plot(records: Sequence[CellRecord], path: Path, base: str, head: str) -> None:
    """Outcomes by budget for both sides: one panel per side, stacked bars of sent and each refusal."""
    import pandas as pd

    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as err:
        raise UsageError("--plot needs matplotlib (pip install 'cmharness[plot]')") from err
    df = rows(records)
    if df.empty:
        raise UsageError("--plot: no cells to plot")
    order = [b for b in BUDGETS if b in set(df["budget"])] + sorted(set(df["budget"]) - set(BUDGETS))
    long = pd.concat(
        [
            pd.DataFrame(
                {
                    "budget": [r.budget_label for r in records],
                    "side": f"base {base}",
                    "outcome": [r.base_kind for r in records],
                }
            ),
            pd.DataFrame(
                {
                    "budget": [r.budget_label for r in records],
                    "side": f"head {head}",
                    "outcome": [r.head_kind for r in records],
                }
            ),
        ]
    )
    kinds = [k for k in ("sent", "sent over") if k in set(long["outcome"])]
    kinds += sorted(set(long["outcome"]) - {"sent", "sent over"})
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.5), sharey=True)
    for ax, side in zip(axes, [f"base {base}", f"head {head}"], strict=True):
        sub = long[long["side"] == side]
        table = pd.crosstab(sub["budget"], sub["outcome"]).reindex(index=order, columns=kinds, fill_value=0)
        table.plot.bar(stacked=True, ax=ax, width=0.8, legend=False)
        ax.set_title(side)
        ax.set_xlabel("budget (at the store's edges)")
        ax.set_ylabel("cells")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, title="outcome", loc="center right")
    fig.suptitle(f"outcomes by budget: {base} -> {head} ({len(records)} cells)")
    fig.tight_layout(rect=(0, 0, 0.86, 1))
    try:
        fig.savefig(path, format="png", dpi=100)
    except OSError as err:
        raise UsageError(f"--plot {path}: {err.strerror or err}") from err
    finally:
        plt.close(fig)
