"""Every invariant has its proof: a table keyed by invariant name, checked against ``INVARIANTS``, names the judge
test that breaks it on a wrong compile; a new invariant without one turns this red."""

from __future__ import annotations

import dataclasses
import importlib
from pathlib import Path
from typing import NoReturn

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import invariants.properties.running as running
from invariants import examples as known
from invariants.generators import Case, cases
from invariants.properties import (
    CHEAP_FIRST,
    INVARIANTS,
    SHARED_COMPILES,
    InvariantViolation,
    Outcome,
    Violation,
    assert_holds,
    attempt,
    check,
    variant_name,
)
from invariants.properties.line_rules import image_rules_for, judged_as, rules_for, switches_for
from reference.images import DROPPED, PLACEHOLDER, ImageRules
from reference.model import Budget, Config, Image, Message, Store, Text
from reference.rendering import Switches
from strategies import HierarchicalStrategy
from strategies.defects import LINE_BEHAVIOURS, Behaviour, Defect, Defects, Resumed, parse_variant
from tests.builders import store
from tests.judge_helpers import judged, tamper

# ----------------------------------------------------------------------------- every invariant has its proof

#: The judge test modules (``tests/test_judge_*.py``), each the tests of one group of invariants.
JUDGE_MODULES = tuple(
    importlib.import_module(f"tests.{path.stem}")
    for path in sorted(Path(__file__).parent.glob("test_judge_*.py"))
    if path.stem != Path(__file__).stem
)


def proofs() -> dict[str, list[str]]:
    """Each invariant and the judge tests marked ``proves`` it: they break it on a wrong compile."""
    found: dict[str, list[str]] = {}
    for module in JUDGE_MODULES:
        for name, test in vars(module).items():
            for mark in getattr(test, "pytestmark", []) if name.startswith("test_") else ():
                if mark.name == "proves":
                    found.setdefault(*mark.args, []).append(f"{module.__name__}.{name}")
    return found


#: Their rows, one list: (invariant, defect, case, the words it breaks with), from the judge modules' tables of named
#: defects, each switched on alone.
DEFECT_ROWS = [row for module in JUDGE_MODULES for row in getattr(module, "DEFECT_BREAKS", ())]


def test_every_invariant_has_a_proof_test_and_none_is_left_over():
    assert set(proofs()) == set(INVARIANTS), "mark a judge test (tests/test_judge_*.py) @pytest.mark.proves(NAME)"


def test_a_proof_is_found_only_by_its_mark(monkeypatch):
    """The collection reads the mark, not a test's name: a proof whose mark is gone leaves its invariant unproved."""
    module = JUDGE_MODULES[0]
    name, test = next(
        (n, t) for n, t in vars(module).items() if any(m.name == "proves" for m in getattr(t, "pytestmark", []))
    )
    proved = next(m.args[0] for m in test.pytestmark if m.name == "proves")
    monkeypatch.setattr(test, "pytestmark", [m for m in test.pytestmark if m.name != "proves"])
    assert f"{module.__name__}.{name}" not in proofs().get(proved, [])


def test_every_invariant_with_a_named_defect_to_catch_is_broken_by_one():
    """The defect tables name every invariant a defect can break alone (well-formed: none can)."""
    assert {row[0] for row in DEFECT_ROWS} == set(INVARIANTS) - {"well-formed"}


@pytest.mark.parametrize(
    "invariant, defect, case, words", DEFECT_ROWS, ids=[f"{i}-{d.name}" for i, d, _, _ in DEFECT_ROWS]
)
def test_check_reports_each_invariant_a_defect_breaks_as_it_breaks_alone(invariant, defect, case, words):
    """``check`` judges the case with every invariant: each row's invariant is among them, with the violations it
    gives alone."""
    variant = frozenset({defect})
    alone = judged(invariant, case, variant)
    assert alone, f"{invariant} holds on {defect.name}"
    assert [v for v in check(*case, variant) if v.invariant == invariant] == alone


# ----------------------------------------------------------------------------- running the catalogue over one case

#: Three messages of 10 at a budget of 100: sound sends all three raw.
PLAIN = Case(store(3), Config(), Budget(max_tokens=100))


def _seeded(case: Case, outcome: Outcome) -> dict:
    """A scope of shared compiles in which ``case`` at its budget has already been compiled to ``outcome``."""
    return {(id(case.store), id(case.config), repr(case.budget), "sound"): (case.store, case.config, outcome)}


def _one_entry_sent(case: Case) -> Outcome:
    s = HierarchicalStrategy(case.config, "sound")
    s.initialize(case.store)
    result = s.compile(case.budget)
    return Outcome(result=dataclasses.replace(result, entries=result.entries[:1]))


@pytest.mark.parametrize("name", sorted(INVARIANTS))
def test_check_runs_every_invariant_of_the_catalogue(monkeypatch, name):
    """Each invariant of ``INVARIANTS``, made to break on anything, is reported by ``check``, and with
    ``first_only`` by itself when it is the only one broken."""
    marker = Violation(name, "broken by the test")
    monkeypatch.setitem(INVARIANTS, name, lambda *case: [marker])
    assert check(*PLAIN, "sound") == [marker]
    assert check(*PLAIN, "sound", first_only=True) == [marker]


