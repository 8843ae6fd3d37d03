"""``cmharness defects --report NAME|all``: a markdown bug report a TypeScript maintainer can file as it is.

The words come from ``strategies.upstream`` (title, where the defect is present: file, function, the part of
it and the commit, as a checkout shows them; what a correct compile does); the numbers come from compiling the
defect's scenario file on every variant that carries it and on ``sound``: the outcome, the stats total (what the
TypeScript prices), the estimator's (reference) price of what is sent, the bytes sent, and the invariants
broken. Limits and prices are the invariants' own (``invariants.properties.grace_limit``, ``reference.price``),
never recomputed here. The store is printed with the TypeScript's camelCase field names, and ``--out`` writes it
beside the report as a fixture (``NAME.fixture.json``: the store, config, budget and what each variant does) that the
scenario reader loads.
"""

from __future__ import annotations

import difflib
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from pydantic.alias_generators import to_camel

from invariants.properties import grace_limit
from invariants.reproduce import Observed, expectation_of, observe, prepared
from reference.model import Config, Entry, Store
from reference.names import unknown
from reference.numerics import Number, js_number_string
from reference.price import reference_price
from reference.scenario import Scenario, dump_content, dump_expectation, dump_scenario, load_scenario
from reference.variant_names import SOUND
from reports.cli.typescript_locations import known_lines
from reports.cli.typescript_source import Checkout
from reports.errors import UsageError
from reports.exit_codes import Exit
from strategies.defects import VARIANTS, Defect
from strategies.provenance import MODELS, VERSIONS, Version
from strategies.upstream import BUGS, Presence, UpstreamBug, typescript_bugs

ROOT = Path(__file__).resolve().parents[2]


class ReportError(UsageError):
    """A report that cannot be written: an unknown defect name, or one with no upstream report."""


@dataclass(frozen=True)
class Run:
    """What one variant does with the scenario, in the report's terms (None where it refuses)."""

    variant: str
    observed: Observed
    entries: tuple[Entry, ...] | None
    priced: Number | None
    cost: Number | None
    sent_bytes: int | None

    @property
    def outcome(self) -> str:
        o = self.observed
        if o.sends is not None:
            return f"sends {o.sends.entries} entries"
        if o.refuses is not None:
            return f"refuses ({o.refuses.error})"
        return o.outcome


@dataclass(frozen=True)
class Facts:
    """The computed part of a report: the scenario, each variant's run, and the grace limit."""

    scenario: Scenario
    runs: tuple[Run, ...]
    limit: Number
    alone: Run  # the defect alone, switched on in sound

    @property
    def sound(self) -> Run:
        return next(r for r in self.runs if r.variant == SOUND)

    @property
    def carriers(self) -> tuple[Run, ...]:
        return tuple(r for r in self.runs if r.variant != SOUND)


def find_bug(name: str) -> UpstreamBug:
    """The report for a defect name (any case, ``-`` or ``_``); a one-line error suggests the closest."""
    key = name.strip().upper().replace("-", "_")
    if key in Defect.__members__ and Defect[key] in BUGS:
        return BUGS[Defect[key]]
    known = [b.defect.name for b in typescript_bugs()]
    if key in Defect.__members__:
        raise ReportError(f"{name!r} is not a TypeScript defect; reports exist for: {', '.join(known)}")
    raise ReportError(unknown("defect", key, known, n=3, cutoff=0.5, listed="reports exist for"))


def _run(scenario: Scenario, variant: str | frozenset[Defect], name: str = "") -> Run:
    observed = observe(scenario, variant)  # type: ignore[arg-type]
    entries = priced = cost = size = None
    if observed.sends is not None:
        ready = prepared(scenario, variant)
        strategy, store = ready.strategy, ready.store
        result = strategy.compile(scenario.budget, dry_run=True)
        entries = tuple(result.entries)
        priced = result.stats.total.tokens
        cost = reference_price(entries, store, scenario.config)
        size = len(json.dumps([dump_content(e.content, camel=True) for e in entries]).encode("utf-8"))
    return Run(name or str(variant), observed, entries, priced, cost, size)


def facts_of(scenario: Scenario, defect: Defect) -> Facts:
    """Compile ``scenario`` on each variant that carries ``defect``, on sound, and with the defect alone."""
    carriers = [v for v, ds in VARIANTS.items() if defect in ds]
    runs = tuple(_run(scenario, v) for v in [*carriers, SOUND])
    alone = _run(scenario, frozenset({defect}), f"sound+{defect.name}")
    return Facts(scenario, runs, grace_limit(scenario.budget, scenario.config), alone)


