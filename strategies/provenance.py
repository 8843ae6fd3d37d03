"""What each variant models of the TypeScript, and where each behaviour was read (docs/model.md, Variants).

``VERSIONS`` names every stored copy of the TypeScript the model was read from; ``MODELS`` gives, per
variant of ``VARIANTS``, the line of development and the commits it models, behaviour by behaviour the
functions read and the version they were read at, and the upstream tests it reproduces: each test file at
its commit with the scenario files under ``tests/scenarios/typescript/`` that transcribe it and hold on
the variant (``tests/test_upstream_tests_declared.py`` keeps them and the files' citations in step). A new
variant adds one ``VariantModel`` here (its readings may reuse ``FAITHFUL_READINGS``) and one row to docs/model.md's
Variants table; ``tests/test_variants_cmd.py`` keeps the three in step.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from reference.variant_names import HYSTERESIS, MAIN, PR, RAW_FORMS, SOUND
from strategies.defects import VARIANTS, Defect


@dataclass(frozen=True)
class Version:
    """One stored copy of a TypeScript file: the commit when the index gives one, else its stored id."""

    short: str
    file: str
    line: str
    commit: str | None = None
    stored_id: str | None = None

    @property
    def where(self) -> str:
        """The version as a reader finds it: ``commit 1c779181, stored id 71410013736``."""
        if self.commit and self.stored_id:
            return f"commit {self.commit}, stored id {self.stored_id}"
        if self.commit:
            return f"commit {self.commit}"
        return f"stored id {self.stored_id}" if self.stored_id else "its description only"


AB_TS = "src/strategies/autobiographical.ts"

VERSIONS: Mapping[str, Version] = {
    v.short: v
    for v in (
        Version("AB", AB_TS, "membrane live-image policy", stored_id="70244036435"),
        Version("AB-731", f"{AB_TS}, src/adaptive/picker.ts", "main", commit="731e2707"),
        Version("AB-B", AB_TS, "provenance and thinking binding", commit="1c779181", stored_id="71410013736"),
        Version("AB-EPOCH", AB_TS, "pricing epoch", commit="5ab06174", stored_id="69771390475"),
        Version("AB-H", AB_TS, "image-strip hysteresis", commit="a95eb55b", stored_id="71654488230"),
        Version("AB-R", AB_TS, "raw forms", commit="cbe7032a", stored_id="71528811339"),
        Version("AB-BODY", AB_TS, "body instances", commit="b368c6be", stored_id="71591954470"),
        Version("MS", "src/message-store.ts", "membrane live-image policy", stored_id="70423042618"),
        Version("RE", "src/recall-envelope.ts", "main", commit="4eb1ab89", stored_id="57629941722"),
        Version("seed", "the change 8bb01ab8 on main 48bb87a1", "the combined-pair grace pull request"),
    )
}


@dataclass(frozen=True)
class Reading:
    """One behaviour the variant compiles, the TypeScript functions it follows, and the version read."""

    behaviour: str
    functions: tuple[str, ...]
    version: str  # a key of VERSIONS

    def __post_init__(self) -> None:
        if self.version not in VERSIONS:
            raise ValueError(f"reading {self.behaviour!r}: unknown version {self.version!r}")


#: Where the transcribed upstream tests are (the conformance corpus).
CONFORMANCE_DIR = "tests/scenarios/typescript"


@dataclass(frozen=True)
class UpstreamTest:
    """An upstream test file at a commit, and the scenario files of ``CONFORMANCE_DIR`` (names without the
    ``.scenario.json`` suffix) that transcribe its assertions."""

    commit: str
    test_file: str
    scenarios: tuple[str, ...]

    @property
    def paths(self) -> tuple[str, ...]:
        return tuple(f"{CONFORMANCE_DIR}/{name}.scenario.json" for name in self.scenarios)


@dataclass(frozen=True)
class VariantModel:
    """A variant and the TypeScript it models; ``line`` and ``commits`` are empty for a model of no commit.

    ``reproduces``: the upstream tests whose transcribed assertions hold on the variant (it reproduces the tests of
    those commits, which is not to say it models them). ``contrasts``: upstream tests whose scenario files name the
    variant only to pin that it lacks the behaviour tested (its own expectation differs)."""

    name: str
    line: str
    commits: tuple[str, ...]
    summary: str
    readings: tuple[Reading, ...] = ()
    reproduces: tuple[UpstreamTest, ...] = ()
    contrasts: tuple[UpstreamTest, ...] = ()

    @property
    def defects(self) -> frozenset[Defect]:
        return VARIANTS[self.name]


#: What both faithful variants compile and where it was read; they differ only in the seed's change.
FAITHFUL_READINGS: tuple[Reading, ...] = (
    Reading(
        "the estimator E and its stamps",
        ("defaultTokenEstimator", "jsonTokenEstimator", "computeBlockTokensRaw", "estimateContentTokens"),
        "MS",
    ),
    Reading("the pricing epoch", ("CALIBRATION_PRICING_EPOCH",), "AB-EPOCH"),
    Reading("the fallback estimate", ("estimateTokens",), "AB"),
    Reading("input budget and grace limit", ("graceLimit", "isOverBudget"), "AB-731"),
    Reading("head and recent windows", ("getHeadWindowEnd", "getUnheldRecentWindowStart"), "AB"),
    Reading("the message cap", ("truncateContent", "estimateTextOnlyTokens"), "AB"),
    Reading("the cap's cut", ("safeSlice",), "AB-B"),
    Reading("the recall header", ("buildRecallHeader",), "AB-B"),
    Reading(
        "recall answers",
        ("summaryAnswerProse", "liveWindowAnswerProse", "summaryAnswerContentCapped", "combinedRecallAnswerContent"),
        "AB",
    ),
    Reading("what the combined answer holds", ("renderCombinedRecallAnswer",), "AB-B"),
    Reading("the recall envelope", ("buildRecallEnvelopeTags", "wrapRecallAnswerContent"), "RE"),
    Reading(
        "candidates and the waterfall",
        ("getAntiRedundantSummaries", "selectL1Summaries", "selectHierarchical"),
        "AB-731",
    ),
    Reading("blank summaries", ("getAntiRedundantSummaries", "selectHierarchical"), "AB-B"),
    Reading(
        "tool pairing",
        ("postProcessToolEntries", "trimOrphanedToolUse", "enforceToolPairing", "relocateOrDropMissingResults"),
        "AB",
    ),
    Reading("tool pruning", ("pruneToolEntries",), "AB"),
    Reading("image stripping", ("applyImageStripping", "postStripEstimates", "getImageStripStart"), "AB"),
    Reading(
        "emission and the grace check", ("selectHierarchical", "emitRecentNewestFirst", "overBudgetError"), "AB-731"
    ),
    Reading("pair prices and the memo", ("recallPairCost",), "AB"),
    Reading("coverage", ("assertFullCoverage", "assertMiddleCoverage"), "AB-731"),
    Reading("render stats", ("rsBegin", "rsRaw", "rsSummary", "rsEnd"), "AB"),
    Reading("compression work and cleared_by", ("pendingCompression", "checkReadiness"), "AB-731"),
)


def _replacing(readings: tuple[Reading, ...], *new: Reading) -> tuple[Reading, ...]:
    """``readings`` with those of the same behaviour as one of ``new`` replaced by it (new ones appended)."""
    by_behaviour = {r.behaviour: r for r in new}
    kept = tuple(by_behaviour.pop(r.behaviour, r) for r in readings)
    return kept + tuple(by_behaviour.values())


#: What the two newer lines read at their own tip; the rest is the seed-era code they share.  Neither has the
#: seed's change: the combined pair and the refusals' head are as on main.
_NO_SEED = "without the seed's change (no combined-pair check or floor, refusals' head 0, no view bound)"
#: The budget diagnostics both newer lines carry (``Behaviour.BUDGET_DIAGNOSTICS``): the inventory and the budget each
#: refusal reports, read at the tip; the message's labelled wording is ``OverBudgetError``'s at 731e2707, whose fields
#: the tip's ``overBudgetError`` requires.
_BUDGET_DIAGNOSTICS = "the refusals' summary inventory and budget (57b92494)"
_LABELLED_MESSAGE = Reading("the refusals' labelled message", ("OverBudgetError",), "AB-731")
_NEWER_END = Reading(
    "the end of the select: tally, coverage check, tool passes, image stripping", ("selectHierarchical",), "AB-H"
)
_HYSTERESIS_READINGS = _replacing(
    FAITHFUL_READINGS,
    Reading("head and recent windows", ("getUnheldRecentWindowStart", "emitRecentNewestFirst"), "AB-H"),
    Reading(
        "image stripping",
        (
            "getImageStripStart",
            "applyImageStripping",
            "imageWatermark",
            "maybeAdvanceImageWatermark",
            "belowImageWatermark",
            "postStripEstimates",
            "imageBlockBytes",
        ),
        "AB-H",
    ),
    Reading("tool pruning", ("pruneToolEntries",), "AB-H"),
    _NEWER_END,
    Reading(_NO_SEED, ("selectHierarchical", "recallPairCost"), "AB-H"),
    Reading(_BUDGET_DIAGNOSTICS, ("overBudgetError", "summaryInventoryDiagnostics", "selectHierarchical"), "AB-H"),
    _LABELLED_MESSAGE,
)
_RAW_FORMS_READINGS = _replacing(
    FAITHFUL_READINGS,
    Reading("image stripping", ("applyImageStripping", "postStripEstimates"), "AB-R"),
    Reading("tool pruning", ("pruneToolEntries",), "AB-R"),
    Reading(
        "the end of the select: tally, coverage check, tool passes, image stripping", ("selectHierarchical",), "AB-R"
    ),
    Reading(_NO_SEED, ("selectHierarchical",), "AB-R"),
    Reading(_BUDGET_DIAGNOSTICS, ("overBudgetError", "summaryInventoryDiagnostics"), "AB-R"),
    _LABELLED_MESSAGE,
)


#: The upstream tests transcribed under ``CONFORMANCE_DIR``, each at the commit its files cite.
HYSTERESIS_TEST = UpstreamTest(
    "a95eb55b",
    "test/image-strip-hysteresis.test.ts",
    (
        *(f"hysteresis-byte-cap-{n}" for n in range(4, 7)),
        *(f"hysteresis-count-cap-{n}" for n in range(4, 9)),
        *(f"hysteresis-off-{n}" for n in range(5, 7)),
        "hysteresis-reopen-again",
        "hysteresis-reopen-first",
    ),
)
RAW_FORMS_TEST = UpstreamTest(
    "cbe7032a",
    "test/raw-forms.test.ts",
    tuple(f"raw-forms-{n}" for n in ("input-truncation", "last-n-marker", "message-cap", "second-compile")),
)
STRUCTURAL_ORDER_TEST = UpstreamTest(
    "2615289f",
    "test/structural-render-order.test.ts",
    tuple(
        f"structural-order-{n}"
        for n in (
            "displaced-result",
            "duplicate-result",
            "marker-text-a",
            "marker-text-b",
            "missing-result-stub",
            "tail-result-stub",
        )
    ),
)
RECALL_POSITIONING_TEST = UpstreamTest(
    "ccc74a5e",
    "test/recall-positioning.test.ts",
    (
        "recall-positioning-chronological",
        "recall-positioning-combined",
        "recall-positioning-custom-header",
        "recall-positioning-default-header",
        "recall-positioning-grace",
        "recall-positioning-refuses",
    ),
)
#: Upstream's tests of the budget diagnostics (``Behaviour.BUDGET_DIAGNOSTICS``), their hierarchical cases: the
#: budget and the empty inventory at 57b92494, the labelled wording at 731e2707; both hold on the newer lines only.
BUDGET_DIAGNOSTICS_TEST = UpstreamTest(
    "57b92494", "test/overbudget-diagnostics.test.ts", ("overbudget-diagnostics-hierarchical",)
)
BUDGET_LABELS_TEST = UpstreamTest(
    "731e2707",
    "test/overbudget-diagnostics.test.ts",
    tuple(f"overbudget-diagnostics-{n}" for n in ("combined", "hierarchical-labels", "positioned")),
)
_DIAGNOSTICS_TESTS = (BUDGET_DIAGNOSTICS_TEST, BUDGET_LABELS_TEST)
#: The older tests whose assertions hold on main's line and on both newer lines, which keep main's code there.
_MAIN_LINE_TESTS = (STRUCTURAL_ORDER_TEST, RECALL_POSITIONING_TEST)

#: Every variant's model; one whose name ``VARIANTS`` does not hold is left out of ``MODELS``.
_ALL_MODELS: tuple[VariantModel, ...] = (
    VariantModel(
        MAIN,
        "main",
        ("48bb87a1",),
        "the TypeScript main before the combined-pair grace pull request",
        (
            *FAITHFUL_READINGS,
            Reading(
                "without the seed's change (no combined-pair check, floor or view)", ("selectHierarchical",), "seed"
            ),
        ),
        reproduces=_MAIN_LINE_TESTS,
    ),
    VariantModel(
        PR,
        "main, with the combined-pair grace pull request",
        ("8bb01ab8", "48bb87a1"),
        "the TypeScript with the combined-pair grace pull request",
        (
            *FAITHFUL_READINGS,
            Reading(
                "the seed's change: combined-pair check, floor, view, memo, diagnostics",
                ("selectHierarchical", "recallPairCost"),
                "seed",
            ),
        ),
        reproduces=_MAIN_LINE_TESTS,
    ),
    VariantModel(
        SOUND,
        "",
        (),
        "models no commit: every price is the reference price of exactly what is sent",
    ),
    VariantModel(
        HYSTERESIS,
        "image-strip hysteresis",
        ("a95eb55b", "57b92494"),
        "the image-strip hysteresis line's tip",
        _HYSTERESIS_READINGS,
        reproduces=(HYSTERESIS_TEST, *_MAIN_LINE_TESTS, *_DIAGNOSTICS_TESTS),
        contrasts=(RAW_FORMS_TEST,),
    ),
    VariantModel(
        RAW_FORMS,
        "raw forms",
        ("cbe7032a", "57b92494"),
        "the raw-forms line's tip",
        _RAW_FORMS_READINGS,
        reproduces=(RAW_FORMS_TEST, *_MAIN_LINE_TESTS, *_DIAGNOSTICS_TESTS),
    ),
)

MODELS: Mapping[str, VariantModel] = {m.name: m for m in _ALL_MODELS if m.name in VARIANTS}
