"""``cmharness check FILE``: compile a scenario on each variant, list the invariants it breaks, and explain them.

With ``--explain``, for each variant: a table of every entry sent (kind, ids, an excerpt), what the
variant charged for it, the reference price of exactly that entry (``reference.price``) and the
difference; then, for each broken invariant, the known defects that explain it: each defect the
variant carries, switched on alone in ``sound``, that breaks the same invariant on the same scenario.
Breaks explained by one set of defects (the main break: the group that explains the most
invariants) are shown apart from breaks that other defects explain, from breaks that only two
defects on together reproduce, and from breaks nothing explains. What a variant charged for one entry
is read from its own pricing (``strategies.pricing.Prices``: a recall pair's question and answer apart);
the table's total is set beside the stats' total the compile recorded.

A variant is a spec (``strategies.defects.parse_variant``): a name, ``sound+DEFECT,DEFECT``,
``pr-8bb01ab8-DEFECT``. ``--defect NAME`` (repeatable) checks ``sound`` with just those defects (and
``sound`` itself, unless ``--variant`` names the variants); ``--invariant NAME`` limits the check.

Exit codes:
  0  nothing breaks on any variant checked;
  1  breaks reproduced: only variants that carry defects break, and every variant without a defect holds;
  2  a usage error or a scenario that cannot be read (one line on stderr);
  3  ``sound`` broke: a variant with no defect breaks an invariant (a bug in the model or a defect
     nobody has named); this wins over 1.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, TextIO

from invariants.properties import CHEAP_FIRST, INVARIANTS, Outcome, Violation, attempt
from invariants.reproduce import prepared
from reference.model import Config, Entry, Image, Store, Text, Thinking, ToolResult, ToolUse
from reference.numerics import Number
from reference.price import reference_price
from reference.scenario import Scenario
from reference.variant_names import SOUND
from reports.cli import check_verdict
from reports.cli.scenario_files import read_scenario
from reports.cli.terminal import fmt, format_table
from reports.errors import UsageError
from strategies.defects import VARIANTS, Defect, Defects, Resumed, parse_variant, resolve_variant
from strategies.errors import OverBudgetError, UncoveredDropError
from strategies.pricing import Prices

# ----------------------------------------------------------------------------- what was sent, priced


@dataclass(frozen=True)
class EntryRow:
    """One entry sent: what it is, what the variant charged for it, and its reference price."""

    index: int
    kind: str
    ids: tuple[str, ...]
    excerpt: str
    charged: Number | None
    reference: Number

    @property
    def difference(self) -> Number | None:
        return None if self.charged is None else self.charged - self.reference


def excerpt(entry: Entry, width: int = 36) -> str:
    """The first characters of an entry's content, one line."""
    parts: list[str] = []
    for b in entry.content:
        if isinstance(b, Text):
            parts.append(b.text)
        elif isinstance(b, Thinking):
            parts.append(f"<thinking {b.thinking}>")
        elif isinstance(b, ToolUse):
            parts.append(f"<tool_use {b.name}>")
        elif isinstance(b, ToolResult):
            parts.append("<tool_result>")
        elif isinstance(b, Image):
            parts.append("<image>")
        else:
            parts.append(f"<{type(b).__name__.lower()}>")
    text = " ".join(parts).replace("\n", " ")
    return text if len(text) <= width else text[: width - 3] + "..."


def entry_charges(store: Store, config: Config, defects: Defects, entries: Sequence[Entry]) -> list[Number | None]:
    """What the variant's pricing charges for each entry sent (a pair split into its question and answer)."""
    view = None if defects.on(Defect.VIEW_NEVER_BOUND) else store
    prices = Prices(store, config, defects, view, {})
    out: list[Number | None] = []
    for entry in entries:
        try:
            out.append(_charge(entry, store, config, prices))
        except Exception:  # a bad value the variant's pricing refuses: no charge to show
            out.append(None)
    return out


def _charge(entry: Entry, store: Store, config: Config, prices: Prices) -> Number:
    if entry.kind == "raw":
        m = store.messages[store.index(entry.message_id)]
        return prices.raw(prices.E(m.content), m.content, entry.content)
    if entry.kind == "question":
        if config.positioned_recall_pairs:
            return prices.question(entry.content)
        return prices.V(entry.content)
    held = [store.summary(sid) for sid in entry.summary_ids]
    if config.positioned_recall_pairs:
        return prices.answer(held[0], entry.content)
    extra = 0 if prices.defects.on(Defect.COMBINED_NO_FLOOR) else sum((prices.excess(s) for s in held), 0)
    return prices.V(entry.content) + extra


