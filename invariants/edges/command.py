"""The ``cmharness edges`` command: run the searches, print a table, check or rewrite the witness corpus."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import TextIO

from invariants.edges import witness_corpus
from invariants.edges.results import EdgeResult, Witness
from invariants.edges.searches import EDGES, run_edges
from reference.names import one_of


def _short(edge: str, w: Witness) -> str:
    match edge:
        case "ieee-division":
            return f"ceil({w['length']} / {w['rate']}) = {w['double_ceil']}, exact {w['exact_ceil']}"
        case "js-round-half":
            return (
                f"{w['raw']} * {w['calibration_decimal']} = {w['product']!r}: "
                f"js {w['js_round']}, python {w['python_round']}"
            )
        case "epoch-predicate":
            return (
                f"Thinking({w['thinking_units']} units, signature {w['signature_units']}): "
                f"epoch 0 {w['price_epoch0']}, epoch 1 {w['price_epoch1']}"
            )
        case "grace-limit":
            return f"B {w['budget']}, g {w['grace_decimal']}: limit {w['double_limit']}, exact {w['exact_limit']}"
        case "cap-units":
            return (
                f"cap {w['cap']}, {w['length']} units: priced {w['faithful_price']}, sends {w['sent_tokens']}"
                if "length" in w
                else f"{w['kind']} cap {w['cap']}"
            )
        case "density-threshold":
            return f"{w['length']} units, {w['probe_dense']} dense: rate {w['rate']}, {w['tokens']} tokens"
    return json.dumps(w)[:60]


def edge_table(results: Sequence[EdgeResult]) -> list[str]:
    """The ``edges`` report: edge, found / proved empty, a short witness, seconds."""
    rows = [
        [
            r.edge,
            "found" if r.status == "found" else "proved empty",
            f"{_short(r.edge, r.witnesses[0])} (+{len(r.witnesses) - 1})" if r.witnesses else r.range_searched,
            f"{r.seconds:.2f}",
        ]
        for r in results
    ]
    headers = ["edge", "result", "witness", "seconds"]
    widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(headers)]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(
            c.rjust(w) if i == 3 else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    return [line(headers), line(["-" * w for w in widths]), *(line(row) for row in rows)]


def add_edges_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--write", action="store_true", help=f"rewrite the witness corpus ({witness_corpus.CORPUS_PATH.name})"
    )
    parser.add_argument(
        "--only",
        type=one_of("edge", EDGES),
        metavar="EDGE",
        action="append",
        help=f"run only this edge (repeatable): {', '.join(EDGES)}",
    )


def edges_command(args: argparse.Namespace, stdout: TextIO | None = None) -> int:
    """``cmharness edges [--write] [--only EDGE]``: run the searches, print the table, maybe write the corpus."""
    out = stdout if stdout is not None else sys.stdout
    results = run_edges(args.only)
    out.write("\n".join(edge_table(results)) + "\n")
    if args.write:
        witness_corpus.write_corpus(results)
        out.write(f"wrote {len(results)} edge(s) to {witness_corpus.CORPUS_PATH}\n")
    else:
        stored = witness_corpus.load_corpus().edges if witness_corpus.CORPUS_PATH.exists() else {}
        stale = [r.edge for r in results if stored.get(r.edge) != r.corpus_entry()]
        out.write(
            f"{witness_corpus.CORPUS_PATH.name}: "
            + (f"differs for {', '.join(stale)} (rewrite with --write)\n" if stale else "matches\n")
        )
    return 0
