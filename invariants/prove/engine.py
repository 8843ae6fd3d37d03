"""Running a proof: every case of every store of a scope checked on a variant, sharded and spread over processes;
the smallest breaking case of each invariant kept, as a scenario file; shard results merged into one.

    proof = prove(parse_scope("small"), "sound")    # -> Proof: shapes, cases, seconds, found (empty: it holds)
"""

from __future__ import annotations

import itertools
import json
import multiprocessing
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, replace

from pydantic import TypeAdapter

from invariants.json_files import read_json
from invariants.properties import INVARIANTS, check
from invariants.properties.line_rules import judged_as
from invariants.prove.boundaries import (
    Lemma,
    budget_points,
    cap_points,
    grace_lemma,
    head_points,
    level_points,
    recent_points,
)
from invariants.prove.scope import BAD_VALUES, Scope, parse_scope, scope_spec
from invariants.prove.shapes import Shape, enumerate_shapes
from reference.expect import Expectation
from reference.model import Budget, Config
from reference.scenario import Scenario, dump_scenario
from reference.variant_names import VARIANT_NAMES
from strategies.defects import parse_variant

#: Stores per task handed to a worker (small, so progress is smooth and a stop comes soon).
CHUNK = 2

_PASSES: dict[str, Callable[[Shape], dict]] = {
    "off": lambda shape: {},
    "tools": lambda shape: {"tool_result_max_last_n": 1, "tool_use_input_max_tokens": 1},
    "images": lambda shape: {"max_live_images": 1},
    "depth": lambda shape: {"image_strip_depth_tokens": 1},
    "bytes": lambda shape: {"max_live_image_bytes": 1},
    "hysteresis": lambda shape: {"max_live_images": 1, "image_strip_hysteresis_ratio": 0.5},
}


def configs(shape: Shape, scope: Scope) -> Iterator[tuple[Config, int]]:
    """Every setting of the scope this store can read, as (config with windows, levels and budget unset, reserve):
    the recall settings only with a summary, the passes only with a tool or image block."""
    recall = bool(shape.store.summaries)
    modes = scope.modes if recall else scope.modes[:1]
    envelopes = scope.envelopes if recall else scope.envelopes[:1]
    carriers = scope.carriers if recall else scope.carriers[:1]
    passes = scope.passes if shape.has_passes else ("off",)
    seen: set[Config] = set()
    for mode, envelope, carrier, cap_kind, pass_kind, grace in itertools.product(
        modes, envelopes, carriers, scope.caps, passes, scope.graces
    ):
        for cap in cap_points(shape.store, cap_kind):
            config = Config(
                max_message_tokens=cap,
                positioned_recall_pairs=mode == "positioned",
                recall_envelope=envelope,
                carrier_policy=carrier,
                over_budget_grace_ratio=grace,
                **_PASSES[pass_kind](shape),
            )
            if config in seen:
                continue
            seen.add(config)
            for reserve in scope.reserves:
                yield config, reserve


def cases(shape: Shape, scope: Scope) -> Iterator[tuple[Config, Budget]]:
    """Every case of one store: each setting, each window at its edges, each level budget at its edges, each budget
    at its edges (``boundaries``), in a stable order, each (config, budget) once."""
    store = shape.store
    levels = level_points(store, scope.edges, scope.carry)
    seen: set[tuple[Config, Budget]] = set()
    for base, reserve in configs(shape, scope):
        for head in head_points(store, scope.edges):
            for recent in recent_points(store, base, scope.edges):
                for l3, l2, l1 in levels:
                    config = replace(
                        base,
                        head_window_tokens=head,
                        recent_window_tokens=recent,
                        l3_budget_tokens=l3,
                        l2_budget_tokens=l2,
                        l1_budget_tokens=l1,
                    )
                    for b in budget_points(store, config, reserve, scope.edges):
                        budget = Budget(max_tokens=b + reserve, reserve_for_response=reserve)
                        if (config, budget) in seen:
                            continue
                        seen.add((config, budget))
                        yield config, budget
    yield from bad_cases(shape, scope)


def bad_cases(shape: Shape, scope: Scope) -> Iterator[tuple[Config, Budget]]:
    """Each bad value of the scope alone, in the store's first setting (default windows and levels), at each of that
    setting's budgets."""
    if not scope.bad:
        return
    base, reserve = next(configs(shape, scope))
    for b in budget_points(shape.store, base, reserve, 1):
        good = Budget(max_tokens=b + reserve, reserve_for_response=reserve)
        for bad in (BAD_VALUES[name] for name in scope.bad):
            if bad.budget:
                yield base, replace(good, **{bad.field: bad.value})
            else:
                yield replace(base, **{bad.field: bad.value}), good


