"""Tool cycles and images: stores of calls and their answers, and configs whose windows fall among them."""

from __future__ import annotations

import math
from dataclasses import replace

from hypothesis import strategies as st

from invariants.generators.case import Case, cases
from invariants.generators.config_mix import configs, input_caps, last_ns, live_images, strip_depths
from invariants.generators.content import participants, prose, stamps, texts
from invariants.generators.draws import choice
from invariants.generators.store_shapes import calibrations, draw_summary_tree
from reference.model import Config, Image, Message, Store, Text, ToolResult, ToolUse


def _tool_use(k: int, name: str, size: int, keys: int = 0) -> ToolUse:
    """A call whose input holds a path and ``keys`` more keys, array-index keys among them."""
    extra = {key: size for key in ("mode", "1", "limit", "0", "offset")[:keys]}
    return ToolUse(f"u{k}", name, {"path": "a" * size, **extra})


_TURN_SHAPES = choice(
    (6, ["pair"]), (2, ["prose"]), (1, ["open-use", "orphan-result", "image"]), (1, ["late-result", "wide-use"])
)
#: The shapes of ``tool_cases(parallel=True)``: a message that makes two calls often, among plain pairs and orphans.
_PARALLEL_TURN_SHAPES = choice((3, ["parallel"]), (6, ["pair"]), (2, ["prose"]), (1, ["open-use", "orphan-result"]))
_IMAGE_STAMPS = choice((3, [None]), (1, [5, 40, 300]))
_ONE_IN_FIVE = st.integers(0, 4)
_TOOL_NAMES = st.sampled_from(("read", "grep"))
_INPUT_SIZES = st.integers(1, 40)
_FINITE_CALIBRATIONS = calibrations.filter(math.isfinite)


@st.composite
def tool_turns(draw: st.DrawFn, n: int, shapes: st.SearchStrategy[str] = _TURN_SHAPES) -> list[tuple[str, tuple]]:
    """``n`` messages of tool cycles: a call, then its answer, with prose, orphans and images between.

    Most calls are answered in the next message (a pair that a window boundary may split), some are
    left open (an orphaned tool_use, the newest message often is one), some answers answer nothing,
    some come a message late (the pairing pass moves them up), some calls have wide inputs; images sit
    in old and new messages alike. ``shapes`` may add one more: a message making two calls, the second answered in
    the next message, the first a message later (the pairing pass moves it in beside the other) or never (a stub).
    """
    turns: list[tuple[str, tuple]] = []
    k = 0
    while len(turns) < n:
        shape = draw(shapes)
        extra = (Image(draw(_IMAGE_STAMPS)),) if draw(_ONE_IN_FIVE) == 0 else ()
        if shape == "pair":
            name = draw(_TOOL_NAMES)
            turns.append(("Claude", (Text(draw(prose)), _tool_use(k, name, draw(_INPUT_SIZES)))))
            turns.append(("User", (ToolResult(f"u{k}", draw(texts)), *extra)))
            k += 1
        elif shape in ("late-result", "wide-use"):
            late = shape == "late-result"
            turns.append(("Claude", (_tool_use(k, "read", draw(_INPUT_SIZES), 0 if late else 5),)))
            turns += [("User", (Text(draw(texts)),))] if late else []
            turns.append(("User", (ToolResult(f"u{k}", draw(texts)), *extra)))
            k += 1
        elif shape == "parallel":
            first, second = _tool_use(k, "read", draw(_INPUT_SIZES)), _tool_use(k + 1, "grep", draw(_INPUT_SIZES))
            turns.append(("Claude", (Text(draw(prose)), first, second)))
            turns.append(("User", (ToolResult(second.id, draw(texts)), *extra)))
            if draw(st.booleans()):
                turns.append(("User", (ToolResult(first.id, draw(texts)),)))
            k += 2
        elif shape == "open-use":
            turns.append(("Claude", (_tool_use(k, "read", draw(_INPUT_SIZES)),)))
            k += 1
        elif shape == "orphan-result":
            turns.append(("User", (ToolResult(f"gone{k}", draw(texts)),)))
            k += 1
        elif shape == "image":
            turns.append(("User", (Text(draw(prose)), Image(draw(stamps)), *extra)))
        else:
            turns.append((draw(participants), (Text(draw(texts)), *extra)))
    return turns[:n]


@st.composite
def tool_stores(draw: st.DrawFn, max_messages: int = 10, parallel: bool = False) -> Store:
    """A store of tool cycles and images (see ``tool_turns``; ``parallel``: with two-call messages often),
    summarized like ``stores``, default estimator."""
    n = draw(st.integers(2, max_messages))
    turns = draw(tool_turns(n, _PARALLEL_TURN_SHAPES if parallel else _TURN_SHAPES))
    ids = [f"m{i}" for i in range(len(turns))]
    messages = tuple(Message(id=i, participant=p, content=c) for i, (p, c) in zip(ids, turns, strict=True))
    summaries = draw_summary_tree(draw, ids)
    return Store(messages=messages, summaries=summaries, calibration=draw(_FINITE_CALIBRATIONS))


_TOOL_HEADS = choice((2, [0]), (3, [5, 13, 21, 34, 55, 89]))
_TOOL_RECENTS = choice((2, [0]), (3, [5, 13, 21, 34, 55, 89, 144]))


@st.composite
def tool_configs(draw: st.DrawFn) -> Config:
    """Ordinary configs with windows that fall among the tool cycles, and the image and pruning settings."""
    base = draw(configs())
    return replace(
        base,
        head_window_tokens=draw(_TOOL_HEADS),
        recent_window_tokens=draw(_TOOL_RECENTS),
        max_live_images=draw(live_images),
        image_strip_depth_tokens=draw(strip_depths),
        tool_use_input_max_tokens=draw(input_caps),
        tool_result_max_last_n=draw(last_ns),
    )


def tool_cases(max_messages: int = 10, parallel: bool = False) -> st.SearchStrategy[Case]:
    """Cases over tool-cycle stores (``parallel``: with two-call messages often) and tool configs, with budgets on
    their edges."""
    return cases(store_strategy=tool_stores(max_messages, parallel), config_strategy=tool_configs())
