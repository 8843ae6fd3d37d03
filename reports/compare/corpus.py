"""The default corpus of ``cmharness compare``: deterministic store templates times the seed's grid.

A template is a resident agent's store built from a seed: prose, tool use and its results (carrying the
raw replay forms a formatter would replay), signed thinking, images with their base64 payload, a summary
tree two or three levels deep (L1 chunks merged into L2s, L2s into an L3), summaries whose measured tokens
undercount their text, replies with reasoning (carriers), and queued compression work. Each template is
compiled under the seed's grid ("three estimators, positioned and combined, with and without carriers, at
twelve budgets"): the default estimator, a custom text estimator, a calibrated store; and twelve budgets at
the store's own edges, found with the reference model on the ``sound`` compile (so the corpus is the same
whichever sides compare). The hosts' settings include what the newer lines read (a small live-image byte
cap, a hysteresis ratio, tool caps that edit blocks with raw forms), so the corpus reaches their
behaviours too.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from dataclasses import dataclass, replace
from functools import lru_cache

from invariants.generators import input_budget_for
from invariants.properties import UNLIMITED, head_end, head_total
from reference.estimator import content_tokens
from reference.model import (
    Budget,
    Config,
    Image,
    Message,
    Store,
    Summary,
    Text,
    Thinking,
    ToolResult,
    ToolUse,
    Work,
)
from reference.numerics import Number
from reference.price import excess, reference_price
from reference.variant_names import MAIN, PR, SOUND
from strategies.hierarchical import HierarchicalStrategy

ESTIMATORS = ("default", "custom", "calibrated")
MODES = ("positioned", "combined")
CARRIERS = ("carriers", "no-carriers")
BUDGETS = (
    "head-1",
    "head",
    "halfway",
    "floorless",
    "main-1",
    "main",
    "pr-1",
    "pr",
    "grace-1",
    "grace",
    "exact",
    "double",
)
#: The faithful pricings whose charge at an unlimited budget is an edge of the store (``main``, ``pr``).
FAITHFUL_EDGES = {"main": MAIN, "pr": PR}
CALIBRATION = 1.3
#: The hosts' settings, cycled over the templates so that every eight meet each combination of cap, envelope
#: and header once or twice (a header longer than the label, and shorter: #305's question either way).
CAPS = (0, 400, 150, 0)
ENVELOPES = ("none", "xml")
HEADERS = ("[Recall {id}]", "[Recall {id} of messages {first} to {last}, at level {level}]")
#: The image and tool settings, cycled over the templates with a period of three (so each meets every cap,
#: envelope and header): (max_live_images, max_live_image_bytes, image_strip_hysteresis_ratio,
#: image_strip_depth_tokens, tool_use_input_max_tokens, tool_result_max_last_n). A byte cap of 2,500 base64
#: characters is two or three of the corpus's images; None is the newer lines' 20 MiB default.
IMAGE_TOOL_SETTINGS = (
    (0, None, None, 1500, 0, None),
    (0, 2500, None, 0, 6, (("read", 1),)),
    (3, 2500, 0.5, 0, 6, None),
)
WORDS = (
    "context",
    "budget",
    "summary",
    "agent",
    "memory",
    "token",
    "cache",
    "recall",
    "tool",
    "result",
    "window",
    "store",
    "price",
    "grace",
    "refusal",
    "merge",
    "chunk",
    "level",
    "header",
    "answer",
)


@dataclass(frozen=True)
class WordEstimator:
    """A custom text estimator (a host's ``tokenEstimator``): four tokens for every three words, plus one."""

    name: str = "words*4/3+1"

    def __call__(self, s: str) -> Number:
        return math.ceil(len(s.split()) * 4 / 3) + 1

    def __repr__(self) -> str:
        return f"<estimator {self.name}>"


@dataclass(frozen=True)
class Axes:
    """One point of the grid but the budget: a template under an estimator, a mode and a carrier choice."""

    template: int
    estimator: str
    mode: str
    carriers: str

    @property
    def id(self) -> str:
        return f"t{self.template}/{self.estimator}/{self.mode}/{self.carriers}"


@dataclass(frozen=True)
class Cell:
    """One compile of the corpus: a store, a config and a budget, with where it sits in the grid."""

    axes: Axes
    budget_label: str
    store: Store
    config: Config
    budget: Budget

    @property
    def id(self) -> str:
        return f"{self.axes.id}/{self.budget_label}"


# ----------------------------------------------------------------------------- templates


def _prose(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words)).capitalize() + "."


