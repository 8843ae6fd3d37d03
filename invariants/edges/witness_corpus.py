"""The versioned witness corpus ``invariants/witnesses.json``: reading it, and writing search results into it."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from invariants.edges.results import EdgeResult
from invariants.edges.searches import EDGES

CORPUS_PATH = Path(__file__).parent.with_name("witnesses.json")
CORPUS_VERSION = 1


def corpus_json(results: Iterable[EdgeResult], base: dict[str, Any] | None = None) -> dict[str, Any]:
    """The corpus with these results' entries (over ``base``'s other edges, if given)."""
    edges = dict(base["edges"]) if base is not None else {}
    for r in results:
        edges[r.edge] = r.corpus_entry()
    return {
        "version": CORPUS_VERSION,
        "generated_by": "cmharness edges --write",
        "edges": {name: edges[name] for name in EDGES if name in edges},
    }


def load_corpus(path: Path | str | None = None) -> dict[str, Any]:
    """The witness corpus (default ``CORPUS_PATH``), refusing a version this code does not read."""
    path = CORPUS_PATH if path is None else path
    with open(path, encoding="utf-8") as fh:
        corpus = json.load(fh)
    if corpus.get("version") != CORPUS_VERSION:
        raise ValueError(f"{path}: witness corpus version {corpus.get('version')!r}, expected {CORPUS_VERSION}")
    return corpus


def write_corpus(results: Iterable[EdgeResult], path: Path | str | None = None) -> dict[str, Any]:
    """Write the results into the corpus (default ``CORPUS_PATH``), keeping the entries of edges not
    rerun; returns what was written."""
    path = CORPUS_PATH if path is None else path
    base = load_corpus(path) if Path(path).exists() else None
    corpus = corpus_json(results, base)
    Path(path).write_text(format_corpus(corpus), encoding="utf-8")
    return corpus


def format_corpus(corpus: dict[str, Any]) -> str:
    """The corpus as JSON text, one witness record a line (so that a diff shows what changed)."""

    def dumps(x: Any) -> str:
        return json.dumps(x, ensure_ascii=False)

    def block(items: Sequence[Any], indent: str) -> str:
        return ",\n".join(indent + dumps(x) for x in items)

    edges = []
    for name, entry in corpus["edges"].items():
        edges.append(
            f'  {dumps(name)}: {{\n   "status": {dumps(entry["status"])},\n'
            f'   "range_searched": {dumps(entry["range_searched"])},\n'
            f'   "proofs": [\n{block(entry["proofs"], "    ")}\n   ],\n'
            f'   "witnesses": [\n{block(entry["witnesses"], "    ")}\n   ]\n  }}'
        )
    return (
        f'{{\n "version": {dumps(corpus["version"])},\n "generated_by": {dumps(corpus["generated_by"])},\n'
        f' "edges": {{\n' + ",\n".join(edges) + "\n }\n}\n"
    )
