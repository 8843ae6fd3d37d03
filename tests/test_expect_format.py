"""The ``expect`` section of a scenario file: which expectation applies to a variant, and how each is read."""

from __future__ import annotations

import pytest

from reference.expect import Expectation, Refuses, Sends, expectation_for
from reference.scenario import ScenarioError, load_scenario

ALLOWED = "(allowed: main-48bb87a1, pr-8bb01ab8, sound, hysteresis-a95eb55b, raw-forms-cbe7032a, faithful, all)"
CATEGORIES = "in-tail-not-rendered, covered-by-unemitted-summary, not-covered"


def minimal(**extra: object) -> dict:
    return {
        "store": {"messages": [{"id": "m1", "participant": "User", "content": [{"type": "text", "text": "hi"}]}]},
        **extra,
    }


def expect_of(section: object) -> dict[str, Expectation]:
    return dict(load_scenario(minimal(expect=section)).expect)


def error(section: object) -> str:
    with pytest.raises(ScenarioError) as info:
        load_scenario(minimal(expect=section))
    return str(info.value)


# ----------------------------------------------------------------------------- which expectation applies

OWN, FAITHFUL, ALL = Expectation(holds=True), Expectation(breaks=("never-over",)), Expectation(sends=Sends())


def test_faithful_applies_to_the_faithful_variants_only():
    expect = {"faithful": FAITHFUL, "all": ALL}
    assert expectation_for(expect, "main-48bb87a1") is FAITHFUL
    assert expectation_for(expect, "pr-8bb01ab8") is FAITHFUL
    assert expectation_for(expect, "sound") is ALL
    assert expectation_for({"faithful": FAITHFUL}, "sound") is None


def test_all_applies_when_nothing_closer_does():
    assert expectation_for({"all": ALL}, "pr-8bb01ab8") is ALL
    assert expectation_for({"sound": OWN, "all": ALL}, "main-48bb87a1") is ALL
    assert expectation_for({"sound": OWN, "all": ALL}, "sound") is OWN
    assert expectation_for({"sound": OWN}, "main-48bb87a1") is None


# ----------------------------------------------------------------------------- reading sends and refuses


def test_sends_reads_every_field():
    raw = {
        "entries": 3,
        "total": 12.5,
        "rawIds": ["m1", "m2"],
        "summaries": [["L1-0"], ["L2-0", "L1-1"]],
        "images": "I.I",
    }
    assert expect_of({"sound": {"sends": raw}})["sound"].sends == Sends(
        entries=3, total=12.5, raw_ids=("m1", "m2"), summaries=(("L1-0",), ("L2-0", "L1-1")), images="I.I"
    )


def test_refuses_reads_every_field_under_each_of_its_names():
    raw = {
        "error": "OverBudgetError",
        "site": "combined-pair",
        "middleCountUnit": "raw-messages",
        "clearedBy": ["L1-0"],
        "headTokens": 10,
        "middleTokens": 20.5,
        "actual": 31,
        "refused": ["L2-0"],
        "droppedIds": ["m2"],
        "categories": {"m2": "not-covered"},
        "field": "max_tokens",
        "budget": 90,
        "configuredBudget": 100,
        "reserveForResponse": 10,
        "inputBudget": 80.5,
        "middleChunkCount": 2,
        "deepestAvailableLevel": 3,
        "summaryCountsByLevel": {"1": 4, "3": 1},
        "message": "Hierarchical emission overran the budget",
        "messageMatches": ["input budget=80", "^Hierarchical"],
    }
    assert expect_of({"sound": {"refuses": raw}})["sound"].refuses == Refuses(
        error="OverBudgetError",
        site="combined-pair",
        unit="raw-messages",
        cleared_by=("L1-0",),
        head_tokens=10,
        middle_tokens=20.5,
        actual=31,
        refused=("L2-0",),
        dropped=("m2",),
        categories={"m2": "not-covered"},
        field="max_tokens",
        budget=90,
        configured_budget=100,
        reserve_for_response=10,
        input_budget=80.5,
        middle_count=2,
        deepest_available_level=3,
        summary_counts_by_level={1: 4, 3: 1},
        message="Hierarchical emission overran the budget",
        message_matches=("input budget=80", "^Hierarchical"),
    )
    assert expect_of({"sound": {"refuses": {"unit": "selection-items", "dropped": ["m1"]}}})[
        "sound"
    ].refuses == Refuses(unit="selection-items", dropped=("m1",))


def test_true_is_an_empty_part_and_false_leaves_it_out():
    assert expect_of({"sound": {"sends": True, "refuses": False}})["sound"] == Expectation(sends=Sends())
    assert expect_of({"sound": {"refuses": True, "sends": False}})["sound"] == Expectation(refuses=Refuses())