def _messages(rng: random.Random, size: int) -> tuple[Message, ...]:
    out: list[Message] = []
    pending_tool: str | None = None
    for i in range(size):
        mid = f"m{i}"
        if i % 2 == 0:
            blocks: list = []
            if pending_tool is not None:
                result = _prose(rng, rng.randint(20, 300))
                xml = f"<function_results>{result[:40]}</function_results>"
                body = result if rng.random() < 0.5 else (Text(result),)
                blocks.append(ToolResult(pending_tool, body, raw_xml=xml))
                pending_tool = None
            if rng.random() < 0.3:
                data = "iVBORw0KGgo" + "A" * rng.choice((400, 900, 1800))
                blocks.append(Image(token_estimate=rng.choice((None, 400, 1200)), data=data))
            blocks.append(Text(_prose(rng, rng.randint(5, 160))))
            out.append(Message(mid, "user", tuple(blocks)))
        else:
            blocks = []
            if rng.random() < 0.35:
                blocks.append(Thinking(_prose(rng, rng.randint(10, 120)), signature="sig" + "x" * rng.randint(8, 80)))
            blocks.append(Text(_prose(rng, rng.randint(10, 250))))
            if rng.random() < 0.3 and i + 1 < size:
                pending_tool = f"tu{i}"
                name, path = rng.choice(("grep", "read", "read", "run")), f"src/{rng.choice(WORDS)}.ts"
                xml = f'<invoke name="{name}"><parameter name="path">{path}</parameter></invoke>'
                blocks.append(ToolUse(pending_tool, name, {"path": path, "n": rng.randint(1, 99)}, raw_xml=xml))
            out.append(Message(mid, "assistant", tuple(blocks)))
    return tuple(out)


def _reply(rng: random.Random, text: str) -> tuple | None:
    """A summary's reply with reasoning (signed thinking, then the text), or None for about half."""
    if rng.random() < 0.5:
        return None
    return (Thinking(_prose(rng, rng.randint(10, 60)), signature="sig" + "y" * 40), Text(text))


def _summary(
    rng: random.Random, sid: str, level: int, sources: list, first: str, last: str, parent: str | None
) -> Summary:
    text = _prose(rng, rng.randint(15, 90) * level)
    estimate = math.ceil(len(text) / 2.9)
    tokens = round(estimate * rng.choice((0.6, 0.9, 1.0, 1.1, 1.6, 2.5)))  # undercounts and overcounts
    ids = tuple(s if isinstance(s, str) else s.id for s in sources)
    return Summary(sid, level, text, tokens, level - 1, ids, (first, last), parent, _reply(rng, text))


def _tree(rng: random.Random, messages: tuple[Message, ...]) -> tuple[Summary, ...]:
    """L1 chunks over the middle (leaving a few messages raw), merged into L2s, two L2s into an L3."""
    n = len(messages)
    start, stop = 2, n - 4
    chunks: list[tuple[int, int]] = []
    i = start
    while i < stop:
        width = rng.randint(3, 6)
        last = min(i + width, stop) - 1
        if rng.random() < 0.85:
            chunks.append((i, last))
        i = last + 1
    groups: list[list[int]] = []
    k = 0
    while k < len(chunks):
        take = rng.randint(2, 3) if rng.random() < 0.85 else 1
        groups.append(list(range(k, min(k + take, len(chunks)))))
        k += take
    merged = [g for g in groups if len(g) > 1]
    l3_over = merged[:2] if len(merged) >= 2 and rng.random() < 0.8 else []
    l2_ids = {tuple(g): f"L2-{j}" for j, g in enumerate(merged)}
    l3_id = "L3-0" if l3_over else None
    parents: dict[int, str] = {c: l2_ids[tuple(g)] for g in merged for c in g}
    mid = lambda j: messages[j].id  # noqa: E731
    l1s = [
        _summary(rng, f"L1-{c}", 1, [mid(j) for j in range(a, b + 1)], mid(a), mid(b), parents.get(c))
        for c, (a, b) in enumerate(chunks)
    ]
    l2s = [
        _summary(
            rng,
            l2_ids[tuple(g)],
            2,
            [l1s[c] for c in g],
            mid(chunks[g[0]][0]),
            mid(chunks[g[-1]][1]),
            l3_id if g in l3_over else None,
        )
        for g in merged
    ]
    l3s = []
    if l3_over:
        over = [s for s in l2s if s.parent_id == l3_id]
        l3s = [_summary(rng, l3_id, 3, over, over[0].source_range[0], over[-1].source_range[1], None)]
    return tuple(l1s + l2s + l3s)


def _work(rng: random.Random, messages: tuple[Message, ...], summaries: tuple[Summary, ...]) -> tuple[Work, ...]:
    out: list[Work] = []
    if rng.random() < 0.5:
        j = rng.randint(2, len(messages) - 1)
        out.append(Work("chunk", "queued", frozenset(m.id for m in messages[j : j + 3])))
    roots = [s for s in summaries if s.parent_id is None and s.level == 1]
    if len(roots) >= 2 and rng.random() < 0.4:
        out.append(Work("merge", "queued", frozenset(s.id for s in roots[:2])))
    return tuple(out)