@dataclass(frozen=True)
class Found:
    """The smallest case of the scope on which one invariant breaks: where it is in the enumeration, its size,
    what broke, and the case as a scenario file's JSON text."""

    invariant: str
    shape: int
    case: int
    size: tuple[int, int, int]
    store: str
    message: str
    scenario: str


@dataclass(frozen=True)
class Proof:
    """What a proof (or one shard of it) covered and found; ``found`` empty: no invariant breaks within the scope."""

    scope: str
    variant: str
    invariants: tuple[str, ...]
    shard: tuple[int, int]
    shapes: int
    cases: int
    refused: int
    seconds: float
    found: tuple[Found, ...]
    lemmas: tuple[Lemma, ...]
    stopped: bool = False
    #: The variant whose line's rules judged the compiles, when not ``variant``'s own (a behaviour row's proof).
    judged_as: str | None = None

    @property
    def holds(self) -> bool:
        return not self.found

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2, sort_keys=True, ensure_ascii=True)

    @staticmethod
    def from_json(text: str) -> Proof:
        """A proof from ``to_json``'s text; ``ValueError`` naming the first field that is missing or of a wrong type
        (or the JSON's syntax error)."""
        return read_json(_PROOF_JSON, text, strict=True)


#: How a proof's JSON is read back (strict: a count is an integer, a flag a boolean).
_PROOF_JSON = TypeAdapter(Proof)


def scenario_text(
    shape: Shape,
    config: Config,
    budget: Budget,
    variant: str,
    invariant: str,
    message: str,
    judged_as: str | None = None,
) -> str:
    """The case as a scenario file: it expects every invariant to hold on the variant when it is a named one (so
    ``cmharness reproduce`` is red there), else on ``sound`` (``cmharness check FILE --variant SPEC`` shows it).
    Judged by another variant's rules (a behaviour row), each side holds by its own rules, so ``cmharness compare``
    shows the difference instead."""
    named = variant in VARIANT_NAMES and judged_as is None
    how = "cmharness reproduce FILE" if named else f"cmharness check FILE --variant {variant}"
    broke = f"breaking {invariant} on {variant}"
    if judged_as is not None:
        how = f"cmharness compare --corpus (its folder) --base {judged_as} --head {variant}"
        broke = f"on which {variant} breaks {invariant} judged by the rules of {judged_as}"
    description = (
        f"cmharness prove: the smallest store of the scope {broke} "
        f"({shape.label}); {how} shows it. {message.splitlines()[0] if message else ''}"
    ).strip()
    scenario = Scenario(
        shape.store,
        config,
        budget,
        description=description,
        expect={variant if named else "sound": Expectation(holds=True)},
    )
    return json.dumps(dump_scenario(scenario), indent=2, ensure_ascii=True) + "\n"


def _variant(spec: str) -> object:
    return spec if spec in VARIANT_NAMES else parse_variant(spec)


def _judge(shape: Shape, config: Config, budget: Budget, variant: object, invariants: tuple[str, ...]) -> list:
    if len(invariants) == len(INVARIANTS):
        return check(shape.store, config, budget, variant)
    return [v for name in invariants for v in INVARIANTS[name](shape.store, config, budget, variant)]


@dataclass(frozen=True)
class _Task:
    scope: Scope
    variant: str
    invariants: tuple[str, ...]
    indices: tuple[int, ...]
    judged_as: str | None = None


_SHAPES: dict[Scope, tuple[Shape, ...]] = {}


def _shapes_of(scope: Scope) -> tuple[Shape, ...]:
    if scope not in _SHAPES:
        _SHAPES[scope] = enumerate_shapes(scope).shapes
    return _SHAPES[scope]


def _run_task(task: _Task) -> tuple[int, list[Found]]:
    """Check every case of the task's stores; the cases counted and the first break of each invariant."""
    shapes = _shapes_of(task.scope)
    variant = _variant(task.variant)
    count = 0
    found: dict[str, Found] = {}
    with judged_as(None if task.judged_as is None else _variant(task.judged_as)):
        for index in task.indices:
            shape = shapes[index]
            for k, (config, budget) in enumerate(cases(shape, task.scope)):
                count += 1
                for v in _judge(shape, config, budget, variant, task.invariants):
                    if v.invariant not in found:
                        text = scenario_text(
                            shape, config, budget, task.variant, v.invariant, v.message, task.judged_as
                        )
                        found[v.invariant] = Found(v.invariant, index, k, shape.size, shape.label, v.message, text)
    return count, list(found.values())


