"""A scenario's expectations against what each variant does: observe, compare field by field, export.

    verdicts = judge(scenario)            # one Verdict per variant named in scenario.expect
    expect = expect_from(scenario)        # what each variant did, as an ``expect`` section

A field is compared only when the expectation gives it; ``breaks`` must each break, ``holds``
means no invariant breaks. Numbers compare as the JavaScript numbers they are (NaN equals NaN).
"""

from __future__ import annotations

import contextlib
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, is_dataclass, replace

from invariants.properties import INVARIANTS, Violation, check
from invariants.properties.running import Variant
from reference.errors import UnknownNameError
from reference.expect import FAITHFUL, SEED_VARIANTS, Expectation, Refuses, Sends, expectation_for, variants_named
from reference.model import Entry, Image, Store, Text
from reference.names import unknown
from reference.numerics import is_number, js_number_string
from reference.scenario import Scenario, store_prefix
from strategies import HierarchicalStrategy, OverBudgetError, UncoveredDropError
from strategies.defects import Resumed
from strategies.errors import InvalidConfigError
from strategies.images import DROPPED_PLACEHOLDER, PLACEHOLDER

IMAGE_PLACEHOLDERS = (PLACEHOLDER, DROPPED_PLACEHOLDER)

__all__ = ["MISMATCH", "Line", "Observed", "Verdict", "expect_from", "judge", "observe", "site_of"]

#: The mark of an expectation line whose expected and actual values differ (``Verdict.explain``).
MISMATCH = "✗"


@dataclass(frozen=True)
class Observed:
    """What one variant did with a scenario, in the terms of an expectation (every field filled in)."""

    variant: str
    sends: Sends | None
    refuses: Refuses | None
    outcome: str
    violations: tuple[Violation, ...] | None = None

    @property
    def breaks(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(v.invariant for v in self.violations or ()))


def site_of(err: OverBudgetError) -> str:
    """Where a refusal happened, from the item it names (``strategies.emission``'s item names)."""
    if err.item.startswith("the combined recall pair"):
        return "combined-pair"
    if err.item.startswith("recall pair"):
        return "positioned-pair"
    return "head" if err.item.endswith("(head)") else "middle-raw"


def _refusal(err: OverBudgetError | UncoveredDropError | InvalidConfigError) -> Refuses:
    name = type(err).__name__
    if isinstance(err, OverBudgetError):
        d = err.diagnostics
        return Refuses(
            error=name,
            site=site_of(err),
            unit=d.middle_count_unit,
            cleared_by=tuple(sorted(d.cleared_by)),
            head_tokens=d.head_tokens,
            middle_tokens=d.middle_tokens,
            actual=err.actual,
            refused=tuple(err.refused),
            budget=err.budget,
            configured_budget=d.configured_budget,
            reserve_for_response=d.reserve_for_response,
            input_budget=d.input_budget,
            middle_count=d.middle_count,
            deepest_available_level=d.deepest_available_level,
            summary_counts_by_level=None if d.summary_counts_by_level is None else dict(d.summary_counts_by_level),
            message=str(err),
        )
    if isinstance(err, UncoveredDropError):
        return Refuses(error=name, dropped=tuple(err.dropped), categories=dict(err.categories))
    return Refuses(error=name, field=err.field)


@dataclass(frozen=True)
class Prepared:
    """A strategy after a scenario's earlier compiles (``compiles_before``), initialized on the store as they left
    it; that store; and what the judges compile (``variant``, or after earlier compiles its switches resumed from
    the watermark they left)."""

    strategy: HierarchicalStrategy
    store: Store
    judged: Variant


def prepared(scenario: Scenario, variant: Variant) -> Prepared:
    """What the scenario's own compile runs on and is judged on."""
    strategy = HierarchicalStrategy(scenario.config, variant)
    store = scenario.store
    for n in scenario.compiles_before:
        strategy.initialize(store_prefix(store, n))
        with contextlib.suppress(OverBudgetError, UncoveredDropError, InvalidConfigError):
            strategy.compile(scenario.budget, dry_run=True)  # a refusal leaves what it leaves (the watermark)
        store = _carried(store, strategy.store)
    strategy.initialize(store)
    judged = Resumed(strategy.defects, strategy.watermark) if scenario.compiles_before else variant
    return Prepared(strategy, store, judged)


