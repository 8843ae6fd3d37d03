"""Variant specs (``strategies.defects.parse_variant``): a name, ``+DEFECT,DEFECT`` and ``-DEFECT`` from any base."""

from __future__ import annotations

import pytest

from strategies.defects import LINE_BEHAVIOURS, VARIANTS, Behaviour, Defect, parse_variant

KNOWN_NAMES = ", ".join(VARIANTS)

pytestmark = pytest.mark.defect_table


@pytest.mark.parametrize("name", list(VARIANTS))
def test_a_variant_name_is_its_defect_set(name):
    assert parse_variant(name).active == VARIANTS[name]


def test_plus_switches_defects_on_in_sound():
    spec = "sound+QUESTION_PRICED_AS_LABEL,HEAD_AS_MIDDLE"
    assert parse_variant(spec).active == {Defect.QUESTION_PRICED_AS_LABEL, Defect.HEAD_AS_MIDDLE}


def test_minus_switches_a_defect_off_from_a_hyphenated_base():
    spec = "main-48bb87a1-COMBINED_NO_FLOOR"
    assert parse_variant(spec).active == VARIANTS["main-48bb87a1"] - {Defect.COMBINED_NO_FLOOR}


def test_plus_and_minus_combine_in_order():
    spec = "pr-8bb01ab8+COMBINED_UNCHECKED-QUESTION_PRICED_AS_LABEL+HEAD_AS_MIDDLE"
    expected = (VARIANTS["pr-8bb01ab8"] | {Defect.COMBINED_UNCHECKED, Defect.HEAD_AS_MIDDLE}) - {
        Defect.QUESTION_PRICED_AS_LABEL
    }
    assert parse_variant(spec).active == expected


def test_the_campaigns_mutant_spec_reads_the_same():
    assert parse_variant("sound+COMBINED_UNCHECKED+VIEW_NEVER_BOUND").active == {
        Defect.COMBINED_UNCHECKED,
        Defect.VIEW_NEVER_BOUND,
    }


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        (
            "sound+QUESTION_PRICED",
            "unknown defect 'QUESTION_PRICED' in 'sound+QUESTION_PRICED'; did you mean 'QUESTION_PRICED_AS_LABEL'",
        ),
        ("mian", "did you mean 'main-48bb87a1'?"),
        ("pr", "did you mean 'pr-8bb01ab8'?"),
        ("sound+", "a defect name is missing after '+'"),
    ],
)
def test_a_bad_spec_is_one_line_naming_the_closest(spec, fragment):
    with pytest.raises(ValueError) as info:
        parse_variant(spec)
    assert fragment in str(info.value)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        # The head is the text before the first "+" that starts a name, whatever its case.
        (
            "mian+HEAD_AS_MIDDLE",
            f"unknown variant 'mian' in 'mian+HEAD_AS_MIDDLE'; did you mean 'main-48bb87a1'? (known: {KNOWN_NAMES})",
        ),
        (
            "mian+head_as_middle",
            f"unknown variant 'mian' in 'mian+head_as_middle'; did you mean 'main-48bb87a1'? (known: {KNOWN_NAMES})",
        ),
        # "mr" is as close (ratio 0.5) to "ra", "ma" and "pr", the names cut to its length: all named, closest first.
        (
            "mr",
            "unknown variant 'mr' in 'mr'; did you mean 'raw-forms-cbe7032a' or 'pr-8bb01ab8' or 'main-48bb87a1'? "
            f"(known: {KNOWN_NAMES})",
        ),
        ("xyz", f"unknown variant 'xyz' in 'xyz' (known: {KNOWN_NAMES})"),
    ],
)
def test_an_unknown_variant_is_named_with_the_closest_and_the_known(spec, message):
    with pytest.raises(ValueError) as info:
        parse_variant(spec)
    assert str(info.value) == message


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        # STAMPS_VERBATIM is 0.57 close to STAMPS: above the 0.5 cutoff, below difflib's default 0.6.
        ("sound+STAMPS", "unknown defect 'STAMPS' in 'sound+STAMPS'; did you mean 'STAMPS_VERBATIM'?"),
        ("sound+stamps", "unknown defect 'stamps' in 'sound+stamps'; did you mean 'STAMPS_VERBATIM'?"),
        # Six defects start COMBINED_: the three closest are named.
        (
            "sound+COMBINED_X",
            "unknown defect 'COMBINED_X' in 'sound+COMBINED_X'; did you mean 'COMBINED_NO_FLOOR' or "
            "'COMBINED_UNCHECKED' or 'COMBINED_PREFIX_AT_RAW'?",
        ),
        ("sound+XYZ", "unknown defect 'XYZ' in 'sound+XYZ'; `cmharness defects` lists them"),
    ],
)
def test_an_unknown_defect_is_named_with_the_closest_or_where_to_look(spec, message):
    with pytest.raises(ValueError) as info:
        parse_variant(spec)
    assert str(info.value) == message


def test_line_behaviours_switch_on_and_off_like_defects_in_one_list():
    """A behaviour name in a spec switches that behaviour (not a defect), and the names after it still apply."""
    spec = parse_variant("sound+IMAGE_STRIP_HYSTERESIS,RAW_FORMS_RELEASED,HEAD_AS_MIDDLE")
    assert spec.behaviours == {Behaviour.IMAGE_STRIP_HYSTERESIS, Behaviour.RAW_FORMS_RELEASED}
    assert spec.active == {Defect.HEAD_AS_MIDDLE}
    off = parse_variant("raw-forms-cbe7032a-RAW_FORMS_RELEASED,LIVE_IMAGE_BYTE_WALL")
    assert off.behaviours == LINE_BEHAVIOURS["raw-forms-cbe7032a"] - {
        Behaviour.RAW_FORMS_RELEASED,
        Behaviour.LIVE_IMAGE_BYTE_WALL,
    }
    assert off.active == VARIANTS["raw-forms-cbe7032a"]
