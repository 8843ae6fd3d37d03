"""Configs: any config docs/model.md allows, bad numbers included, mostly from a pool shrinking to the default."""

from __future__ import annotations

import functools
import random
from dataclasses import replace

from hypothesis import strategies as st

from invariants.generators.content import INF, NAN
from invariants.generators.draws import choice, spread
from reference.model import Config

window_sizes = choice(
    (5, [0]), (3, [1, 2, 3, 5, 8, 13, 21, 34, 55]), (1, [89, 144, 233, 377]), (1, [-1, NAN, INF, 10**9])
)
caps = choice(
    (6, [0]),
    (1, [None]),
    (3, [1, 2, 3, 4, 5, 6, 8, 10, 13, 16, 20]),
    (1, [25, 40, 60, 100, 150, 200]),
    (1, [0.5, 2.5, 1e-9]),
    (1, [NAN, -5, -INF, INF, -0.5]),
)
level_budgets = choice((6, [30000]), (2, [0, 1, 5, 20, 50, 100, 300]), (1, [10**12, NAN, -1]))
grace_ratios = choice((12, [0.02]), (5, [0, 0.1, 0.5, 1e-9]), (1, [NAN, -0.1, INF]))
labels = st.sampled_from(("What do you remember from earlier?", "", "Recall?", "{id}", "Recall 😀 [json]"))
templates = st.sampled_from(
    (
        "[Recall {id}]",
        "[Recall {id} L{level} {first}..{last}]",
        "{id}{id}{level}",
        "no placeholders",
        "{first}-{last} {unknown} {{id}}",
        "",
    )
)
_POSITIONED = st.sampled_from((True, False))
_ENVELOPES = st.sampled_from(("none", "xml"))
_CARRIER_POLICIES = st.sampled_from(("full", "live-strip"))
_SUMMARY_PARTICIPANTS = st.sampled_from(("Claude", "Assistant"))
_ENFORCE = choice((9, [True]), (1, [False]))

#: Image and tool-pruning settings: off mostly, tight enough to bite sometimes.
live_images = choice((4, [0]), (2, [1, 2]), (1, [3, 6]))
strip_depths = choice((4, [0]), (2, [5, 20, 60]), (1, [200, 1000]))
input_caps = choice((5, [0]), (1, [1, 3, 10]))
last_ns = choice((5, [None]), (1, [0, 1, 2]), (1, [(("read", 1),), (("grep", 0), ("read", 3))]))
#: The share of pooled configs with image and tool-pruning settings (the rest leave them off, as a store without
#: tools or images does not need them), and the settings they take: on more often than ``tool_configs``'.
TOOL_IMAGE_SHARE = 0.6
_POOLED_LIVE_IMAGES = choice((1, [0]), (3, [1]), (1, [2, 3]))
_POOLED_STRIP_DEPTHS = choice((2, [0]), (1, [5, 20, 60]), (1, [200, 1000]))
_POOLED_INPUT_CAPS = choice((1, [0]), (1, [1, 3, 10]))
_POOLED_LAST_NS = choice(
    (1, [None]),
    (2, [0, 1, 1, 2]),
    (
        3,
        [
            (("read", 0),),
            (("read", 1),),
            (("grep", 0), ("read", 1)),
            (("grep", 1), ("read", 1)),
            (("grep", 0), ("read", 3)),
        ],
    ),
)
#: Their recent windows, so that the newest tool cycles are sent raw rather than summarized.
_POOLED_RECENTS = (0, 0, 13, 34, 89, 144, 377)
#: The share of pooled configs that are combined with a tight message cap: where the cap leaves summaries out of
#: the combined answer (docs/model.md, Coverage).
TIGHT_COMBINED_SHARE = 0.15
_TIGHT_CAPS = (1, 2, 3, 5, 8)