def facts(bug: UpstreamBug) -> Facts:
    """The facts of the bug's own scenario file."""
    return facts_of(load_scenario(ROOT / bug.scenario_path), bug.defect)


# ----------------------------------------------------------------------------- rendering


def _n(x: Number | None) -> str:
    return "—" if x is None else js_number_string(x)


def _tokens(n: str) -> str:
    return f"{n} token" if n == "1" else f"{n} tokens"


def _diff(a: Number | None, b: Number | None) -> str:
    if a is None or b is None or not (math.isfinite(a) and math.isfinite(b)):
        return "—"
    d = a - b
    return f"{'+' if d > 0 else ''}{js_number_string(d)}"


def entry_price(entry: Entry, store: Store, config: Config) -> Number:
    """One entry's reference price, as the invariants price what is sent (a floored summary's excess included)."""
    return reference_price((entry,), store, config)


def _entry_line(e: Entry, scenario: Scenario) -> str:
    what = e.message_id or ", ".join(e.summary_ids) or e.kind
    text = json.dumps(dump_content(e.content, camel=True), ensure_ascii=False)
    if len(text) > 110:
        text = text[:107] + "..."
    price = entry_price(e, scenario.store, scenario.config)
    return f"- {e.kind} `{what}` ({e.participant}, {_n(price)} tokens): `{text}`"


def _changed_entries(run: Run, sound: Run, scenario: Scenario) -> list[str]:
    """The entries one variant sends that sound does not, and the other way round."""
    if run.entries is None or sound.entries is None:
        return []
    a, b = [repr(e) for e in run.entries], [repr(e) for e in sound.entries]
    out: list[str] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        out += [f"{_entry_line(e, scenario)} — only in {run.variant}" for e in run.entries[i1:i2]]
        out += [f"{_entry_line(e, scenario)} — only in sound" for e in sound.entries[j1:j2]]
    return out


WHOLE = "the whole function"


@dataclass(frozen=True)
class Place:
    """One row of "Where": a function (and the part of it) in a file, and the versions it is present at."""

    file: str
    function: str
    part: str
    versions: tuple[Version, ...]


def places(present: Sequence[Presence]) -> tuple[Place, ...]:
    """The presences grouped by file, function and part, in first-named order (each version once)."""
    grouped: dict[tuple[str, str, str], list[Version]] = {}
    for p in present:
        v = VERSIONS[p.version]
        seen = grouped.setdefault((v.file, p.function, p.part or WHOLE), [])
        if v not in seen:
            seen.append(v)
    return tuple(Place(*key, tuple(vs)) for key, vs in grouped.items())


def _at_commit(place: Place, v: Version, source: Checkout | None) -> str:
    """One commit of a Where row: ``file:lines`` at the commit, as the maintainer's clone (``source``) has the function
    or else as the committed table says (there, the lines of the row's part where the table has them); the commit alone
    where neither knows the function."""
    commit, table = v.commit or "", known_lines()
    for file in (f.strip() for f in v.file.split(",")):
        known = table.lines(commit, file, place.function)
        cloned = source.lines(commit, file, place.function) if source is not None else None
        lines = cloned or known
        if lines is None:
            continue
        if source is not None and cloned is None:
            source.missing.append(f"{place.function} in {file} at {commit} (that row cites the committed lines)")
        elif source is not None and known is not None and cloned != known:
            source.differing.append(f"{place.function} in {file} at {commit}: {cloned} there, {known} committed")
        sites = table.part_lines(commit, file, place.function, place.part) if lines == known else ()
        return ", ".join(f"`{file}:{at}`" for at in sites or (lines,)) + f" at `{commit}` ({v.line})"
    if source is not None:
        source.missing.append(f"{place.function} in {v.file} at {v.commit} (that row names the commit alone)")
    return f"`{v.commit}` ({v.line})"


def _where(bug: UpstreamBug, source: Checkout | None = None) -> list[str]:
    """The Where table (rows at a commit; with the maintainer's clone, each at its file and lines there), the lines
    whose tip has no commit named, and what to check."""
    rows: list[str] = []
    elsewhere: dict[str, list[str]] = {}
    for place in places(bug.present):
        if at := [v for v in place.versions if v.commit]:
            commits = ", ".join(_at_commit(place, v, source) for v in at)
            rows.append(f"| `{place.file}` | `{place.function}` | {place.part} | {commits} |")
        for v in place.versions:
            if not v.commit:
                elsewhere.setdefault(v.line, []).append(f"`{place.function}` in `{place.file}` ({place.part})")
    head = ["| file | function | where in it | file:line at each tip's commit |", "|---|---|---|---|"]
    lines = [*head, *rows, ""] if rows else []
    too = " too" if rows else ""
    for line, spots in elsewhere.items():
        lines += [f"On the {line} line{too}, whose tip has no commit named here: {'; '.join(spots)}.", ""]
    return [*lines, f"The scenario file below reproduces it. {bug.caveat}".strip()]