def entry_rows(scenario: Scenario, defects: Defects, entries: Sequence[Entry]) -> list[EntryRow]:
    store, config = scenario.store, scenario.config
    charges = entry_charges(store, config, defects, entries)
    rows = []
    for k, (entry, charged) in enumerate(zip(entries, charges, strict=True)):
        ids = (entry.message_id,) if entry.kind == "raw" else entry.summary_ids
        rows.append(
            EntryRow(
                k,
                entry.kind,
                tuple(i for i in ids if i),
                excerpt(entry),
                charged,
                reference_price([entry], store, config),
            )
        )
    return rows


# ----------------------------------------------------------------------------- attribution


@dataclass(frozen=True)
class Break:
    """A broken invariant and the defects that explain it (each alone, in ``sound`` with the variant's line behaviours,
    breaks it too)."""

    violation: Violation
    explained_by: tuple[Defect, ...]
    #: When no defect alone explains it: two carried defects that, on together in ``sound``, break it.
    together: tuple[Defect, ...] = ()


@dataclass(frozen=True)
class Group:
    """Breaks explained by the same defects: ``main``, ``other``, ``together`` (a pair only) or ``unexplained``."""

    role: str
    defects: tuple[Defect, ...]
    breaks: tuple[Break, ...]


def alone(judged: Defects | Resumed, switched: frozenset[Defect]) -> Defects | Resumed:
    """``switched`` on alone, in ``sound`` with the judged variant's line behaviours (and from the watermark it
    resumes at)."""
    on = Defects(switched, resolve_variant(judged).behaviours)
    return replace(judged, defects=on) if isinstance(judged, Resumed) else on


def explaining(scenario: Scenario, invariant: str, judged: Defects | Resumed) -> tuple[Defect, ...]:
    """Each carried defect that, switched on alone (in ``sound`` with the variant's line behaviours), breaks
    ``invariant`` on the scenario."""
    prop = INVARIANTS[invariant]
    carried = resolve_variant(judged).active
    return tuple(
        d
        for d in Defect
        if d in carried and prop(scenario.store, scenario.config, scenario.budget, alone(judged, frozenset({d})))
    )


def explaining_pair(
    scenario: Scenario, invariant: str, judged: Defects | Resumed, singles: frozenset[Defect]
) -> tuple[Defect, ...]:
    """Two carried defects that, on together (in ``sound`` with the variant's line behaviours), break ``invariant``
    (one of them from ``singles``, the defects that explain other breaks alone, when there are any)."""
    prop = INVARIANTS[invariant]
    ordered = [d for d in Defect if d in resolve_variant(judged).active]
    firsts = [d for d in ordered if d in singles] or ordered
    for a in firsts:
        for b in ordered:
            if b == a or (b in firsts and ordered.index(b) < ordered.index(a)):
                continue
            if prop(scenario.store, scenario.config, scenario.budget, alone(judged, frozenset({a, b}))):
                return tuple(d for d in ordered if d in (a, b))
    return ()


def group_breaks(breaks: Sequence[Break]) -> list[Group]:
    """Breaks linked by a shared explaining defect form a group; the largest is the main one."""
    explained = [b for b in breaks if b.explained_by]
    components: list[tuple[set[Defect], list[Break]]] = []
    for b in explained:
        joined = [c for c in components if c[0] & set(b.explained_by)]
        defects, members = set(b.explained_by), [b]
        for c in joined:
            defects |= c[0]
            members = c[1] + members
            components.remove(c)
        components.append((defects, members))
    order = {name: k for k, name in enumerate(CHEAP_FIRST)}
    components.sort(
        key=lambda c: (
            -len({b.violation.invariant for b in c[1]}),
            min(order.get(b.violation.invariant, 99) for b in c[1]),
        )
    )
    groups = [
        Group(
            "main" if k == 0 else "other",
            tuple(d for d in Defect if d in c[0]),
            tuple(sorted(c[1], key=lambda b: order.get(b.violation.invariant, 99))),
        )
        for k, c in enumerate(components)
    ]
    pairs: dict[tuple[Defect, ...], list[Break]] = {}
    for b in breaks:
        if not b.explained_by and b.together:
            pairs.setdefault(b.together, []).append(b)
    groups += [Group("together", pair, tuple(bs)) for pair, bs in pairs.items()]
    unexplained = tuple(b for b in breaks if not b.explained_by and not b.together)
    if unexplained:
        groups.append(Group("unexplained", (), unexplained))
    return groups


