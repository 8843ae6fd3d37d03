"""How one cell of ``cmharness compare`` changed between two sides, in the seed's seven classes.

Pure: a side's outcome is reduced to a ``Side`` (the bytes it sent, or the refusal's kind and what it
reported), and ``classify`` compares two sides. "Refused the same way" means the same error with the
same report (item, refused ids, actual, every field of its diagnostics, the lost messages); otherwise two refusals
of one kind differ "at another item or reporting differently", and ``differences`` names the fields.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from enum import Enum

from strategies.errors import OverBudgetError, UncoveredDropError


class CellClass(Enum):
    """The seed's classes, in its order; the value is its wording."""

    SAME_BYTES = "both sent the same bytes"
    DIFFERENT_BYTES = "both sent different bytes"
    REFUSED_SAME = "both refused the same way"
    REFUSED_DIFFERENTLY = "both refused, at another item or reporting differently"
    BASE_SENT_HEAD_REFUSES = "base sent, head refuses"
    BASE_REFUSED_HEAD_SENDS = "base refused, head sends"
    OTHER_ERROR_KIND = "refused with the other kind of error"

    @property
    def differs(self) -> bool:
        return self not in (CellClass.SAME_BYTES, CellClass.REFUSED_SAME)


@dataclass(frozen=True)
class Side:
    """One side's outcome on a cell: the bytes sent, or the refusal (its type and report, field by field)."""

    sent: bool
    entries: str = ""
    error: str = ""
    report: tuple[tuple[str, str], ...] = ()

    @property
    def item(self) -> str:
        return dict(self.report).get("item", "")


#: The diagnostics a report lists first, in this order; every other field of ``Diagnostics`` follows in its own.
DIAGNOSTICS_FIRST = (
    "head_tokens",
    "middle_tokens",
    "tail_tokens",
    "middle_count",
    "middle_count_unit",
    "deepest_level",
)


def _shown(value: object) -> str:
    """A diagnostic as the report compares it: a set or a mapping in sorted order, anything else as its repr."""
    if isinstance(value, (set, frozenset)):
        return repr(sorted(value))
    if isinstance(value, Mapping):
        return repr(sorted(value.items()))
    return repr(value)


def side_of(result: object | None, error: BaseException | None) -> Side:
    """A compile's result (an object with ``entries``) or its exception as a ``Side``."""
    if error is None:
        return Side(True, entries=repr(result.entries))  # type: ignore[union-attr]
    if isinstance(error, OverBudgetError):
        d = error.diagnostics
        report = [
            ("item", error.item),
            ("refused", repr(error.refused)),
            ("actual", repr(error.actual)),
            ("budget", repr(error.budget)),
            ("stage", error.stage),
            *((f, _shown(getattr(d, f))) for f in DIAGNOSTICS_FIRST),
            *((f.name, _shown(getattr(d, f.name))) for f in fields(d) if f.name not in DIAGNOSTICS_FIRST),
        ]
    elif isinstance(error, UncoveredDropError):
        report = [("dropped", repr(error.dropped)), ("categories", repr(sorted(error.categories.items())))]
    else:
        report = []
    report.append(("message", str(error)))
    return Side(False, error=type(error).__name__, report=tuple(report))


def classify(base: Side, head: Side) -> CellClass:
    if base.sent and head.sent:
        return CellClass.SAME_BYTES if base.entries == head.entries else CellClass.DIFFERENT_BYTES
    if base.sent:
        return CellClass.BASE_SENT_HEAD_REFUSES
    if head.sent:
        return CellClass.BASE_REFUSED_HEAD_SENDS
    if base.error != head.error:
        return CellClass.OTHER_ERROR_KIND
    return CellClass.REFUSED_SAME if base.report == head.report else CellClass.REFUSED_DIFFERENTLY


#: The diagnostics of the head and middle split (the seed's "the refusals' head and middle split").
SPLIT = frozenset({"head_tokens", "middle_tokens"})
SPLIT_ONLY = "the head and middle split only"


def differences(base: Side, head: Side) -> tuple[str, ...]:
    """The report fields two refusals of one kind disagree on (the message left out: it repeats the others)."""
    a, b = dict(base.report), dict(head.report)
    return tuple(k for k in dict.fromkeys([*a, *b]) if k != "message" and a.get(k) != b.get(k))


def detail(base: Side, head: Side) -> str:
    """A short note on what differs: the fields of two refusals, or which side refused at what."""
    cls = classify(base, head)
    if cls is CellClass.REFUSED_DIFFERENTLY:
        diff = differences(base, head)
        if set(diff) <= SPLIT:
            return SPLIT_ONLY
        return "differs in " + ", ".join(diff)
    if cls is CellClass.BASE_SENT_HEAD_REFUSES:
        return f"head refuses with {head.error} at {head.item or '-'}"
    if cls is CellClass.BASE_REFUSED_HEAD_SENDS:
        return f"base refused with {base.error} at {base.item or '-'}"
    if cls is CellClass.OTHER_ERROR_KIND:
        return f"{base.error} at {base.item or '-'} became {head.error} at {head.item or '-'}"
    if cls is CellClass.DIFFERENT_BYTES:
        return "the entries sent differ"
    return ""
