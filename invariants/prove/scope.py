"""The scope of a proof (docs/model.md, The proof for small stores): which stores and settings are enumerated.

A scope is written ``PRESET`` or ``KEY=VALUE,...`` or both (``default,messages=4``); a list value separates its
items with ``/`` (``modes=positioned/combined``). ``parse_scope`` reads it; a bad key or value is a ``ValueError``
whose one line names it (an unknown name answered with the closest known one).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace

from reference.names import lookup, unknown

#: The contents a message may hold (``shapes.CONTENTS``); ``prose`` is the plain one, the others are rich.
CONTENT_NAMES: tuple[str, ...] = (
    "prose",
    "long",
    "dense",
    "astral",
    "empty",
    "thinking",
    "stamp-nan",
    "redacted",
    "image",
    "image-stamped",
    "call",
    "result",
    "document",
    "image-data",
    "two-images",
    "raw-parts",
)
#: The kinds a summary may be (``shapes.SUMMARY_KINDS``); ``plain`` is the plain one.
KIND_NAMES: tuple[str, ...] = ("plain", "floored", "blank", "nan", "empty-carriers", "dollar-id")
MODES: tuple[str, ...] = ("positioned", "combined")
ENVELOPES: tuple[str, ...] = ("none", "xml")
CARRIERS: tuple[str, ...] = ("full", "live-strip")
#: Store settings: ``plain`` (calibration 1), ``calibrated`` (1.3), ``work`` (queued chunk work folding the first
#: message), ``work-last`` (folding the last), ``merge`` (queued merge work folding the first summary; only with one).
STORE_KINDS: tuple[str, ...] = ("plain", "calibrated", "work", "work-last", "merge")
#: The message cap: ``off``, ``1`` (every text cut), ``edges`` (each content's text-only estimate and one below).
CAPS: tuple[str, ...] = ("off", "1", "edges")
#: The structural passes' settings, applied only to stores holding a tool or image block: ``off``; ``tools``
#: (keep the newest tool result, cap inputs at 1 token); ``images`` (one live image); ``depth`` (images deeper
#: than the newest message's price stripped); the newer lines' image settings, which ``sound`` reads nothing of:
#: ``bytes`` (a live-image byte cap of 1, so every image with a payload passes it), ``hysteresis`` (one live image,
#: a hysteresis ratio of 0.5).
PASSES: tuple[str, ...] = ("off", "tools", "images", "depth", "bytes", "hysteresis")


@dataclass(frozen=True)
class BadValue:
    """One bad number: the field it sets, of the budget (``budget``) or of the config, and its value."""

    field: str
    value: float
    budget: bool = False


#: The bad values (docs/model.md, The bad-value refusals), each put alone into the store's plain setting at its budget
#: edges: a budget, reserve, grace ratio, window, level budget or cap that is NaN, negative or infinite (``bad=none``:
#: none of them).
BAD_VALUES: dict[str, BadValue] = {
    "budget-nan": BadValue("max_tokens", math.nan, budget=True),
    "budget-negative": BadValue("max_tokens", -1, budget=True),
    "reserve-nan": BadValue("reserve_for_response", math.nan, budget=True),
    "reserve-negative": BadValue("reserve_for_response", -1, budget=True),
    "reserve-infinite": BadValue("reserve_for_response", math.inf, budget=True),
    "grace-nan": BadValue("over_budget_grace_ratio", math.nan),
    "grace-negative": BadValue("over_budget_grace_ratio", -0.5),
    "grace-infinite": BadValue("over_budget_grace_ratio", math.inf),
    "head-nan": BadValue("head_window_tokens", math.nan),
    "recent-nan": BadValue("recent_window_tokens", math.nan),
    "recent-negative": BadValue("recent_window_tokens", -1),
    "level-nan": BadValue("l1_budget_tokens", math.nan),
    "level-negative": BadValue("l1_budget_tokens", -1),
    "cap-nan": BadValue("max_message_tokens", math.nan),
    "cap-negative": BadValue("max_message_tokens", -1),
}
BAD_NAMES: tuple[str, ...] = tuple(BAD_VALUES)


@dataclass(frozen=True)
class Scope:
    """Every dimension of a proof and its values (``describe`` prints them all)."""

    messages: int = 3
    summaries: int = 2
    levels: int = 2
    rich: int = 1
    odd: int = 1
    contents: tuple[str, ...] = CONTENT_NAMES
    kinds: tuple[str, ...] = KIND_NAMES
    modes: tuple[str, ...] = MODES
    envelopes: tuple[str, ...] = ENVELOPES
    carriers: tuple[str, ...] = ("full",)
    stores: tuple[str, ...] = ("plain",)
    caps: tuple[str, ...] = ("off", "1")
    passes: tuple[str, ...] = PASSES
    graces: tuple[float, ...] = (0.02,)
    reserves: tuple[int, ...] = (0,)
    edges: int = 2
    carry: int = 1
    bad: tuple[str, ...] = BAD_NAMES

    def describe(self) -> list[str]:
        """The scope in full, one line a dimension."""
        plain = "prose"
        return [
            f"messages     1..{self.messages} per store, participants alternating user/assistant"
            " (calls and reasoning from the assistant, results from the user)",
            f"contents     each message {plain!r}, except at most {self.rich} per store from: "
            + ", ".join(self.contents),
            f"summaries    0..{self.summaries} per store, levels 1..{self.levels}: L1s over every set of disjoint runs"
            " of messages, an L2 over every run of adjacent L1s (merged L1s unmerged no more)",
            f"kinds        each summary 'plain', except at most {self.odd} per store of: " + ", ".join(self.kinds),
            "pair modes   " + ", ".join(self.modes) + " (only with a summary)",
            "envelopes    " + ", ".join(self.envelopes) + " (only with a summary)",
            "carriers     " + ", ".join(self.carriers) + " (only with a summary)",
            "stores       " + ", ".join(self.stores) + " (calibration 1.3; queued chunk work folding the first or the"
            " last message; queued merge work folding the first summary, only with one); a setting other than plain"
            " only on a store whose messages are all prose",
            "caps         " + ", ".join(self.caps),
            "passes       " + ", ".join(self.passes) + " (only with a tool or image block; else off; bytes: a"
            " live-image byte cap of 1, hysteresis: one live image and a hysteresis ratio of 0.5)",
            "grace        " + ", ".join(repr(g) for g in self.graces),
            "reserve      " + ", ".join(str(r) for r in self.reserves),
            f"head window  0 and every prefix sum of the messages' prices{' and one below' if self.edges > 1 else ''}",
            f"recent window 0 and every suffix sum of the messages' (post-strip) prices"
            f"{' and one below' if self.edges > 1 else ''}",
            "levels       l3 0; l2 at each sum of L2 tokens, l1 so that the L1 allowance (with what L2 left) is at"
            f" each sum of L1 tokens{' and one below' if self.edges > 1 else ''}; the largest sum stands for every"
            " budget above it"
            + ("; each also with one token moved from l1 to l3 (the carry through two levels)" if self.carry else "")
            + " (no summary: the defaults)",
            "budget       unlimited, 0, and for every sum the compile compares with the grace limit (each prefix of"
            " the items sent, the tail accepted newest first) the least input budget whose grace limit reaches it"
            " and one below; every head + selected + tokens the waterfall compares with the input budget, and one"
            " below; repeated over the layout at each new budget until no new sum appears",
            "bad values   "
            + (", ".join(self.bad) or "none")
            + " (each alone, in the store's first setting with the default windows and levels, at each budget of"
            " that setting)",
        ]


#: ``small`` for the test command (under a minute on 2 cores), ``default`` for ``cmharness prove`` (under ten minutes
#: on 2 cores), ``deep`` for a larger machine or a CI matrix (``--shard``).
PRESETS: dict[str, Scope] = {
    "small": Scope(
        messages=2,
        summaries=1,
        levels=1,
        contents=("long", "call"),
        kinds=("floored", "blank", "dollar-id"),
        envelopes=("none",),
        caps=("off", "1"),
        passes=("off",),
        edges=1,
        carry=0,
    ),
    "default": Scope(
        stores=("plain", "calibrated", "work", "work-last", "merge"),
        messages=2,
        summaries=1,
        levels=1,
        contents=("long", "stamp-nan", "image", "call", "result"),
        kinds=("floored", "blank", "nan", "dollar-id"),
        caps=("off", "1"),
        passes=("off", "images", "tools"),
        edges=1,
        carry=0,
    ),
    "deep": Scope(
        messages=3,
        summaries=2,
        levels=2,
        carriers=CARRIERS,
        stores=STORE_KINDS,
        caps=CAPS,
        graces=(0.02, 0.0),
        reserves=(0, 3),
        edges=2,
    ),
}

_LISTS: dict[str, tuple[str, ...]] = {
    "contents": CONTENT_NAMES,
    "kinds": KIND_NAMES,
    "modes": MODES,
    "envelopes": ENVELOPES,
    "carriers": CARRIERS,
    "stores": STORE_KINDS,
    "caps": CAPS,
    "passes": PASSES,
    "bad": BAD_NAMES,
}
_INTS: dict[str, tuple[int, int]] = {
    "messages": (1, 8),
    "summaries": (0, 4),
    "levels": (1, 2),
    "rich": (0, 8),
    "odd": (0, 4),
    "edges": (1, 2),
    "carry": (0, 1),
}


def _number(key: str, text: str, kind: type) -> float | int:
    try:
        value = kind(text)
    except ValueError:
        raise ValueError(f"{key}={text!r} is not a {'number' if kind is float else 'whole number'}") from None
    if value != value or value < 0 or value in (float("inf"),):
        raise ValueError(f"{key}={text!r} must be a finite number >= 0")
    return value


def parse_scope(spec: str) -> Scope:
    """A scope from ``PRESET``, ``KEY=VALUE,...`` or both; a ``ValueError`` naming the bad part otherwise."""
    scope = PRESETS["default"]
    names = {f.name for f in fields(Scope)}
    for k, part in enumerate(p.strip() for p in spec.split(",")):
        if not part:
            raise ValueError(f"an empty item in {spec!r}")
        if "=" not in part:
            if k:
                raise ValueError(f"the preset {part!r} must come first")
            scope = lookup("scope preset", part, PRESETS)
            continue
        key, _, text = (s.strip() for s in part.partition("="))
        if key not in names:
            raise ValueError(unknown("scope key", key, sorted(names)))
        if not text:
            raise ValueError(f"{key} has no value")
        if key in _INTS:
            low, high = _INTS[key]
            value = _number(key, text, int)
            if not low <= value <= high:
                raise ValueError(f"{key}={value} is out of range ({low}..{high})")
            scope = replace(scope, **{key: value})
        elif key == "bad" and text == "none":
            scope = replace(scope, bad=())
        elif key in _LISTS:
            items = tuple(t.strip() for t in text.split("/"))
            for item in items:
                if item not in _LISTS[key]:
                    raise ValueError(f"{key}: " + unknown(key.rstrip("s"), item, _LISTS[key]))
            scope = replace(scope, **{key: tuple(dict.fromkeys(items))})
        elif key == "graces":
            scope = replace(scope, graces=tuple(dict.fromkeys(float(_number(key, t, float)) for t in text.split("/"))))
        else:  # reserves
            scope = replace(scope, reserves=tuple(dict.fromkeys(int(_number(key, t, int)) for t in text.split("/"))))
    return scope


def scope_spec(scope: Scope) -> str:
    """The ``KEY=VALUE,...`` spec that ``parse_scope`` reads back as ``scope``."""
    parts = []
    for f in fields(Scope):
        value = getattr(scope, f.name)
        shown = ("/".join(str(v) for v in value) or "none") if isinstance(value, tuple) else value
        parts.append(f"{f.name}={shown}")
    return ",".join(parts)