def test_categories_are_an_object_of_message_ids_to_drop_categories():
    raw = {"m1": "in-tail-not-rendered", "m2": "covered-by-unemitted-summary"}
    assert expect_of({"all": {"refuses": {"categories": raw}}})["all"].refuses == Refuses(categories=raw)
    assert expect_of({"all": {"refuses": {"categories": None}}})["all"].refuses == Refuses()


def test_a_bad_category_is_refused_at_its_message_id():
    assert error({"sound": {"refuses": {"categories": {"m1": "not-covered", "m2": "lost"}}}}) == (
        f'expect.sound.refuses.categories.m2: expected one of {CATEGORIES}, got "lost"'
    )


def test_categories_must_be_an_object():
    assert error({"sound": {"refuses": {"categories": ["m1"]}}}) == (
        "expect.sound.refuses.categories: expected an object, got an array"
    )


def test_the_inventory_and_the_message_patterns_read_under_their_snake_case_names():
    raw = {"deepest_available_level": 0, "summary_counts_by_level": {}, "message_matches": "summary inventory: empty"}
    assert expect_of({"sound": {"refuses": raw}})["sound"].refuses == Refuses(
        deepest_available_level=0, summary_counts_by_level={}, message_matches=("summary inventory: empty",)
    )


@pytest.mark.parametrize(
    ("counts", "message"),
    [
        (["1"], "summaryCountsByLevel: expected an object, got an array"),
        ({"0": 1}, 'summaryCountsByLevel.0: expected a level (an integer >= 1 written as a key), got "0"'),
        ({"L1": 1}, 'summaryCountsByLevel.L1: expected a level (an integer >= 1 written as a key), got "L1"'),
        ({"1": -1}, "summaryCountsByLevel.1: expected a count (an integer >= 0), got -1"),
        ({"2": 1.5}, "summaryCountsByLevel.2: expected a count (an integer >= 0), got 1.5"),
    ],
)
def test_a_bad_inventory_is_refused_at_its_level(counts, message):
    assert error({"sound": {"refuses": {"summaryCountsByLevel": counts}}}) == f"expect.sound.refuses.{message}"


def test_a_message_pattern_must_be_a_regular_expression():
    """The message names the pattern it refuses, as the file writes it, after what ``re`` finds wrong with it."""
    refused = error({"sound": {"refuses": {"messageMatches": ["ok", "(unclosed"]}}})
    assert refused.startswith(
        "expect.sound.refuses.messageMatches[1]: not a regular expression (missing ), unterminated subpattern"
    )
    assert refused.endswith('): "(unclosed"')
    assert error({"sound": {"refuses": {"messageMatches": 3}}}) == (
        "expect.sound.refuses.messageMatches: expected a pattern or an array of patterns, got 3"
    )


@pytest.mark.parametrize(
    ("counts", "message"),
    [
        (
            {"1234567890": 1},
            'summaryCountsByLevel.1234567890: expected a level (an integer >= 1 written as a key), got "1234567890"',
        ),
        ({"1": 2**53}, f"summaryCountsByLevel.1: expected a count (an integer >= 0), got {2**53}"),
        ({"1": True}, "summaryCountsByLevel.1: expected a count (an integer >= 0), got true"),
    ],
)
def test_an_inventory_past_its_edges_is_refused(counts, message):
    assert error({"sound": {"refuses": {"summaryCountsByLevel": counts}}}) == f"expect.sound.refuses.{message}"


def test_an_inventory_at_its_edges_reads():
    counts = {"123456789": 0, "1": 2**53 - 1}
    (got,) = expect_of({"sound": {"refuses": {"summaryCountsByLevel": counts}}}).values()
    assert got.refuses is not None and got.refuses.summary_counts_by_level == {123456789: 0, 1: 2**53 - 1}


def test_each_message_pattern_is_a_string_and_a_lone_one_is_named_without_an_index():
    assert error({"sound": {"refuses": {"messageMatches": ["ok", 3]}}}) == (
        "expect.sound.refuses.messageMatches[1]: expected a string, got 3"
    )
    assert error({"sound": {"refuses": {"messageMatches": "(unclosed"}}}).startswith(
        "expect.sound.refuses.messageMatches: not a regular expression"
    )


# ----------------------------------------------------------------------------- the variant keys


def test_expect_must_be_an_object():
    assert error(["sound"]) == "expect: expected an object, got an array"


def test_an_unknown_variant_is_refused_with_the_closest_name():
    assert error({"sond": {"holds": True}}) == f'expect: unknown variant "sond"; did you mean "sound"? {ALLOWED}'


def test_an_unknown_variant_far_from_every_name_gets_no_suggestion():
    assert error({"zzz": {"holds": True}}) == f'expect: unknown variant "zzz" {ALLOWED}'