@st.composite
def configs(draw: st.DrawFn) -> Config:
    """Any config docs/model.md, Config and budget, allows, bad numbers included."""
    return Config(
        head_window_tokens=draw(window_sizes),
        recent_window_tokens=draw(window_sizes),
        max_message_tokens=draw(caps),
        positioned_recall_pairs=draw(_POSITIONED),
        recall_envelope=draw(_ENVELOPES),
        carrier_policy=draw(_CARRIER_POLICIES),
        summary_context_label=draw(labels),
        recall_header_template=draw(templates),
        summary_participant=draw(_SUMMARY_PARTICIPANTS),
        l1_budget_tokens=draw(level_budgets),
        l2_budget_tokens=draw(level_budgets),
        l3_budget_tokens=draw(level_budgets),
        over_budget_grace_ratio=draw(grace_ratios),
        enforce_budget=draw(_ENFORCE),
    )


def _r_config(r: random.Random) -> tuple[bool, Config]:
    """A config, and whether it is plain (no image or tool-pruning setting, not a tight combined one)."""
    pick = r.choice
    config = Config(
        head_window_tokens=pick(window_sizes.elements),
        recent_window_tokens=pick(window_sizes.elements),
        max_message_tokens=pick(caps.elements),
        positioned_recall_pairs=r.random() < 0.5,
        recall_envelope=pick(_ENVELOPES.elements),
        carrier_policy=pick(_CARRIER_POLICIES.elements),
        summary_context_label=pick(labels.elements),
        recall_header_template=pick(templates.elements),
        summary_participant=pick(_SUMMARY_PARTICIPANTS.elements),
        l1_budget_tokens=pick(level_budgets.elements),
        l2_budget_tokens=pick(level_budgets.elements),
        l3_budget_tokens=pick(level_budgets.elements),
        over_budget_grace_ratio=pick(grace_ratios.elements),
        enforce_budget=r.random() < 0.9,
    )
    plain = True
    if r.random() < TOOL_IMAGE_SHARE:
        plain = False
        config = replace(
            config,
            max_live_images=pick(_POOLED_LIVE_IMAGES.elements),
            image_strip_depth_tokens=pick(_POOLED_STRIP_DEPTHS.elements),
            tool_use_input_max_tokens=pick(_POOLED_INPUT_CAPS.elements),
            tool_result_max_last_n=pick(_POOLED_LAST_NS.elements),
            recent_window_tokens=pick(_POOLED_RECENTS),
        )
    if r.random() < TIGHT_COMBINED_SHARE:
        plain = False
        config = replace(config, positioned_recall_pairs=False, max_message_tokens=pick(_TIGHT_CAPS))
    return plain, config


def _config_rank(c: Config) -> int:
    """How far a config is from the default (the pool is sorted by it, so it shrinks toward the default)."""
    default = Config()
    return sum(repr(getattr(c, f)) != repr(getattr(default, f)) for f in Config.__dataclass_fields__)


@functools.cache
def config_pool() -> tuple[Config, ...]:
    """600 sampled configs, the plain ones nearest the default first, the others spread evenly through them
    (``spread``), each in the same order."""
    samples = sorted((_r_config(random.Random(18 + k)) for k in range(600)), key=lambda pc: _config_rank(pc[1]))
    return spread(tuple(c for plain, c in samples if plain), tuple(c for plain, c in samples if not plain))


@functools.cache
def pooled_configs() -> st.SearchStrategy[Config]:
    """A pooled config in one choice; built when first drawn."""
    return st.sampled_from(config_pool())


def draw_config(draw: st.DrawFn) -> Config:
    """A config from the pool, in one choice (``configs`` draws one field by field; ``polish`` plainens each
    field of a failing case's)."""
    return draw(pooled_configs())


@functools.cache
def config_choices() -> st.SearchStrategy[Config]:
    """A config (see ``draw_config``)."""
    return _draw_configs()


@st.composite
def _draw_configs(draw: st.DrawFn) -> Config:
    return draw_config(draw)