@lru_cache(maxsize=64)
def template(seed: int, size: int, k: int) -> tuple[Store, Config]:
    """Template ``k`` of the corpus ``(seed, size)``: a store (default estimator) and its host's config."""
    rng = random.Random(f"cmharness-corpus/{seed}/{size}/{k}")
    messages = _messages(rng, max(size, 12))
    summaries = _tree(rng, messages)
    store = Store(messages=messages, summaries=summaries, work=_work(rng, messages, summaries))
    head = sum(_e(store, m) for m in messages[:2])
    recent = sum(_e(store, m) for m in messages[-4:])
    level = max(200, sum(_e(store, m) for m in messages) // 6)
    images, image_bytes, ratio, depth, input_cap, last_n = IMAGE_TOOL_SETTINGS[k % 3]
    config = Config(
        max_live_images=images,
        max_live_image_bytes=image_bytes,
        image_strip_hysteresis_ratio=ratio,
        image_strip_depth_tokens=depth,
        tool_use_input_max_tokens=input_cap,
        tool_result_max_last_n=last_n,
        head_window_tokens=head,
        recent_window_tokens=recent,
        max_message_tokens=CAPS[k % 4],
        recall_envelope=ENVELOPES[(k // 2) % 2],
        recall_header_template=HEADERS[(k // 4 + k) % 2],
        l1_budget_tokens=level,
        l2_budget_tokens=level,
        l3_budget_tokens=level,
    )
    return store, config


def _e(store: Store, m: Message) -> int:
    return int(content_tokens(m.content, store))


def variant_store(store: Store, config: Config, axes: Axes) -> tuple[Store, Config]:
    """The template under an estimator, a mode and a carrier choice."""
    if axes.carriers == "no-carriers":
        store = replace(store, summaries=tuple(replace(s, response_content=None) for s in store.summaries))
    if axes.estimator == "custom":
        store = replace(store, text_estimator=WordEstimator())
    elif axes.estimator == "calibrated":
        store = replace(store, calibration=CALIBRATION)
    return store, replace(config, positioned_recall_pairs=axes.mode == "positioned")


# ----------------------------------------------------------------------------- the store's edges


def _unlimited(store: Store, config: Config, variant: str):
    strategy = HierarchicalStrategy(config, variant)
    strategy.initialize(store)
    try:
        return strategy.compile(UNLIMITED, dry_run=True)
    except Exception:
        return None


def edges(store: Store, config: Config) -> dict[str, Number]:
    """Twelve budgets at the store's own edges: the head's price and one below, halfway, the grace boundary
    of the price without the summaries' floors, of what each faithful variant charges and of the reference
    price of the sound compile (and one below each), that price itself, and twice it."""
    sent = _unlimited(store, config, SOUND)
    entries = sent.entries if sent is not None else ()
    exact = reference_price(entries, store, config) if entries else sum(_e(store, m) for m in store.messages)
    held = [store.summary(sid) for e in entries if e.kind == "answer" for sid in e.summary_ids]
    floorless = exact - sum((excess(s, store, config) for s in held), 0)
    head = head_total(store, config, head_end(store, config))
    g = config.over_budget_grace_ratio  # input_budget_for reads it as Math.max(0, g) does: NaN stays NaN

    def boundary(price: Number) -> Number:
        return input_budget_for(price, g) or price

    charged = {}
    for label, variant in FAITHFUL_EDGES.items():
        result = _unlimited(store, config, variant)
        charged[label] = boundary(result.stats.total.tokens if result is not None else exact)
    grace = boundary(exact)
    points = [
        head - 1,
        head,
        (head + exact) // 2,
        boundary(floorless),
        charged["main"] - 1,
        charged["main"],
        charged["pr"] - 1,
        charged["pr"],
        grace - 1,
        grace,
        exact,
        2 * exact,
    ]
    return {label: max(0, math.floor(p)) for label, p in zip(BUDGETS, points, strict=True)}


def grid(templates: int) -> Iterator[Axes]:
    for k in range(templates):
        for est in ESTIMATORS:
            for mode in MODES:
                for carriers in CARRIERS:
                    yield Axes(k, est, mode, carriers)


def cells(seed: int, size: int, axes: Axes) -> list[Cell]:
    """The twelve cells of one grid point."""
    base_store, base_config = template(seed, size, axes.template)
    store, config = variant_store(base_store, base_config, axes)
    return [Cell(axes, label, store, config, Budget(max_tokens=b)) for label, b in edges(store, config).items()]