# ----------------------------------------------------------------------------- one variant


@dataclass(frozen=True)
class VariantCheck:
    spec: str
    defects: Defects
    outcome: Outcome
    rows: tuple[EntryRow, ...]
    breaks: tuple[Break, ...]
    groups: tuple[Group, ...]


def check_variant(scenario: Scenario, spec: str, invariants: Sequence[str], explain: bool) -> VariantCheck:
    defects = parse_variant(spec)
    ready = prepared(scenario, defects)
    store, judged = ready.store, ready.judged
    compiled = replace(scenario, store=store, compiles_before=())  # the compile checked, as its judges see it
    outcome = attempt(ready.strategy, scenario.budget, dry_run=True)
    violations = check_verdict.breaks(store, scenario.config, scenario.budget, judged, invariants)
    explains = explain and bool(defects.active)
    seen: dict[str, tuple[Defect, ...]] = {}
    for v in violations:
        if v.invariant not in seen:
            seen[v.invariant] = explaining(compiled, v.invariant, judged) if explains else ()
    singles = frozenset(d for ds in seen.values() for d in ds)
    pairs = {name: explaining_pair(compiled, name, judged, singles) for name, ds in seen.items() if explains and not ds}
    breaks = [Break(v, seen[v.invariant], pairs.get(v.invariant, ())) for v in violations]
    rows = tuple(entry_rows(compiled, defects, outcome.entries)) if explain and outcome.sent else ()
    groups = tuple(group_breaks(breaks)) if explain else ()
    return VariantCheck(spec, defects, outcome, rows, tuple(breaks), groups)


def exit_code(checks: Sequence[VariantCheck]) -> int:
    """The exit code over the variants checked (``check_verdict.exit_code``)."""
    return check_verdict.exit_code((c.defects.active, c.breaks) for c in checks)


# ----------------------------------------------------------------------------- output


def describe(outcome: Outcome) -> str:
    if outcome.sent:
        return f"sends {len(outcome.entries)} entries, charged {fmt(outcome.result.stats.total.tokens)} tokens"
    err = outcome.error
    if isinstance(err, OverBudgetError):
        d = err.diagnostics
        return (
            f"refuses: OverBudgetError at {err.item} ({fmt(err.actual)} > {fmt(err.budget)}; head "
            f"{fmt(d.head_tokens)}, middle {fmt(d.middle_tokens)}, {d.middle_count_unit}; cleared_by "
            f"{sorted(d.cleared_by) or 'nothing'})"
        )
    if isinstance(err, UncoveredDropError):
        return f"refuses: UncoveredDropError: {err}"
    return f"{type(err).__name__}: {err}"


def variant_lines(c: VariantCheck, explain: bool) -> list[str]:
    out = [f"{c.spec}: {describe(c.outcome)}"]
    if explain and c.rows:
        table = [
            [
                str(r.index),
                r.kind,
                ",".join(r.ids) or "-",
                r.excerpt,
                fmt(r.charged),
                fmt(r.reference),
                fmt(r.difference) if r.difference else ("?" if r.difference is None else "0"),
            ]
            for r in c.rows
        ]
        charged = sum((r.charged for r in c.rows if r.charged is not None), 0)
        ref = sum((r.reference for r in c.rows), 0)
        table.append(
            [
                "",
                "total",
                "",
                f"(stats total {fmt(c.outcome.result.stats.total.tokens)})",
                fmt(charged),
                fmt(ref),
                fmt(charged - ref),
            ]
        )
        out += [
            "  " + line
            for line in format_table(
                ["#", "kind", "ids", "excerpt", "charged", "reference", "diff"],
                table,
                [True, False, False, False, True, True, True],
            )
        ]
    if not c.breaks:
        return [*out, "  every invariant holds"]
    if not explain:
        return out + [f"  breaks {b.violation.invariant}: {b.violation.message}" for b in c.breaks]
    if not c.defects.active:
        out.append("  no defect is switched on here: these breaks are a bug in the model or a defect nobody has named")
    for g in c.groups:
        names = ", ".join(d.name for d in g.defects)
        if g.role == "main":
            out.append(f"  explained by {names}:")
        elif g.role == "other":
            out.append(f"  also broken, by other defects ({names}):")
        elif g.role == "together":
            lead = "also broken, by" if any(x.role in ("main", "other") for x in c.groups) else "explained by"
            out.append(f"  {lead} no defect alone but {' and '.join(d.name for d in g.defects)} together:")
        elif c.defects.active:
            out.append("  no single defect it carries explains (an interaction of defects, or an unnamed one):")
        out += [f"    breaks {b.violation.invariant}: {b.violation.message}" for b in g.breaks]
        for d in g.defects:
            out.append(f"      {d.name} [{d.source}]: {d.description}")
    return out