def observe(scenario: Scenario, variant: str, *, invariants: bool = True) -> Observed:
    """Compile ``scenario`` on ``variant`` (a dry run) and, when asked, check every invariant on it."""
    ready = prepared(scenario, variant)
    strategy, store = ready.strategy, ready.store
    violations = tuple(check(store, scenario.config, scenario.budget, ready.judged)) if invariants else None
    try:
        result = strategy.compile(scenario.budget, dry_run=True)
    except (OverBudgetError, UncoveredDropError, InvalidConfigError) as err:
        return Observed(variant, None, _refusal(err), f"refuses: {type(err).__name__}: {err}", violations)
    except Exception as err:  # a crash is an outcome to report, not a reason to stop
        return Observed(variant, None, None, f"crashes: {type(err).__name__}: {err}", violations)
    entries = result.entries
    sends = Sends(
        entries=len(entries),
        total=result.stats.total.tokens,
        raw_ids=tuple(e.message_id for e in entries if e.kind == "raw" and e.message_id is not None),
        summaries=tuple(e.summary_ids for e in entries if e.kind == "answer"),
        images=images_sent(entries),
        content=tuple(e.content for e in entries),
    )
    return Observed(variant, sends, None, f"sends {len(entries)} entries, stats total {fmt(sends.total)}", violations)


def _carried(store: Store, held: Store | None) -> Store:
    """``store`` with its first messages as an earlier compile left them (a line that rewrites the store)."""
    if held is None or held.messages == store.messages[: len(held.messages)]:
        return store
    messages = held.messages + store.messages[len(held.messages) :]
    return Store(messages, store.summaries, store.calibration, store.pricing_epoch, store.text_estimator, store.work)


def images_sent(entries: Sequence[Entry]) -> str:
    """Per top-level image or image placeholder of the entries, in order: ``I`` sent live, ``.`` stripped."""
    marks = []
    for e in entries:
        for b in e.content:
            if isinstance(b, Image):
                marks.append("I")
            elif isinstance(b, Text) and b.text in IMAGE_PLACEHOLDERS:
                marks.append(".")
    return "".join(marks)


# ----------------------------------------------------------------------------- comparing


def fmt(value: object) -> str:
    """A value as a reader compares it: numbers as JavaScript writes them, lists as JSON-ish lists (a string inside
    quoted and escaped as JSON, a block as its type and fields), so that two values ``same`` tells apart read apart."""
    if value is None:
        return "-"
    return value if isinstance(value, str) else _shown(value)


