"""The defect switches and variants (docs/model.md, Known defects; Variants): ``VARIANTS``, ``Defects`` and
``resolve_variant``."""

from __future__ import annotations

import pytest
from builders import store

from reference.model import Budget, Config, Image, Message, Store, Text
from strategies import VARIANTS, Defect, HierarchicalStrategy
from strategies.defects import (
    KNOWN,
    LINE_BEHAVIOURS,
    NEWER_LINES,
    REMOVALS,
    SEED_FIXED,
    Behaviour,
    Defects,
    resolve_variant,
)


@pytest.mark.defect_table
def test_variants_are_the_spec_defect_sets() -> None:
    """``main`` carries every known defect, ``pr`` those the seed leaves, ``sound`` none; the newer lines every
    known one (the seed's change never reached them) and their own, with their behaviours; no variant carries a
    seed-removal switch."""
    newer = {"hysteresis-a95eb55b", "raw-forms-cbe7032a"}
    assert set(VARIANTS) == {"main-48bb87a1", "pr-8bb01ab8", "sound"} | newer
    assert VARIANTS["main-48bb87a1"] == KNOWN
    assert VARIANTS["pr-8bb01ab8"] == KNOWN - SEED_FIXED
    assert VARIANTS["sound"] == frozenset()
    assert VARIANTS["hysteresis-a95eb55b"] == KNOWN | NEWER_LINES
    assert VARIANTS["raw-forms-cbe7032a"] == KNOWN | {Defect.DEPTH_RULE_OFF_BY_ONE}
    assert set(LINE_BEHAVIOURS) == newer
    assert LINE_BEHAVIOURS["hysteresis-a95eb55b"] == frozenset(Behaviour) - {Behaviour.RAW_FORMS_RELEASED}
    assert LINE_BEHAVIOURS["raw-forms-cbe7032a"] == frozenset(Behaviour) - {Behaviour.IMAGE_STRIP_HYSTERESIS}
    assert not any(REMOVALS & v for v in VARIANTS.values())


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_a_name_resolves_to_its_defect_set(name: str) -> None:
    """docs/model.md, Variants: a variant name resolves to the defect set ``VARIANTS`` maps it to."""
    assert resolve_variant(name) == Defects(VARIANTS[name], LINE_BEHAVIOURS.get(name, frozenset()))


@pytest.mark.parametrize("defects", [frozenset(), frozenset({Defect.PREFIX_NO_RAW, Defect.VIEW_NOT_RESTORED})])
def test_a_defect_set_is_a_variant(defects: frozenset[Defect]) -> None:
    """A frozenset of defects is taken as the variant itself (how mutants of the seed are compiled)."""
    resolved = resolve_variant(defects)
    assert resolved.active == defects
    assert all(resolved.on(d) is (d in defects) for d in Defect)
    strategy = HierarchicalStrategy(Config(), defects)  # type: ignore[arg-type]
    strategy.initialize(store(2))
    assert strategy.compile(Budget(max_tokens=100)).stats.total.tokens == 20


def test_defects_pass_through() -> None:
    """A ``Defects`` is already resolved and is used as given: a strategy built on it compiles with exactly its
    switches (here a negative image stamp read verbatim, -5 + 11, where ``sound`` prices the image 1600 + 11)."""
    given = Defects(frozenset({Defect.STAMPS_VERBATIM}))
    assert resolve_variant(given) is given
    st = Store(
        (Message("m0", "user", (Image(token_estimate=-5),)), Message("m1", "user", (Text("hello world"),))),
        text_estimator=len,
    )
    totals = []
    for variant in (given, "sound"):
        strategy = HierarchicalStrategy(Config(), variant)  # type: ignore[arg-type]
        strategy.initialize(st)
        totals.append(strategy.compile(Budget(max_tokens=100_000)).stats.total.tokens)
    assert totals == [-5 + 11, 1600 + 11]


def test_an_unknown_variant_is_refused_naming_it_and_the_known_ones() -> None:
    """The error names the bad name and lists the known variants, comma separated."""
    known = ", ".join(VARIANTS)
    with pytest.raises(ValueError, match=rf"^unknown variant 'main' \(known: {known}\)$"):
        resolve_variant("main")
    with pytest.raises(ValueError, match=r"unknown variant 'nope'"):
        HierarchicalStrategy(Config(), "nope")