def _numbers(f: Facts) -> list[str]:
    sound = f.sound
    runs = [*f.carriers, f.alone, sound]
    heads = [f"`{r.variant}` (the TypeScript)" for r in f.carriers] + [f"`{f.alone.variant}` (this defect alone)"]
    lines = [
        f"Budget: {_n(f.scenario.budget.max_tokens)} tokens, reserve {_n(f.scenario.budget.reserve_for_response)}, "
        f"input budget {_n(f.scenario.budget.input_budget)}, grace limit {_n(f.limit)}. "
        "Each column is the scenario compiled (a dry run of a fresh strategy): "
        + "; ".join(f"`{r.variant}` models {MODELS[r.variant].summary}" for r in f.carriers)
        + f"; `{f.alone.variant}` is the correct compile with only this defect; `sound` is what the compile "
        "should do. The difference is the first column less `sound`.",
        "",
        "| | " + " | ".join(heads) + " | `sound` | difference |",
        "|---|" + "---|" * (len(heads) + 2),
    ]
    first = f.carriers[0]

    def row(label: str, cells: Sequence[str], diff: str) -> None:
        lines.append(f"| {label} | " + " | ".join(cells) + f" | {diff} |")

    row("outcome", [r.outcome for r in runs], "same" if first.outcome == sound.outcome else "differs")
    row("priced (stats total)", [_n(r.priced) for r in runs], _diff(first.priced, sound.priced))
    row("estimator's price of what is sent", [_n(r.cost) for r in runs], _diff(first.cost, sound.cost))
    row("bytes sent (content as JSON)", [_n(r.sent_bytes) for r in runs], _diff(first.sent_bytes, sound.sent_bytes))
    row("invariants broken", [", ".join(r.observed.breaks) or "none" for r in runs], "")
    out = [*lines, ""]
    if first.priced is not None and first.cost is not None and first.priced != first.cost:
        gap = _diff(first.cost, first.priced).lstrip("+-")
        unseen = (
            f"{_tokens(gap)} the budget never saw" if first.cost > first.priced else f"{_tokens(gap)} charged, not sent"
        )
        out.append(
            f"`{first.variant}` prices its context at {_n(first.priced)} tokens but sends {_n(first.cost)}: {unseen}."
        )
    budget = f.scenario.budget.input_budget
    if first.cost is not None and math.isfinite(f.limit) and first.cost > f.limit:
        out.append(
            f"What `{first.variant}` sends is {_tokens(_diff(first.cost, f.limit).lstrip('+'))} over the grace limit."
        )
    elif first.cost is not None and math.isnan(f.limit) and math.isfinite(budget) and first.cost > budget:
        over = _diff(first.cost, budget).lstrip("+")
        out.append(
            f"The grace limit is NaN, so no check refuses: what `{first.variant}` sends is {_tokens(over)} "
            "over the budget."
        )
    if first.observed.sends is not None and sound.observed.refuses is not None:
        out.append(f"`sound` refuses: {sound.observed.outcome.removeprefix('refuses: ')}")
    if first.observed.refuses is not None and sound.observed.sends is not None:
        out.append(f"`{first.variant}` refuses where `sound` sends: {first.observed.outcome.removeprefix('refuses: ')}")
    changed = _changed_entries(first, sound, f.scenario)
    if changed:
        out += ["", f"Entries that differ between `{first.variant}` and `sound`:", "", *changed]
    elif first.entries is not None and sound.entries is None:
        out += ["", f"What `{first.variant}` sends:", "", *(_entry_line(e, f.scenario) for e in first.entries)]
    notes = [str(v) for v in f.alone.observed.violations or ()]
    if notes:
        out += ["", "What the invariants say of this defect alone (switched on in `sound`):", ""]
        out += [f"- {n}" for n in notes]
    return out


