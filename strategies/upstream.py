"""The defects the TypeScript still has, as data for an upstream bug report (``cmharness defects --report``).

One ``UpstreamBug`` per defect whose source is the TypeScript (and the #305/#307 defects, which the
TypeScript has too): its title, what a correct compile does, the scenario file that pins it, and
where it is present: each branch tip, the function and, in a long function, the part of it the defect
is in, as a maintainer finds them in a checkout. The offset each was found at and whether it was read
for the report stay here for the project's own notes; no report prints them. The numbers of a report
(what is sent, priced or refused) are not here: ``reports`` computes them by compiling the scenario.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from strategies.defects import Defect
from strategies.provenance import VERSIONS

#: The branch tips a report is checked against (keys of ``VERSIONS``); none merges another.
TIPS: tuple[str, ...] = ("AB-H", "AB-R", "AB-BODY", "AB-B", "AB")

SCENARIO_DIR = "tests/scenarios/typescript-bugs"


@dataclass(frozen=True)
class Presence:
    """The defect in one version: the function, the part of it (in our words; empty for the whole function), and,
    for the project only, roughly where it was found and whether it was read for the report."""

    version: str
    function: str
    at: str = ""
    read: bool = False
    part: str = ""

    def __post_init__(self) -> None:
        if self.version not in VERSIONS:
            raise ValueError(f"presence in {self.function}: unknown version {self.version!r}")


@dataclass(frozen=True)
class UpstreamBug:
    """What a maintainer needs to file one defect upstream, less the numbers (computed per run).

    ``caveat`` is what a maintainer should check beyond the scenario (printed); ``sure`` is how the project came to
    know it (kept for its own notes, never printed)."""

    defect: Defect
    title: str
    should: str
    present: tuple[Presence, ...]
    scenario: str = ""
    upstream_says: str = ""
    sure: str = "certain: the code path was read and the scenario reproduces it in the model"
    caveat: str = ""

    @property
    def slug(self) -> str:
        return self.defect.name.lower().replace("_", "-")

    @property
    def scenario_path(self) -> str:
        return self.scenario or f"{SCENARIO_DIR}/{self.slug}.scenario.json"


def _at(version: str, function: str, at: str = "", read: bool = False, *, part: str = "") -> Presence:
    return Presence(version, function, at, read, part)


def _read(version: str, function: str, at: str, *, part: str = "") -> Presence:
    return Presence(version, function, at, True, part)


def _all_tips(function: str, read_at: Mapping[str, str] | None = None, *, part: str = "") -> tuple[Presence, ...]:
    """Present at every tip of ``TIPS``; ``read_at`` names, tip by tip, where it was read there (a tip it leaves out is
    taken from the research notes). A name that is not a tip is an error: offsets cannot slide to another tip."""
    read_at = dict(read_at or {})
    if unknown := sorted(set(read_at) - set(TIPS)):
        raise ValueError(f"presence in {function}: {unknown[0]!r} is not a tip (TIPS: {', '.join(TIPS)})")
    return tuple(_at(t, function, read_at.get(t, ""), read=bool(read_at.get(t)), part=part) for t in TIPS)


_D = Defect
_SH = "selectHierarchical"
_END = "its end: the tally, then assertFullCoverage, then postProcessToolEntries"
_TAIL = "the recent window's emission: its emitRecentNewestFirst call passes no post-strip estimates"
_COMBINED = "the combined recall pair's emission (positionedRecallPairs false): rsSummary for every selected summary"
_POSITIONED = "the positioned recall pairs' emission"
#: Where the end of selectHierarchical and the combined pair were read, tip by tip.
_END_AT = {"AB-H": "~474.3k", "AB-R": "~474.3k", "AB-BODY": "~474.5k", "AB-B": "~474.6k", "AB": "~475k"}
_COMBINED_AT = {"AB-H": "~470.3k", "AB-R": "~470.5k", "AB-BODY": "~470.2k", "AB-B": "~471.4k", "AB": "~472.4k"}
_SEED_REFUSALS = (
    "the over-budget refusals at a positioned pair, at a positioned raw message and at a raw message after the "
    "combined pair"
)
_SEED_COMBINED = "the combined recall pair's emission: priced as the estimate of question plus answer, no grace check"
_FLOOR = "the floor the positioned pair gets (measured tokens under the estimate)"
_STORE_WIDE = "counts the live images over the whole store"
_SENT_ONLY = "counts the live images over the entries sent"
_DEEP_WITH = "the depth test: the message and the newer ones pass imageStripDepthTokens"
_DEEP_WITHOUT = "the depth test: the newer messages alone pass imageStripDepthTokens"
_PRUNE = "assigns the capped blocks into entry.content"
_NO_VIEW = "binds no store view; raw messages are priced by store.estimateTokens"
_THROUGH_VIEW = "estimateTokens and the calibration through the view (1 when none is bound)"
_MEMO = "the _pairCostCache memo, keyed by id, tokens and config"
_MIRRORS = "resets the view and the calibration, not the memo"
#: Where the head's and the raw middle's price of a capped message was read, tip by tip.
_CAPPED_AT = {"AB-H": "~450.9k, ~467.6k", "AB-R": "~468.3k", "AB-BODY": "~467.9k", "AB-B": "~468.6k", "AB": "~470.6k"}
#: The seed's defects that the newer lines still carry: the pull request that fixes them was made against main.
_SEED_SAYS = (
    "A pull request against main (the combined-pair grace change) fixes this there; it is not on the newer "
    "lines listed under Where, whose code at those places is still main's."
)
_SEED_SURE = "certain: selectHierarchical was read at each tip listed and the scenario reproduces it in the model"


def _positioned(read_at: Mapping[str, str]) -> tuple[Presence, ...]:
    """The positioned pairs' pricing: their emission in selectHierarchical and recallPairCost, at every tip."""
    return (*_all_tips(_SH, read_at, part=_POSITIONED), *_all_tips("recallPairCost", read_at))


