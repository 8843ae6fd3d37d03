"""The versioned witness corpus ``invariants/witnesses.json``: reading it, and writing search results into it."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import JsonValue, TypeAdapter

from invariants.edges.results import CorpusEntry, EdgeResult
from invariants.edges.searches import EDGES
from invariants.json_files import read_json

CORPUS_PATH = Path(__file__).parent.with_name("witnesses.json")
CORPUS_VERSION = 1
GENERATED_BY = "cmharness edges --write"


@dataclass(frozen=True)
class WitnessCorpus:
    """The corpus: each edge's entry, in ``EDGES``' order."""

    edges: Mapping[str, CorpusEntry] = field(default_factory=dict)
    version: int = CORPUS_VERSION
    generated_by: str = GENERATED_BY


#: How the corpus file is read (every field checked; a witness is any JSON object).
_CORPUS_JSON = TypeAdapter(WitnessCorpus)


class CorpusError(ValueError):
    """The corpus file cannot be read: its path and the first thing wrong in it, in one line."""


def corpus_json(results: Iterable[EdgeResult], base: WitnessCorpus | None = None) -> WitnessCorpus:
    """The corpus with these results' entries (over ``base``'s other edges, if given)."""
    edges = dict(base.edges) if base is not None else {}
    for r in results:
        edges[r.edge] = r.corpus_entry()
    return WitnessCorpus({name: edges[name] for name in EDGES if name in edges})


def load_corpus(path: Path | str | None = None) -> WitnessCorpus:
    """The witness corpus (default ``CORPUS_PATH``), refusing a version this code does not read."""
    path = CORPUS_PATH if path is None else path
    try:
        corpus = read_json(_CORPUS_JSON, Path(path).read_bytes())
    except ValueError as err:
        raise CorpusError(f"{path}: {err}") from None
    if corpus.version != CORPUS_VERSION:
        raise CorpusError(f"{path}: witness corpus version {corpus.version!r}, expected {CORPUS_VERSION}")
    return corpus


def write_corpus(results: Iterable[EdgeResult], path: Path | str | None = None) -> WitnessCorpus:
    """Write the results into the corpus (default ``CORPUS_PATH``), keeping the entries of edges not
    rerun; returns what was written."""
    path = CORPUS_PATH if path is None else path
    base = load_corpus(path) if Path(path).exists() else None
    corpus = corpus_json(results, base)
    Path(path).write_text(format_corpus(corpus), encoding="utf-8")
    return corpus


def format_corpus(corpus: WitnessCorpus) -> str:
    """The corpus as JSON text, one witness record a line (so that a diff shows what changed)."""

    def dumps(x: JsonValue) -> str:
        return json.dumps(x, ensure_ascii=False)

    def block(items: Sequence[JsonValue], indent: str) -> str:
        return ",\n".join(indent + dumps(x) for x in items)

    edges = []
    for name, entry in corpus.edges.items():
        edges.append(
            f'  {dumps(name)}: {{\n   "status": {dumps(entry.status)},\n'
            f'   "range_searched": {dumps(entry.range_searched)},\n'
            f'   "proofs": [\n{block(entry.proofs, "    ")}\n   ],\n'
            f'   "witnesses": [\n{block([dict(w) for w in entry.witnesses], "    ")}\n   ]\n  }}'
        )
    return (
        f'{{\n "version": {dumps(corpus.version)},\n "generated_by": {dumps(corpus.generated_by)},\n'
        f' "edges": {{\n' + ",\n".join(edges) + "\n }\n}\n"
    )
