"""The known defects (docs/model.md, Known defects) and the newer lines' behaviours: named switches, each
pointing at its source.

A variant is a set of defects and a set of line behaviours.  The compile is the ``sound`` algorithm; each
defect is one small, marked departure from it, and each ``Behaviour`` one thing a newer TypeScript line
does that the seed-era lines do not; both are tested with ``defects.on(X)`` at the one place they apply.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum

from reference.errors import UnknownNameError
from reference.names import closest, did_you_mean, lookup
from reference.variant_names import HYSTERESIS, MAIN, PR, RAW_FORMS, SOUND


class Defect(Enum):
    """One known departure from the sound compile.  The value is (source, one-line description)."""

    COMBINED_UNCHECKED = ("seed", "the combined pair is not checked against the grace limit")
    COMBINED_NO_FLOOR = ("seed", "the combined pair is priced by its rendered estimate alone (no floor)")
    VIEW_NEVER_BOUND = ("seed", "the store view is never bound on this path; recall pairs take the fallback")
    MEMO_SURVIVES_INITIALIZE = ("seed", "the answer-price memo survives initialize")
    HEAD_AS_MIDDLE = ("seed", "middle refusals report the head as middle (head_tokens 0)")
    CLEARED_BY_ANYWHERE = ("seed", "middle refusals name compression for any work anywhere")
    QUESTION_PRICED_AS_LABEL = ("seed, #305", "a positioned question is priced as the label, not the header sent")
    ANSWER_PRICED_UNCAPPED = ("seed, #305", "a positioned answer is priced uncapped though sent capped")
    ENVELOPE_ABSORBED = ("seed, #305", "the envelope's tags are absorbed when the floor wins")
    COVERAGE_COUNTS_LEFT_OUT = ("seed, #307", "coverage counts combined summaries the cap left out")
    HEAD_CLEARED_BY_ANYWHERE = ("this model", "a head refusal names compression for any work")
    RAW_CAP_PLUS_50 = ("TypeScript", "a raw message under a cap is priced min(E, cap + 50), not what is sent")
    STAMPS_VERBATIM = ("TypeScript", "stamps and Image estimates are used verbatim (NaN, negative)")
    COMBINED_STATS_TOKENS = ("TypeScript", "the combined pair's stats record each summary's tokens, not the price")
    UNCHECKED_BAD_VALUES = (
        "TypeScript",
        "bad budgets, grace ratios, windows, estimator outputs and summary "
        "tokens pass unchecked (a NaN tokens poisons the waterfall)",
    )
    EMPTY_CARRIERS_FLOOR = ("TypeScript", "an empty carrier list still floors")
    COMBINED_SELECTION_ORDER = (
        "this model",
        "the combined answer follows the selection order, so its bytes change with the budget",
    )
    DEEP_WINDOW_CANDIDATES = (
        "TypeScript",
        "L2+ summaries touching the head or tail stay candidates (raw content sent twice)",
    )
    DRY_RUN_FILLS_MEMO = ("TypeScript", "a dry run fills the answer-price memo")
    HEADER_REPLACE_CHAINED = (
        "TypeScript",
        "the positioned question fills its placeholders with four chained "
        "String.replace calls (buildRecallHeader): $&, $$, $` and $' in a value are "
        "expanded, and a value holding a later placeholder is filled again",
    )
    BLANK_SUMMARIES_SELECTED = (
        "TypeScript",
        "blank summaries (empty after JavaScript's trim) stay candidates "
        "(getAntiRedundantSummaries): positioned emission skips them, the combined "
        "answer sends them blank and counts their messages as covered",
    )
    TOOL_PASSES_UNPRICED = (
        "TypeScript",
        "postProcessToolEntries (trimOrphanedToolUse, enforceToolPairing, "
        "pruneToolEntries) runs after the render-stats tally and the grace checks: what "
        "it removes stays charged, the stubs and moved results it adds go uncharged",
    )
    TRIM_DROPS_TRAILING_TOOL_USE = (
        "TypeScript",
        "trimOrphanedToolUse pops a trailing tool_use entry after "
        "assertFullCoverage: its message is lost with no UncoveredDropError",
    )
    TAIL_PRICED_PRE_STRIP = (
        "TypeScript",
        "selectHierarchical calls emitRecentNewestFirst without "
        "postStripEstimates: a tail image sent as a placeholder is priced whole",
    )
    IMAGE_COUNT_STORE_WIDE = (
        "TypeScript",
        "postStripEstimates counts the maxLiveImages newest images over the "
        "whole store, applyImageStripping over the entries sent: an image the "
        "summarised middle pushed out of the count is priced as a placeholder but sent",
    )

    DEPTH_RULE_OFF_BY_ONE = (
        "TypeScript",
        "postStripEstimates (and maybeAdvanceImageWatermark) call a message deep when the "
        "messages NEWER than it pass imageStripDepthTokens, getImageStripStart (and so "
        "applyImageStripping) when it and the newer ones do: the boundary message's image "
        "is sent as a placeholder but priced whole in the recent-window walk",
    )
    PRUNE_WRITES_STORE = (
        "TypeScript",
        "pruneToolEntries writes the capped tool_use input and the last-N result marker "
        "into the entry's content array, which is the store's own for a message sent "
        "uncut: the compile rewrites the stored messages",
    )

    # The seed's removals that no variant carries: each undoes one part of the change.
    FLOOR_UNHELD = ("seed removal", "the combined pair floors every selected summary, held or not")
    VIEW_NOT_RESTORED = ("seed removal", "the view bound for the select is left bound after it")
    PREFIX_NO_RAW = ("seed removal", "the refused prefix leaves out the raw messages before the refused item")
    PREFIX_NO_LEAVES = ("seed removal", "the refused prefix leaves out the leaves of the pairs sent before")
    PREFIX_NO_REFUSED = ("seed removal", "the refused prefix leaves out the refused item itself")
    NARROW_NO_CHUNK = ("seed removal", "chunk work counts in cleared_by whatever it folds")
    NARROW_NO_MERGE = ("seed removal", "merge work counts in cleared_by whatever it folds")
    COMBINED_PREFIX_AT_PAIR = ("seed removal", "the prefix at the combined pair leaves out its summaries")
    COMBINED_PREFIX_AT_RAW = (
        "seed removal",
        "the prefix at a raw message after the combined pair leaves out the pair's summaries",
    )

    @property
    def source(self) -> str:
        return self.value[0]

    @property
    def description(self) -> str:
        return self.value[1]


#: The defects the seed's change fixes: present on main, gone in the PR.
SEED_FIXED: frozenset[Defect] = frozenset(
    {
        Defect.COMBINED_UNCHECKED,
        Defect.COMBINED_NO_FLOOR,
        Defect.VIEW_NEVER_BOUND,
        Defect.MEMO_SURVIVES_INITIALIZE,
        Defect.HEAD_AS_MIDDLE,
        Defect.CLEARED_BY_ANYWHERE,
    }
)

#: Switches that undo one part of the seed's change and belong to no variant (mutants only).
REMOVALS: frozenset[Defect] = frozenset(d for d in Defect if d.source == "seed removal")

#: Defects found on the newer lines only (docs/model.md, Variants): carried by their variants, not the seed's.
NEWER_LINES: frozenset[Defect] = frozenset({Defect.DEPTH_RULE_OFF_BY_ONE, Defect.PRUNE_WRITES_STORE})

#: The defects of docs/model.md, Known defects (the suite's included), carried by the faithful seed variants.
KNOWN: frozenset[Defect] = frozenset(Defect) - REMOVALS - NEWER_LINES

#: The defects the seed's change leaves ("What this leaves", and what the TypeScript still does).
SEED_LEFT: frozenset[Defect] = KNOWN - SEED_FIXED


class Behaviour(Enum):
    """A behaviour of a newer TypeScript line that the seed-era lines (and ``sound``) lack: a named switch like
    a defect.  The value is (the lines that have it, one-line description)."""

    LIVE_IMAGE_BYTE_WALL = (
        "a95eb55b, cbe7032a",
        "applyImageStripping and postStripEstimates also cap the live images' base64 characters at "
        "maxLiveImageBytes (20 MiB when unset, so stripping is on by default): an image is stripped when "
        "the bytes kept so far plus its own pass the cap",
    )
    IMAGE_PLACEHOLDER_DROPPED = (
        "a95eb55b, cbe7032a",
        "a stripped image is sent as '[image dropped from live context]' (IMAGE_PLACEHOLDER)",
    )
    IMAGES_FIRST_BLOCK_FIRST = (
        "a95eb55b, cbe7032a",
        "within one message the live-image count runs from its first block on (content.map), so a "
        "message keeps the first of its images, not the last",
    )
    IMAGE_STRIP_HYSTERESIS = (
        "a95eb55b",
        "imageStripHysteresisRatio in (0, 1): when a live-image limit binds, a watermark (strategy "
        "state, kept across compiles) advances so that what is newer fits ratio x each limit; images "
        "at or below it stay stripped",
    )

    BUDGET_DIAGNOSTICS = (
        "a95eb55b, cbe7032a",
        "the budget diagnostics of 57b92494: overBudgetError (summaryInventoryDiagnostics) adds the "
        "summary inventory to every refusal's diagnostics (deepestAvailableLevel: the highest level among "
        "all stored summaries, merged ones included, 0 when none; summaryCountsByLevel: how many per "
        "level), and OverBudgetError's message takes its labelled wording: the unit's count, the "
        "attempted level, the inventory and configured/response reserve/input budget",
    )

    RAW_FORMS_RELEASED = (
        "cbe7032a",
        "an edit (the message cap, pairing's drop or move, pruning's cap or marker) releases every raw "
        "replay form (rawXml, rawItem) an edited, dropped or moved block shared, from every block of the "
        "message that carries it; and pruning copies the entry's content before it writes",
    )


#: What the hysteresis line sends, prices and refuses: the TypeScript at a95eb55b (autobiographical.ts, stored id
#: 71654488230; applyImageStripping, maybeAdvanceImageWatermark, belowImageWatermark, postStripEstimates,
#: pruneToolEntries read there), with every known defect: the seed's change never reached this line (its
#: selectHierarchical, read there, has main's combined pair and refusals).
HYSTERESIS_A95EB55B = HYSTERESIS
#: The raw-forms line: the TypeScript at cbe7032a (autobiographical.ts, stored id 71528811339; applyImageStripping,
#: postStripEstimates and pruneToolEntries, copy-on-write there, read at that version); every known defect, as on
#: the hysteresis line (selectHierarchical read there too).
RAW_FORMS_CBE7032A = RAW_FORMS

#: The image behaviours both newer lines share.
_NEWER_IMAGES: frozenset[Behaviour] = frozenset(
    {Behaviour.LIVE_IMAGE_BYTE_WALL, Behaviour.IMAGE_PLACEHOLDER_DROPPED, Behaviour.IMAGES_FIRST_BLOCK_FIRST}
)
#: What both newer lines share besides: the budget diagnostics of 57b92494 (summaryInventoryDiagnostics and
#: overBudgetError at a95eb55b ~375.3k and cbe7032a ~375.5k; the hierarchical throw sites at a95eb55b ~450.6k and
#: ~466-470k name each refusal's unit and the attempted level).
_NEWER_SHARED: frozenset[Behaviour] = _NEWER_IMAGES | {Behaviour.BUDGET_DIAGNOSTICS}

VARIANTS: Mapping[str, frozenset[Defect]] = {
    MAIN: KNOWN,
    PR: SEED_LEFT,
    SOUND: frozenset(),
    HYSTERESIS_A95EB55B: KNOWN | {Defect.DEPTH_RULE_OFF_BY_ONE, Defect.PRUNE_WRITES_STORE},
    RAW_FORMS_CBE7032A: KNOWN | {Defect.DEPTH_RULE_OFF_BY_ONE},
}

#: Each variant's line behaviours (a variant not listed has none).
LINE_BEHAVIOURS: Mapping[str, frozenset[Behaviour]] = {
    HYSTERESIS_A95EB55B: _NEWER_SHARED | {Behaviour.IMAGE_STRIP_HYSTERESIS},
    RAW_FORMS_CBE7032A: _NEWER_SHARED | {Behaviour.RAW_FORMS_RELEASED},
}


@dataclass(frozen=True)
class Defects:
    """The defects and line behaviours switched on for one compile."""

    active: frozenset[Defect] = frozenset()
    behaviours: frozenset[Behaviour] = frozenset()

    def on(self, switch: Defect | Behaviour) -> bool:
        return switch in self.active or switch in self.behaviours


@dataclass(frozen=True)
class Resumed:
    """A variant's switches and the state its strategy starts from: the hysteresis watermark earlier compiles of the
    same strategy left, so that another strategy (a judge's) compiles on where that one stands."""

    defects: Defects
    watermark: int | None = None


def resolve_variant(variant: str | frozenset[Defect] | Defects | Resumed) -> Defects:
    """A variant name, a defect set, a ``Defects`` or a ``Resumed`` as a ``Defects``; unknown names are refused."""
    if isinstance(variant, Resumed):
        return variant.defects
    if isinstance(variant, Defects):
        return variant
    if isinstance(variant, frozenset):
        return Defects(variant)
    return Defects(lookup("variant", variant, VARIANTS), LINE_BEHAVIOURS.get(variant, frozenset()))


def parse_variant(spec: str) -> Defects:
    """A variant spec as a ``Defects``: a variant name, optionally followed by ``+D1,D2`` (switch on) and
    ``-D3`` (switch off) from any base: ``sound+QUESTION_PRICED_AS_LABEL``, ``pr-8bb01ab8-COMBINED_NO_FLOOR``.

    A bad spec raises ``ValueError`` with a one-line message naming the closest known names (at most three).
    """
    spec = spec.strip()
    # No variant name begins another's followed by "+" or "-", so at most one base matches.
    base = next((v for v in VARIANTS if spec == v or spec.startswith((v + "+", v + "-"))), None)
    if base is None:
        head = re.split(r"[+](?=[A-Za-z])", spec)[0]
        short = {v[: len(head)]: v for v in VARIANTS}  # "mian" is close to "main", the start of main-48bb87a1
        starts = [v for v in VARIANTS if v.startswith(head)]  # "pr" names pr-8bb01ab8 alone
        close = starts or [short[c] for c in closest(head, short, n=len(short), cutoff=0.5)]  # every close one
        raise UnknownNameError(
            f"unknown variant {head!r} in {spec!r}{did_you_mean(close, repr)} (known: {', '.join(VARIANTS)})"
        )
    active = set(VARIANTS[base])
    behaviours = set(LINE_BEHAVIOURS.get(base, frozenset()))
    known = [*Defect.__members__, *Behaviour.__members__]
    rest = spec[len(base) :]
    for sign, names in re.findall(r"([+-])([^+-]*)", rest):
        for name in names.split(","):
            key = name.strip().upper()
            if not key:
                raise ValueError(f"a defect name is missing after {sign!r} in {spec!r}")
            if key in Behaviour.__members__:
                (behaviours.add if sign == "+" else behaviours.discard)(Behaviour[key])
                continue
            if key not in Defect.__members__:
                close = closest(key, known, n=3, cutoff=0.5)
                hint = did_you_mean(close, repr) or "; `cmharness defects` lists them"
                raise UnknownNameError(f"unknown defect {name.strip()!r} in {spec!r}{hint}")
            (active.add if sign == "+" else active.discard)(Defect[key])
    return Defects(frozenset(active), frozenset(behaviours))