BUGS: Mapping[Defect, UpstreamBug] = {
    b.defect: b
    for b in (
        UpstreamBug(
            _D.TOOL_PASSES_UNPRICED,
            "Hierarchical select: tool-pairing stubs and moved results are added after the budget check, unpriced",
            "Price what the tool passes add and remove before the grace check (or run the passes before the "
            "tally), so that RenderStats.total and the refusal decision are about the context actually sent.",
            _all_tips(_SH, _END_AT, part=_END),
            upstream_says="The comment before applyImageStripping at the end of selectHierarchical says stats "
            "are committed after stripping so RenderStats.total reflects the context sent; the tool passes "
            "run at the same place and their additions reach neither the stats nor the grace check.",
        ),
        UpstreamBug(
            _D.TRIM_DROPS_TRAILING_TOOL_USE,
            "Hierarchical select: a trailing unanswered tool_use message is dropped after the coverage check",
            "Answer the open call with the stub result the pairing pass already makes for a missing result "
            "(and price it), or refuse with UncoveredDropError; never send a context without the newest message.",
            (
                _read("AB-H", "trimOrphanedToolUse", "~523.5k", part="called first by postProcessToolEntries"),
                _read("AB-H", "assertFullCoverage", "~222k", part="its doc comment: the passes out of its scope"),
                *_all_tips(_SH, _END_AT, part=_END),
            ),
            upstream_says="assertFullCoverage's doc comment puts the tool-pairing, orphan and image passes out "
            "of its scope on purpose: they make structural edits for the API's shape, not budget loss. The case "
            "against: the pass removes a whole entry, the agent's newest message with everything in it, which "
            "is not a shape fix but loss of the turn the agent must act on; the same comment describes the check "
            "as one on the finished output that does not care how something went missing, yet this loss comes "
            "after it; and the shape rule can be met without loss: enforceToolPairing already appends stub "
            "results for calls left open at the end of the list (its own comment says so), but "
            "trimOrphanedToolUse runs first and pops the entry.",
            sure="certain that the entry is popped after the check (read); the design intent is upstream's to weigh",
            caveat="Whether the coverage check should see what the tool passes remove is upstream's to weigh; the "
            "case for it is under What upstream says.",
        ),
        UpstreamBug(
            _D.TAIL_PRICED_PRE_STRIP,
            "Hierarchical select: the recent window is priced before image stripping, so stripped images count whole",
            "Pass the post-strip estimates to emitRecentNewestFirst from selectHierarchical, as its optional "
            "parameter allows, so a placeholder is priced as a placeholder.",
            (
                _read("AB-H", "emitRecentNewestFirst", "~236.9k", part="its optional post-strip estimates parameter"),
                *_all_tips(_SH, _END_AT, part=_TAIL),
            ),
            upstream_says="emitRecentNewestFirst's own comment says eviction must price a message the way "
            "the stripped render will; this caller never gives it the estimates. On the hysteresis, raw-forms, "
            "body-instances and provenance tips the head and the raw middle are priced before stripping too "
            "; only the membrane line "
            "prices them after.",
        ),
        UpstreamBug(
            _D.IMAGE_COUNT_STORE_WIDE,
            "Image stripping counts live images over the whole store when pricing, over the entries when sending",
            "Count the newest live images over the same list in both places: the entries that will be sent.",
            (
                _read("AB", _SH, "~470.6k, ~473.2k", part="the raw middle, priced with the post-strip estimates"),
                _at("AB-H", "postStripEstimates", "~507.8-511.5k", part=_STORE_WIDE),
                *(_at(t, "postStripEstimates", part=_STORE_WIDE) for t in ("AB-R", "AB-BODY", "AB-B", "AB")),
                _at("AB-H", "applyImageStripping", "~502-505.5k", part=_SENT_ONLY),
                *(_at(t, "applyImageStripping", part=_SENT_ONLY) for t in ("AB-R", "AB-BODY", "AB-B", "AB")),
            ),
            sure="certain on the membrane line, where the raw middle is priced with the post-strip estimates "
            "(read); on the other tips the two counts differ the same way but the estimates feed only the "
            "recent window's start (getUnheldRecentWindowStart), which this model does not reproduce",
            caveat="On the membrane live-image-policy line the raw middle is priced with the post-strip estimates, "
            "so the two counts change what is charged; at the other tips listed the counts differ the same way but "
            "the estimates feed only the recent window's start (getUnheldRecentWindowStart), which the scenario "
            "does not exercise.",
        ),
        UpstreamBug(
            _D.HEADER_REPLACE_CHAINED,
            "buildRecallHeader: chained String.replace expands $ patterns and re-substitutes placeholders in ids",
            "Fill the four placeholders in one pass, inserting each value literally (a replacer function, or "
            "split/join), so an id or message id holding $&, $', $` or {level} is sent as it is.",
            _all_tips("buildRecallHeader", {"AB-H": "~483.1k", "AB": "~484.9k"}, part="the four chained replace calls"),
        ),
        UpstreamBug(
            _D.BLANK_SUMMARIES_SELECTED,
            "Hierarchical select: blank summaries stay candidates; the combined pair sends them as covering",
            "Leave blank summaries out of the candidates (as Phase 3c's claimer map already does), so their "
            "messages are claimed by another summary or sent raw.",
            (
                _read("AB-H", "getAntiRedundantSummaries", "~241.6k", part="the candidates: no filter for blank ones"),
                *_all_tips(_SH, _COMBINED_AT, part=_COMBINED),
            ),
            upstream_says="Upstream refuses blank summaries when they are pushed and drops them at load, and "
            "the positioned branch skips them with a comment that a legacy empty summary may already be in a "
            "store; the combined branch has no such guard.",
            sure="certain that the combined branch sends them (read); reaching it needs a blank summary in the "
            "store, which upstream's load path filters",
            caveat="Reaching it needs a blank summary in the store, which the load path filters out.",
        ),
        UpstreamBug(
            _D.QUESTION_PRICED_AS_LABEL,
            "Positioned recall pairs are priced with the context label, not the header that is sent (#305)",
            "Price the question as the header buildRecallHeader returns, and key the price memo on the template.",
            _positioned({"AB-H": "~466.9k, ~443.6k", "AB-R": "~467k", "AB-BODY": "~467.2k", "AB-B": "~467.3k"}),
            scenario="tests/scenarios/reports/305-question-priced-as-label.scenario.json",
        ),
        UpstreamBug(
            _D.ANSWER_PRICED_UNCAPPED,
            "Positioned recall answers are sent capped but priced uncapped (#305)",
            "Price the answer as summaryAnswerContentCapped returns it under maxMessageTokens.",
            _positioned({"AB-H": "~466.9k, ~443.9k", "AB-R": "~467k", "AB-BODY": "~467.2k", "AB-B": "~467.3k"}),
            scenario="tests/scenarios/reports/305-answer-priced-uncapped.scenario.json",
        ),
        UpstreamBug(
            _D.ENVELOPE_ABSORBED,
            "recallPairCost: the recall envelope's tags are not charged when the measured tokens win (#305)",
            "Add the envelope's own price to the measured tokens when the floor wins.",
            _all_tips(
                "recallPairCost", {"AB-H": "~443.9k"}, part="the floor at the measured tokens, envelope left out"
            ),
            scenario="tests/scenarios/reports/305-envelope-absorbed.scenario.json",
        ),
        UpstreamBug(
            _D.COVERAGE_COUNTS_LEFT_OUT,
            "Combined recall pair: summaries the message cap leaves out still count as covering their messages (#307)",
            "Record as emitted only the summaries the combined answer holds, so assertFullCoverage refuses.",
            (
                _read("AB-H", "assertFullCoverage", "~222.6k", part="expands the emitted summary ids"),
                *_all_tips(_SH, _COMBINED_AT, part=_COMBINED),
            ),
            scenario="tests/scenarios/reports/307-coverage-counts-left-out.scenario.json",
        ),
        UpstreamBug(
            _D.RAW_CAP_PLUS_50,
            "A raw message under maxMessageTokens is priced min(estimate, cap + 50), not as truncateContent leaves it",
            "Price the content truncateContent returns (an image or a tool block it keeps whole included).",
            (
                *_all_tips(_SH, _CAPPED_AT, part="the head's and the raw middle's price of a capped message"),
                *_all_tips("emitRecentNewestFirst", {"AB-H": "~238.6k"}, part="the price of a capped message"),
            ),
        ),
        UpstreamBug(
            _D.STAMPS_VERBATIM,
            "Block tokenEstimate stamps are used verbatim: NaN and negative stamps enter every budget sum",
            "Use a stamp only when it is a finite number >= 0; otherwise estimate the block as unstamped.",
            (_at("MS", "computeBlockTokensRaw", part="any number is taken as the stamp"),),
            sure="read in message-store.ts (the stored id cited); not re-read at the newer tips",
        ),
        UpstreamBug(
            _D.COMBINED_STATS_TOKENS,
            "Combined recall pair: render stats record each summary's measured tokens, not the pair's price",
            "Record the price the pair was charged (question and answer) in the stats.",
            _all_tips(_SH, _COMBINED_AT, part=_COMBINED),
        ),
        UpstreamBug(
            _D.UNCHECKED_BAD_VALUES,
            "Hierarchical select: NaN or negative budgets, grace ratios and windows are used unchecked",
            "Refuse a budget, reserve, grace ratio or window that is not a finite number >= 0, naming the field.",
            _all_tips(_SH, {"AB-H": "~449.5k"}, part="the grace limit's computation (graceLimit) at its start"),
        ),
        UpstreamBug(
            _D.EMPTY_CARRIERS_FLOOR,
            "recallPairCost: an empty responseContent list still floors the answer at the measured tokens",
            "Floor only when responseContent holds at least one block.",
            _all_tips("recallPairCost", {"AB-H": "~443.9k"}, part="the floor's test for responseContent"),
        ),
        UpstreamBug(
            _D.DEEP_WINDOW_CANDIDATES,
            "getAntiRedundantSummaries: L2 and L3 summaries over the head or recent window stay candidates",
            "Apply the window exclusion to every level, so no summary recalls messages that are sent raw.",
            _all_tips("getAntiRedundantSummaries", {"AB-H": "~241.6k"}, part="the head and recent window exclusion"),
        ),
        UpstreamBug(
            _D.DRY_RUN_FILLS_MEMO,
            "A dry-run select fills the recall-pair price memo",
            "Leave the memo as it was after a dry run, as every other piece of state is.",
            (
                _read("AB-H", "recallPairCost", "~444.5k", part="fills its cache on every call"),
                _at("AB", "recallPairCost", part="fills its cache on every call"),
            ),
            sure="recallPairCost fills its cache on every call (read); where a dry run is told apart was not re-read",
            caveat="recallPairCost is handed no dry-run flag; check whether its callers restore the cache after "
            "a dry run.",
        ),
        UpstreamBug(
            _D.DEPTH_RULE_OFF_BY_ONE,
            "Image depth rule: a boundary message's image is stripped when sent but priced whole in the window walk",
            "Use one depth rule in getImageStripStart, postStripEstimates and maybeAdvanceImageWatermark: a "
            "message is deep when it and the messages newer than it pass imageStripDepthTokens (or when the newer "
            "ones alone do, in all three), so the recent-window walk prices the boundary image as the placeholder "
            "that is sent.",
            (
                _read("AB-H", "getImageStripStart", "~500.1k", part=_DEEP_WITH),
                _read("AB-H", "postStripEstimates", "~507.8-511k", part=_DEEP_WITHOUT),
                _read("AB-H", "maybeAdvanceImageWatermark", "~506k", part=_DEEP_WITHOUT),
                _at(
                    "AB-H", "getUnheldRecentWindowStart", "~515k", part="prices the walk with the post-strip estimates"
                ),
                _at("AB-R", "getImageStripStart", part=_DEEP_WITH),
                _at("AB-R", "postStripEstimates", part=_DEEP_WITHOUT),
            ),
            scenario="tests/scenarios/lines/depth-rule-off-by-one.scenario.json",
            sure="certain at the hysteresis tip (getImageStripStart, applyImageStripping, postStripEstimates and "
            "maybeAdvanceImageWatermark read; the walk's use of the estimates per the research notes); at the "
            "raw-forms tip the same two depth tests per the research notes",
        ),
        UpstreamBug(
            _D.PRUNE_WRITES_STORE,
            "pruneToolEntries writes the capped tool_use input and the last-N marker into the stored messages",
            "Copy the entry's content array before replacing a block (as the raw-forms line's pruneToolEntries "
            "does), so a compile, a dry run included, never changes the store and two compiles in a row charge "
            "and send the same.",
            (
                _read("AB-H", "pruneToolEntries", "~533-535k", part=_PRUNE),
                _at("AB-B", "pruneToolEntries", "~532-535k", part=_PRUNE),
            ),
            upstream_says="Fixed on the raw-forms line (cbe7032a), whose pruneToolEntries copies the array first "
            "and whose test file pins that the store keeps its messages across two compiles; the hysteresis and "
            "provenance tips do not have that change.",
            sure="certain at the hysteresis tip (read): with no message cap the entry holds the store's own "
            "content array, and the scenario reproduces the rewrite in the model",
            caveat="With no message cap the entry holds the store's own content array, so the assignment reaches "
            "the stored message.",
        ),
        UpstreamBug(
            _D.COMBINED_UNCHECKED,
            "Hierarchical select: the combined recall pair is never checked against the grace limit",
            "Check the combined pair like every other emitted item: when the running total plus the pair's price "
            "passes the grace limit, refuse the turn with OverBudgetError (stage, budget, actual and the split "
            "filled in) instead of sending a context over the budget.",
            (
                _read("AB-H", _SH, "~470.3k", part=_SEED_COMBINED),
                _read("AB-R", _SH, "~470.5k", part=_SEED_COMBINED),
                _read("AB-BODY", _SH, "~470.2k", part=_SEED_COMBINED),
                _read("AB-B", _SH, "~471.4k", part=_SEED_COMBINED),
            ),
            scenario=f"{SCENARIO_DIR}/combined-unchecked.scenario.json",
            upstream_says=_SEED_SAYS,
            sure=_SEED_SURE,
        ),
        UpstreamBug(
            _D.COMBINED_NO_FLOOR,
            "Hierarchical select: the combined recall pair is priced by its rendered estimate alone, with no floor",
            "Price the combined answer as recallPairCost prices a positioned one: for each summary it holds whole, "
            "its measured tokens are a floor under the estimate when it carries responseContent (carrierPolicy "
            "'full'), so reasoning carriers the estimator under-reads are charged.",
            (
                _read("AB-H", _SH, "~470.3k", part=_SEED_COMBINED),
                _read("AB-H", "recallPairCost", "~443.3-444.9k", part=_FLOOR),
                _read("AB-R", _SH, "~470.5k", part=_SEED_COMBINED),
                _read("AB-R", "recallPairCost", "~444k", part=_FLOOR),
                _read("AB-BODY", _SH, "~470.2k", part=_SEED_COMBINED),
                _read("AB-B", _SH, "~471.4k", part=_SEED_COMBINED),
            ),
            scenario=f"{SCENARIO_DIR}/combined-no-floor.scenario.json",
            upstream_says=_SEED_SAYS,
            sure=_SEED_SURE,
        ),
        UpstreamBug(
            _D.VIEW_NEVER_BOUND,
            "Hierarchical select: no store view is bound, so recall pairs are priced by the fallback estimator",
            "Bind the store as the view for the select (and restore what was bound after it, also when it "
            "refuses), so recallPairCost prices questions and answers with the store's estimator and calibration, "
            "as the raw messages beside them are priced.",
            (
                _read("AB-H", _SH, "~449.3-474.9k", part=_NO_VIEW),
                _read("AB-H", "recallPairCost", "~443.3k", part=_THROUGH_VIEW),
                _read("AB-H", "clearBranchMirrors", "~75.9-77.3k", part="initialize unbinds the view"),
                _read("AB-R", _SH, "~450-474.5k", part=_NO_VIEW),
                _read("AB-R", "recallPairCost", "~444k", part=_THROUGH_VIEW),
            ),
            scenario=f"{SCENARIO_DIR}/view-never-bound.scenario.json",
            upstream_says=_SEED_SAYS,
            sure="highly likely: selectHierarchical was read whole at both tips and binds nothing; that no caller "
            "binds the view before it on this path (only the adaptive select loads it) is from the research notes",
            caveat="Only the adaptive select loads a view; check that no caller binds one before selectHierarchical "
            "on this path.",
        ),
        UpstreamBug(
            _D.MEMO_SURVIVES_INITIALIZE,
            "recallPairCost: the pair-price memo survives initialize; a reopened store reuses another store's prices",
            "Clear the pair-price memo wherever the branch mirrors are cleared (every initialize, every branch "
            "switch), as the store view and the calibration already are.",
            (
                _read("AB-H", "recallPairCost", "~443.3k", part=_MEMO),
                _read("AB-H", "clearBranchMirrors", "~75.9-77.3k", part=_MIRRORS),
                _read("AB-R", "recallPairCost", "~444k", part=_MEMO),
                _read("AB-R", "clearBranchMirrors", "~76.6-77.9k", part=_MIRRORS),
            ),
            scenario=f"{SCENARIO_DIR}/memo-survives-initialize.scenario.json",
            upstream_says=_SEED_SAYS,
            sure="highly likely: the memo field and clearBranchMirrors were read at both tips and the memo is not "
            "cleared there; the file was read in pieces, so another clear elsewhere was not ruled out by a search",
            caveat="A search for _pairCostCache in the file shows whether anything else clears the memo.",
        ),
        UpstreamBug(
            _D.HEAD_AS_MIDDLE,
            "Hierarchical select: middle refusals report headTokens 0 and count the head inside middleTokens",
            "In the positioned pair's, the positioned raw message's and the raw-after-combined refusals, report "
            "the head window's tokens as headTokens and only what the middle added as middleTokens, as the head "
            "refusal already does.",
            (
                _read("AB-H", _SH, "~467k, ~468k, ~471.5k", part=_SEED_REFUSALS),
                _read("AB-H", _SH, "~450.9k", part="the head refusal, which reports the head"),
                _read("AB-R", _SH, "~468.3k, ~469k, ~471.7k", part=_SEED_REFUSALS),
                _read("AB-BODY", _SH, "~467.3k, ~468.3k, ~471.2k", part=_SEED_REFUSALS),
                _read("AB-B", _SH, "~468.3k, ~469.3k, ~472.5k", part=_SEED_REFUSALS),
            ),
            scenario=f"{SCENARIO_DIR}/head-as-middle.scenario.json",
            upstream_says=_SEED_SAYS,
            sure=_SEED_SURE,
        ),
    )
}


def typescript_bugs() -> tuple[UpstreamBug, ...]:
    """Every report, in the order of ``Defect``."""
    return tuple(BUGS[d] for d in Defect if d in BUGS)


#: Seed defects a newer line's variant carries that have no report, each with why (docs/model.md, Known defects).
NOT_AT_THE_TIPS: Mapping[Defect, str] = {
    Defect.CLEARED_BY_ANYWHERE: "the over-budget error at both tips carries no clearedBy at all (overBudgetError "
    "builds stage, budget, actual and diagnostics only): the field comes with the seed's change, so the tips have "
    "no clearedBy to be wrong",
}