def _smallest(found: Sequence[Found]) -> tuple[Found, ...]:
    best: dict[str, Found] = {}
    for f in found:
        if f.invariant not in best or (f.shape, f.case) < (best[f.invariant].shape, best[f.invariant].case):
            best[f.invariant] = f
    return tuple(sorted(best.values(), key=lambda f: list(INVARIANTS).index(f.invariant)))


Progress = Callable[[int, int, int, float], None]  # stores done, stores in all, cases so far, seconds


def prove(
    scope: Scope,
    variant: str = "sound",
    invariants: Sequence[str] | None = None,
    *,
    workers: int = 1,
    shard: tuple[int, int] = (1, 1),
    first: bool = False,
    progress: Progress | None = None,
    limit: float | None = None,
    judged_as: str | None = None,
) -> Proof:
    """Check every invariant (or those named) on every case of the scope's stores in shard ``I/N`` on ``variant``
    (a name or a spec: ``sound+DEFECT``). ``first``: stop at the first chunk of stores (smallest first) that
    breaks anything, so ``found`` holds the smallest store that breaks something (what the defect table wants).
    ``limit``: stop after that many seconds (``stopped`` says the scope was not covered). ``judged_as``: judge every
    compile by that variant's line rules instead of its own (the defect table's behaviour rows: ``sound+BEHAVIOUR``
    judged as ``sound`` breaks an invariant where the scope tells the behaviour apart)."""
    start = time.perf_counter()
    names = tuple(invariants) if invariants else tuple(INVARIANTS)
    _variant(variant)  # a bad spec fails here, in the caller
    if judged_as is not None:
        _variant(judged_as)
    shapes = enumerate_shapes(scope)
    _SHAPES[scope] = shapes.shapes
    index, count = shard
    mine = [i for i in range(len(shapes.shapes)) if i % count == index - 1]
    tasks = [_Task(scope, variant, names, tuple(mine[k : k + CHUNK]), judged_as) for k in range(0, len(mine), CHUNK)]
    lemmas = tuple(grace_lemma(g) for g in scope.graces)
    total_cases, found, done, stopped = 0, [], 0, False
    pool = multiprocessing.get_context("fork").Pool(workers) if workers > 1 else None
    try:
        results = pool.imap(_run_task, tasks) if pool is not None else map(_run_task, tasks)
        for task, (n, fs) in zip(tasks, results, strict=False):
            total_cases += n
            found += fs
            done += len(task.indices)
            if progress is not None:
                progress(done, len(mine), total_cases, time.perf_counter() - start)
            if (first and fs) or (limit is not None and time.perf_counter() - start > limit):
                stopped = done < len(mine)
                break
    finally:
        if pool is not None:
            pool.terminate()
            pool.join()
    return Proof(
        scope=scope_spec(scope),
        variant=variant,
        invariants=names,
        shard=shard,
        shapes=done,
        cases=total_cases,
        refused=shapes.refused,
        seconds=round(time.perf_counter() - start, 3),
        found=_smallest(found),
        lemmas=lemmas,
        stopped=stopped,
        judged_as=judged_as,
    )


def merge(proofs: Sequence[Proof]) -> Proof:
    """One proof from its shards (each of ``1/N`` .. ``N/N`` once, same scope, variant and invariants): the counts
    summed, the seconds summed, the smallest break of each invariant kept."""
    if not proofs:
        raise ValueError("nothing to merge")
    first = proofs[0]
    for p in proofs[1:]:
        for field in ("scope", "variant", "invariants", "judged_as"):
            if getattr(p, field) != getattr(first, field):
                raise ValueError(f"the shards differ in {field}: {getattr(first, field)!r} and {getattr(p, field)!r}")
    count = first.shard[1]
    shards = sorted(p.shard for p in proofs)
    if shards != [(i, count) for i in range(1, count + 1)]:
        raise ValueError(f"the shards are {', '.join(f'{i}/{n}' for i, n in shards)}, not 1/{count} .. {count}/{count}")
    return Proof(
        scope=first.scope,
        variant=first.variant,
        invariants=first.invariants,
        shard=(1, 1),
        shapes=sum(p.shapes for p in proofs),
        cases=sum(p.cases for p in proofs),
        refused=first.refused,
        seconds=round(sum(p.seconds for p in proofs), 3),
        found=_smallest([f for p in proofs for f in p.found]),
        lemmas=first.lemmas,
        stopped=any(p.stopped for p in proofs),
        judged_as=first.judged_as,
    )


__all__ = ["Found", "Proof", "bad_cases", "cases", "configs", "merge", "parse_scope", "prove", "scenario_text"]