def test_check_compiles_a_case_once_for_all_the_invariants_that_judge_it(monkeypatch):
    """Inside ``check`` the invariants share one compile of the case at its budget; outside it the scope is gone."""
    compiled = []

    def counted(strategy, budget, dry_run=False):
        compiled.append(budget)
        return attempt(strategy, budget, dry_run)

    monkeypatch.setattr(running, "attempt", counted)
    assert check(*PLAIN, "sound") == []
    assert compiled.count(PLAIN.budget) == 1
    assert SHARED_COMPILES.get() is None
    compiled.clear()
    assert INVARIANTS["never-over"](*PLAIN, "sound") == [] and INVARIANTS["stats-total"](*PLAIN, "sound") == []
    assert compiled.count(PLAIN.budget) == 2


def test_check_judges_inside_the_scope_it_is_called_in():
    """Called where compiles are already shared (as ``find`` and the judges' tests do), ``check`` judges the outcome
    that scope holds and leaves the scope as it was."""
    outcome = _one_entry_sent(PLAIN)
    token = SHARED_COMPILES.set(_seeded(PLAIN, outcome))
    try:
        found = check(*PLAIN, "sound")
        assert SHARED_COMPILES.get() is not None
        assert {"nothing-lost", "stats-total"} <= {v.invariant for v in found}
    finally:
        SHARED_COMPILES.reset(token)
    assert SHARED_COMPILES.get() is None


def test_check_reports_every_invariant_broken_or_only_the_first():
    """A send that loses two messages (and charges for all three) breaks nothing-lost and stats-total, among others:
    ``check`` reports them all, in the cheap-first order; ``first_only`` stops after the first invariant broken."""
    token = SHARED_COMPILES.set(_seeded(PLAIN, _one_entry_sent(PLAIN)))
    try:
        found = check(*PLAIN, "sound")
        first = check(*PLAIN, "sound", first_only=True)
    finally:
        SHARED_COMPILES.reset(token)
    names = list(dict.fromkeys(v.invariant for v in found))
    assert names == sorted(names, key=CHEAP_FIRST.index) and len(names) >= 2
    assert first == [v for v in found if v.invariant == names[0]]


@given(case=cases(), defect=st.sampled_from(sorted(Defect, key=lambda d: d.name)))
def test_check_reports_exactly_the_invariants_that_break_when_each_is_judged_alone(case, defect):
    """On any drawn case, with any defect switched on alone in ``sound``: ``check`` reports the invariants that
    break when each is judged on its own, none left out of its order and none added."""
    variant = frozenset({defect})
    alone = {name for name, invariant in INVARIANTS.items() if invariant(*case, variant)}
    assert {v.invariant for v in check(*case, variant)} == alone


def test_assert_holds_raises_with_the_violations_the_variant_and_the_case():
    case, variant = known.RAW_CAP_BELOW_SENT, frozenset({Defect.RAW_CAP_PLUS_50, Defect.COMBINED_UNCHECKED})
    assert_holds("never-over", *case, "sound")
    with pytest.raises(InvariantViolation) as raised:
        assert_holds("never-over", *case, variant)
    assert raised.value.violations == tuple(INVARIANTS["never-over"](*case, variant)) != ()
    assert raised.value.case == (case.store, case.config, case.budget)
    assert str(raised.value).endswith("\nvariant {COMBINED_UNCHECKED, RAW_CAP_PLUS_50}")


def test_variant_names():
    assert variant_name("main-48bb87a1") == "main-48bb87a1"
    assert variant_name(frozenset()) == "{}"
    assert variant_name(frozenset({Defect.RAW_CAP_PLUS_50, Defect.COMBINED_UNCHECKED})) == (
        "{COMBINED_UNCHECKED, RAW_CAP_PLUS_50}"
    )
    line = Defects(frozenset({Defect.RAW_CAP_PLUS_50}), frozenset({Behaviour.IMAGE_STRIP_HYSTERESIS}))
    assert variant_name(line) == "{IMAGE_STRIP_HYSTERESIS, RAW_CAP_PLUS_50}"
    assert variant_name(Defects()) == "{}"
    assert variant_name(Resumed(line, 4)) == "{IMAGE_STRIP_HYSTERESIS, RAW_CAP_PLUS_50} from watermark 4"


# ----------------------------------------------------------------------------- the rules a line is judged by

IMAGE_FIELDS = {
    Behaviour.LIVE_IMAGE_BYTE_WALL: "byte_wall",
    Behaviour.IMAGES_FIRST_BLOCK_FIRST: "first_block_first",
    Behaviour.IMAGE_STRIP_HYSTERESIS: "hysteresis",
}