def render(bug: UpstreamBug, f: Facts, source: Checkout | None = None) -> str:
    """The whole report as markdown (``source``: the maintainer's clone, for each function's lines)."""
    d = bug.defect
    carriers = ", ".join(f"`{r.variant}`" for r in f.carriers)
    green = ", ".join(f.sound.observed.breaks) or "every invariant holds"
    red = "; ".join(f"`{r.variant}` breaks {', '.join(r.observed.breaks) or 'nothing'}" for r in f.carriers)
    lines = [
        f"# {bug.title}",
        "",
        f"In short: {d.description}.",
        "",
        "## Where",
        "",
        *_where(bug, source),
    ]
    if bug.upstream_says:
        lines += ["", "## What upstream says", "", bug.upstream_says]
    lines += [
        "",
        "## A minimal store",
        "",
        "The store, the strategy config and the budget, with the TypeScript's field names. Blocks carry "
        "the fields the compile reads (an image is priced by `tokenEstimate`, 1600 when it is null); a "
        "test adds the transport fields (an image's `source`). A summary's `tokens` is its measured size.",
        "",
        "```json",
        json.dumps(typescript_store(f.scenario), indent=2, ensure_ascii=False),
        "```",
        "",
        f"`cmharness defects --report {bug.slug} --out DIR` writes it beside this report as "
        f"`{bug.slug}.fixture.json`, with what each variant below does as its `expect`.",
        "",
        "## What it does, and what it should do",
        "",
        *_numbers(f),
        "",
        f"Expected: {bug.should}",
        "",
        "## The scenario that pins it",
        "",
        f"`{bug.scenario_path}`: `cmharness reproduce {bug.scenario_path}` checks it. "
        f"{f.scenario.description or ''} "
        f"Red on the variants that model the TypeScript ({red}); green on `sound` ({green}). "
        f"The defect alone, switched on in `sound` (`sound+{d.name}`), breaks "
        f"{', '.join(f.alone.observed.breaks) or 'no invariant by itself (the variants above show it)'}.",
        "",
        f"(Found by cmharness, a model of the hierarchical compile; defect `{d.name}`, carried by {carriers}.)",
    ]
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------- the fixture


def typescript_store(scenario: Scenario) -> dict[str, Any]:
    """The store, config and budget with the TypeScript's names and shapes (``sourceRange`` as first and last)."""
    dumped = dump_scenario(scenario, camel=True)
    out = {k: dumped[k] for k in ("store", "config", "budget")}
    for s in out["store"]["summaries"]:
        first, last = s["sourceRange"]
        s["sourceRange"] = {"first": first, "last": last}
    return out


def _camel_fields(expectation: dict[str, Any]) -> dict[str, Any]:
    """An expectation's field names in camelCase; values (ids, categories) are data and kept as they are."""
    return {
        k: {to_camel(f): v for f, v in part.items()} if isinstance(part, dict) else part
        for k, part in expectation.items()
    }


def fixture(bug: UpstreamBug, f: Facts) -> dict[str, Any]:
    """The report's store as a scenario file: what each TypeScript variant and ``sound`` do is its ``expect``."""
    expect = {r.variant: _camel_fields(dump_expectation(expectation_of(r.observed))) for r in (*f.carriers, f.sound)}
    return {"description": f"{bug.title} ({bug.defect.name})", **typescript_store(f.scenario), "expect": expect}


def _write(bug: UpstreamBug, out: Path, source: Checkout | None) -> tuple[Path, ...]:
    """The report and its fixture, written into ``out``."""
    f = facts(bug)
    md, js = out / f"{bug.slug}.md", out / f"{bug.slug}.fixture.json"
    md.write_text(render(bug, f, source), encoding="utf-8")
    js.write_text(json.dumps(fixture(bug, f), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return md, js


def report(name: str) -> str:
    """The markdown report for one defect name."""
    bug = find_bug(name)
    return render(bug, facts(bug))


def run_report(
    name: str | None, out: Path | None, stdout: TextIO, source: Path | None = None, stderr: TextIO | None = None
) -> int:
    """``--report NAME|all [--out DIR] [--source CLONE]``: the report(s) on stdout, or written into DIR (one line
    each); with the maintainer's clone of the TypeScript, each function at its lines there (what the clone lacks is
    said on ``stderr``, one line each)."""
    if name is None:
        raise UsageError("--out and --source need --report NAME (or --report all)")
    bugs = typescript_bugs() if name.strip().lower() == "all" else (find_bug(name),)
    clone = Checkout(source) if source is not None else None
    if out is None:
        stdout.write("\n---\n\n".join(render(b, facts(b), clone) for b in bugs))
    else:
        try:
            out.mkdir(parents=True, exist_ok=True)
            for bug in bugs:
                md, js = _write(bug, out, clone)
                stdout.write(f"wrote {md} and {js.name}\n")
        except OSError as err:
            raise UsageError(f"{out}: cannot write: {err.strerror or err}") from err
    if clone is not None and stderr is not None:
        for miss in dict.fromkeys(clone.missing):
            stderr.write(f"cmharness: --source {source}: not found: {miss}\n")
        for other in dict.fromkeys(clone.differing):
            stderr.write(f"cmharness: --source {source}: {other} (the row cites the clone)\n")
    return Exit.OK