def _json_number(x: Number | None) -> Any:
    if x is None or isinstance(x, int) or (isinstance(x, float) and x == x and abs(x) != float("inf")):
        return x
    return fmt(x)


def variant_json(c: VariantCheck) -> dict[str, Any]:
    o = c.outcome
    outcome: dict[str, Any] = {"sent": o.sent, "describe": describe(o)}
    if o.sent:
        outcome["stats_total"] = _json_number(o.result.stats.total.tokens)
    else:
        outcome["error"] = type(o.error).__name__
    return {
        "variant": c.spec,
        "defects": sorted(d.name for d in c.defects.active),
        "behaviours": sorted(b.name for b in c.defects.behaviours),
        "outcome": outcome,
        "entries": [
            {
                "index": r.index,
                "kind": r.kind,
                "ids": list(r.ids),
                "excerpt": r.excerpt,
                "charged": _json_number(r.charged),
                "reference": _json_number(r.reference),
                "difference": _json_number(r.difference),
            }
            for r in c.rows
        ],
        "breaks": [
            {
                "invariant": b.violation.invariant,
                "message": b.violation.message,
                "explained_by": [d.name for d in b.explained_by],
                "together": [d.name for d in b.together],
            }
            for b in c.breaks
        ],
        "groups": [
            {
                "role": g.role,
                "defects": [d.name for d in g.defects],
                "invariants": [b.violation.invariant for b in g.breaks],
            }
            for g in c.groups
        ],
    }


# ----------------------------------------------------------------------------- the subcommand


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="a scenario JSON file (store, config, budget)")
    parser.add_argument(
        "--variant",
        action="append",
        dest="variants",
        metavar="VARIANT",
        help="a variant to check: a name, sound+DEFECT,DEFECT or VARIANT-DEFECT (repeatable; default: every variant)",
    )
    parser.add_argument(
        "--defect",
        action="append",
        dest="defects",
        metavar="NAME",
        help="check sound with just these defects switched on (repeatable)",
    )
    parser.add_argument(
        "--invariant",
        action="append",
        dest="invariants",
        metavar="NAME",
        help=f"check only this invariant (repeatable; one of {', '.join(CHEAP_FIRST)})",
    )
    parser.add_argument(
        "--explain",
        action="store_true",
        help="show each entry's charged and reference price, and the defects that explain each break",
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def variant_specs(args: argparse.Namespace) -> list[str]:
    specs = list(args.variants or [])
    if args.defects:
        specs = specs or [SOUND]
        specs.append("sound+" + ",".join(args.defects))
    specs = specs or list(VARIANTS)
    for spec in specs:
        try:
            parse_variant(spec)
        except ValueError as err:
            raise UsageError(str(err)) from err
    return specs


def chosen_invariants(args: argparse.Namespace) -> list[str]:
    """The invariants ``--invariant`` asks for, or every one (``check_verdict.chosen_invariants``)."""
    return check_verdict.chosen_invariants(args.invariants)


def run(args: argparse.Namespace, stdout: TextIO) -> int:
    specs, invariants = variant_specs(args), chosen_invariants(args)
    scenario = read_scenario(args.file)
    checks = [check_variant(scenario, spec, invariants, args.explain) for spec in specs]
    code = exit_code(checks)
    before = list(scenario.compiles_before)
    if args.json:
        doc = {
            "file": args.file,
            "invariants": invariants,
            "compiles_before": before,
            "exit": code,
            "variants": [variant_json(c) for c in checks],
        }
        stdout.write(json.dumps(doc, indent=2) + "\n")
        return code
    counts = ", ".join(str(n) for n in before)
    lines = [f"each variant compiles after its earlier compiles of the first {counts} messages"] if before else []
    for c in checks:
        lines += variant_lines(c, args.explain)
    lines.append(check_verdict.verdict_line(code))
    stdout.write("\n".join(lines) + "\n")
    return code
