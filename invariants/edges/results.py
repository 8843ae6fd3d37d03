"""What an edge search returns (``EdgeResult``, its witness records) and how it checks its own answers."""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from pydantic import JsonValue

EdgeStatus = Literal["found", "proved-empty"]
#: One witness: the values that show its edge, by the names the corpus writes (each edge has fields of its own,
#: read by that edge's scenario builder in ``invariants.edges.scenarios``).
Witness = Mapping[str, JsonValue]


@dataclass(frozen=True)
class CorpusEntry:
    """What the corpus keeps of one edge's search: everything but the time it took."""

    status: EdgeStatus
    range_searched: str
    proofs: tuple[str, ...]
    witnesses: tuple[Witness, ...]


@dataclass(frozen=True)
class EdgeResult:
    """One search's answer: witnesses, or a proof (``proved-empty``) that none exists in the range.

    ``proofs`` lists the sub-questions Z3 proved empty along the way (e.g. "rate 2.9: no L").
    """

    edge: str
    status: EdgeStatus
    witnesses: tuple[Witness, ...]
    range_searched: str
    seconds: float
    proofs: tuple[str, ...] = ()

    def corpus_entry(self) -> CorpusEntry:
        """What the corpus keeps for this edge (everything but the time it took)."""
        return CorpusEntry(self.status, self.range_searched, self.proofs, tuple(dict(w) for w in self.witnesses))


def as_decimal(d: int, den: int) -> str:
    """``d / den`` as the decimal an operator writes (``den`` = 2**a 5**b): ``as_decimal(7, 20) == "0.35"``."""
    value, places = Fraction(d, den), 0
    while value.denominator != 1:
        value, places = value * 10, places + 1
    digits = str(value.numerator).rjust(places + 1, "0")
    return f"{digits[:-places]}.{digits[-places:]}" if places else digits


def edge_result(
    edge: str, start: float, witnesses: Iterable[Witness], range_searched: str, proofs: Iterable[str] = ()
) -> EdgeResult:
    found = tuple(witnesses)
    return EdgeResult(
        edge,
        "found" if found else "proved-empty",
        found,
        range_searched,
        round(time.perf_counter() - start, 3),
        tuple(proofs),
    )


class EdgeEncodingError(AssertionError):
    """A witness of the integer encoding that the FP theory does not confirm: the encoding is wrong."""


def confirm(ok: bool, what: str) -> None:
    if not ok:
        raise EdgeEncodingError(what)