@pytest.mark.parametrize("behaviour", list(Behaviour), ids=[b.name for b in Behaviour])
def test_a_line_behaviour_switches_on_its_reference_rule_and_nothing_else(behaviour):
    line = Defects(frozenset(), frozenset({behaviour}))
    images, switches = image_rules_for(line), switches_for(line)
    assert rules_for(line).images == images == switches.images
    on = {f for b, f in IMAGE_FIELDS.items() if b == behaviour}
    assert {f for f in IMAGE_FIELDS.values() if getattr(images, f) is True} == on
    assert {f for f in IMAGE_FIELDS.values() if getattr(images, f) is False} == set(IMAGE_FIELDS.values()) - on
    assert images.placeholder == (DROPPED if behaviour == Behaviour.IMAGE_PLACEHOLDER_DROPPED else PLACEHOLDER)
    assert switches.release_raw_forms is (behaviour == Behaviour.RAW_FORMS_RELEASED)


def test_a_resumed_variant_is_judged_from_the_watermark_it_starts_at():
    line = Defects(frozenset(), LINE_BEHAVIOURS["hysteresis-a95eb55b"])
    assert image_rules_for(Resumed(line, 2)) == dataclasses.replace(image_rules_for(line), below=2)
    assert image_rules_for(line).below is None and image_rules_for(Resumed(line)).below is None


def test_sound_and_a_named_line_are_judged_by_their_own_rules():
    assert image_rules_for("sound") == ImageRules() and switches_for("sound") == Switches(images=ImageRules())
    for name, behaviours in LINE_BEHAVIOURS.items():
        assert switches_for(name) == switches_for(Defects(frozenset(), behaviours)), name
        assert rules_for(name) == rules_for(Defects(frozenset(), behaviours)), name


def _judged_as(judge: str | None, variant: str) -> list[Violation]:
    """``check`` of a stripped image (m0's, past the image depth) on ``variant``, judged by ``judge``'s rules."""
    stripped = Store(
        (Message("m0", "user", (Text("look"), Image(token_estimate=5))), Message("m1", "user", (Text("b" * 100),))),
        (),
    )
    with judged_as(None if judge is None else parse_variant(judge)):
        return check(stripped, Config(image_strip_depth_tokens=10), Budget(max_tokens=1000), parse_variant(variant))


def test_while_judged_as_is_set_every_compile_is_judged_by_that_variants_rules():
    """The proof's behaviour rows: a line's stripped image, sent as "[image dropped from live context]", holds by
    its own rules and breaks the rendering by ``sound``'s, whose reference sends "[image omitted]"; and the other way
    round."""
    line = "sound+IMAGE_PLACEHOLDER_DROPPED"
    assert _judged_as(None, line) == [] and _judged_as(None, "sound") == []
    for variant, judge, wanted in ((line, "sound", PLACEHOLDER), ("sound", line, DROPPED)):
        broken = _judged_as(judge, variant)
        assert [v.invariant for v in broken] == ["rendering"], (variant, judge)
        reference = broken[0].message.split(" differs: ")[1].split(" versus ")[0]
        assert f"Text(text='{wanted}'" in reference, (variant, judge)


# ----------------------------------------------------------------------------- a crash is never sound

CRASHED = "crashed with RuntimeError: boom (only OverBudgetError, UncoveredDropError or InvalidConfigError may refuse)"
#: Where each invariant says the compile crashed (bad-values judges only a case with bad values).
CRASH_SITES = {name: "the compile" for name in INVARIANTS if name != "bad-values"} | {
    "exact-budget": "the compile at an unlimited budget"
}


def _boom(*_: object) -> NoReturn:
    raise RuntimeError("boom")


@given(case=cases(), name=st.sampled_from(sorted(CRASH_SITES)))
@example(case=PLAIN, name="rendering").via("a send")
@example(case=PLAIN, name="diagnostics").via("a judge of refusals, on a send")
def test_every_invariant_that_compiles_reports_a_crash_as_its_own_violation(case, name):
    """On any case, a compile that crashes where it would have sent or refused is reported by every invariant that
    compiles, as its one violation: none excuses it because it judges only sends, or only refusals. (exact-budget
    compiles only where the budget is enforced.)"""
    with pytest.MonkeyPatch.context() as patch:
        tamper(patch, sent=_boom, refused=lambda err, b: RuntimeError("boom"))
        found = judged(name, case)
    compiles = name != "exact-budget" or case.config.enforce_budget
    assert found == ([Violation(name, f"{CRASH_SITES[name]} {CRASHED}")] if compiles else [])


def test_an_invariant_is_declared_once_with_its_name_and_cost():
    """Name and cost live on the invariant's function (``running.invariant``); the catalogue, ``check``'s order and
    the command line read them. A second declaration of a name or a cost fails at import, not in a run."""
    from invariants.properties import catalogue, running

    assert {d.name: d.cost for d in running.DECLARED.values()} == {
        name: k + 1 for k, name in enumerate(catalogue.CHEAP_FIRST)
    }
    with pytest.raises(ValueError, match="declared twice"):
        running.invariant("never-over", cost=99)(lambda *a: [])
    with pytest.raises(ValueError, match="declared twice"):
        running.invariant("brand-new", cost=1)(lambda *a: [])