def _shown(value: object) -> str:
    """A value inside a list, a mapping or a block, one way per value ``same`` tells apart."""
    if is_number(value):
        return js_number_string(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(_shown(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{_shown(k)}: {_shown(v)}" for k, v in sorted(value.items(), key=repr)) + "}"
    if is_dataclass(value) and not isinstance(value, type):
        return (
            f"{type(value).__name__}({', '.join(f'{f.name}={_shown(getattr(value, f.name))}' for f in fields(value))})"
        )
    return json.dumps(value) if value is None or isinstance(value, bool) else repr(value)


def same(a: object, b: object) -> bool:
    """Equal as the JavaScript values they stand for: numbers by value (NaN equals NaN), lists item by item,
    mappings key by key, blocks of one type field by field."""
    if is_number(a) and is_number(b):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if is_dataclass(a) and not isinstance(a, type) and type(a) is type(b):
        return all(same(getattr(a, f.name), getattr(b, f.name)) for f in fields(a))
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b  # true is not 1
    return a == b


def shown_apart(want: object, got: object) -> tuple[str, str]:
    """``want`` and ``got`` as ``fmt`` shows them; where that reads alike for two values ``same`` tells apart (a
    number against a string of its digits, integers past 2**53), with their Python types, then as Python writes
    them, so that a line that fails never shows one value twice."""
    a, b = fmt(want), fmt(got)
    if a == b and not same(want, got):
        a, b = f"{a} ({type(want).__name__})", f"{b} ({type(got).__name__})"
        if a == b:
            a, b = repr(want), repr(got)
    return a, b


@dataclass(frozen=True)
class Line:
    """One compared field: what was expected, what happened, whether they agree."""

    field: str
    expected: str
    actual: str
    ok: bool


def _parts(expected: Sends | Refuses, actual: Sends | Refuses | None, prefix: str) -> list[Line]:
    out = []
    for f in fields(expected):
        want = getattr(expected, f.name)
        if want is None:
            continue
        if f.name == "message_matches":
            out += _matches(want, actual, prefix)
        else:
            out.append(_field(f.name, want, actual, prefix))
    return out


def _field(name: str, want: object, actual: Sends | Refuses | None, prefix: str) -> Line:
    """One expected field against the observed one (``cleared_by`` as a set: its written order claims nothing)."""
    got = None if actual is None else getattr(actual, name)
    if name == "cleared_by" and got is not None:
        want = tuple(sorted(want))
    ok = got is not None and same(want, got)
    return Line(f"{prefix}.{name}", *shown_apart(want, got), ok)


def _matches(patterns: Sequence[str], actual: Sends | Refuses | None, prefix: str) -> list[Line]:
    """One line per pattern the refusal's message must match (searched, as JavaScript's ``assert.match``)."""
    message = getattr(actual, "message", None)
    return [
        Line(
            f"{prefix}.message_matches",
            f"a message matching /{p}/",
            fmt(message),
            message is not None and re.search(p, message) is not None,
        )
        for p in patterns
    ]


def compare(expectation: Expectation, observed: Observed) -> tuple[Line, ...]:
    """Each expected field against the observed one."""
    lines: list[Line] = []
    kind = "sends" if observed.sends is not None else "refuses" if observed.refuses is not None else "crashes"
    for name, part, actual in (
        ("sends", expectation.sends, observed.sends),
        ("refuses", expectation.refuses, observed.refuses),
    ):
        if part is None:
            continue
        lines.append(Line("outcome", name, kind, actual is not None))
        lines += _parts(part, actual, name)
    broken = set(observed.breaks)
    if expectation.breaks is not None:
        for inv in expectation.breaks:
            lines.append(Line(f"breaks {inv}", "breaks", "breaks" if inv in broken else "holds", inv in broken))
    if expectation.holds:
        lines.append(
            Line(
                "holds",
                "every invariant holds",
                ", ".join(f"breaks {b}" for b in observed.breaks) or "every invariant holds",
                not broken,
            )
        )
    if not lines:  # an expectation with nothing to compare still reports the outcome
        lines.append(Line("outcome", "-", kind, True))
    return tuple(lines)


@dataclass(frozen=True)
class Verdict:
    """One variant's expectation, what it did, and the comparison."""

    variant: str
    expectation: Expectation
    observed: Observed
    lines: tuple[Line, ...]

    @property
    def ok(self) -> bool:
        return all(line.ok for line in self.lines)

    def explain(self) -> str:
        """Expected against actual, one field a line (the text a failing test shows)."""
        rows = [
            f"{'' if ln.ok else MISMATCH + ' '}{ln.field}: expected {ln.expected}, got {ln.actual}" for ln in self.lines
        ]
        rows += [f"  {v}" for v in self.observed.violations or ()]
        return f"{self.variant}: {self.observed.outcome}\n  " + "\n  ".join(rows)


def _needs_invariants(e: Expectation) -> bool:
    return e.breaks is not None or e.holds


def judge_variant(scenario: Scenario, variant: str) -> Verdict:
    expectation = expectation_for(scenario.expect, variant)
    if expectation is None:
        raise ValueError(f"the scenario expects nothing of {variant}")
    observed = observe(scenario, variant, invariants=_needs_invariants(expectation))
    return Verdict(variant, expectation, observed, compare(expectation, observed))


def refuse_unknown_invariants(scenario: Scenario) -> None:
    """An ``UnknownNameError`` for the first name in an expectation's ``breaks`` that no invariant declares (the file
    format checks only a name's shape: the vocabulary is the catalogue's)."""
    for key, expectation in scenario.expect.items():
        for k, name in enumerate(expectation.breaks or ()):
            if name not in INVARIANTS:
                raise UnknownNameError(unknown("invariant", name, INVARIANTS, context=f" at expect.{key}.breaks[{k}]"))


def judge(scenario: Scenario, variants: Sequence[str] | None = None) -> list[Verdict]:
    """A verdict for each variant the scenario's ``expect`` names (or only ``variants``); an ``UnknownNameError`` for
    an invariant name no judge declares."""
    refuse_unknown_invariants(scenario)
    named = variants_named(scenario.expect)
    return [judge_variant(scenario, v) for v in named if variants is None or v in variants]


# ----------------------------------------------------------------------------- exporting


def expectation_of(observed: Observed) -> Expectation:
    """What a variant did, as the expectation that pins it."""
    breaks = observed.breaks
    sends = None if observed.sends is None else replace(observed.sends, images=None, content=None)
    refuses = observed.refuses
    if refuses is not None:
        refuses = replace(
            refuses, budget=None, configured_budget=None, reserve_for_response=None, input_budget=None, message=None
        )
    return Expectation(
        sends=sends,
        refuses=refuses,
        breaks=breaks or None,
        holds=observed.violations is not None and not breaks,
    )


def expect_from(scenario: Scenario, variants: Sequence[str] = SEED_VARIANTS) -> dict[str, Expectation]:
    """An ``expect`` section pinning what each variant does, grouped where variants agree."""
    each = {v: expectation_of(observe(scenario, v)) for v in variants}
    if set(each) == set(SEED_VARIANTS) and len({repr(e) for e in each.values()}) == 1:
        return {"all": each[SEED_VARIANTS[0]]}
    if all(v in each for v in FAITHFUL) and repr(each[FAITHFUL[0]]) == repr(each[FAITHFUL[1]]):
        rest = {v: e for v, e in each.items() if v not in FAITHFUL}
        return {"faithful": each[FAITHFUL[0]], **rest}
    return each
