"""Config and budget (docs/model.md, Config and budget): the input budget, when the cap is on, and each bad
value refused with its field named."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.model import Budget, Config, InvalidConfigError

# ----------------------------------------------------------------------------- config and budget


def test_budget_input_budget():
    assert Budget(max_tokens=1000, reserve_for_response=200).input_budget == 800


def test_budget_refuses_non_numbers():
    with pytest.raises(InvalidConfigError, match="max_tokens") as info:
        Budget(max_tokens="lots")
    assert info.value.field == "max_tokens"


@pytest.mark.parametrize(
    ("cap", "on"),
    [(None, None), (0, None), (-5, None), (math.nan, None), (-math.inf, None), (math.inf, math.inf), (100, 100)],
)
def test_cap_is_on_only_above_zero(cap, on):
    assert Config(max_message_tokens=cap).cap == on


@given(st.none() | st.integers(-3, 3) | st.floats(allow_nan=True, allow_infinity=True))
def test_the_cap_is_the_setting_exactly_when_it_is_above_zero(setting):
    """A message cap of 0, a negative, NaN or None is off; any other number is the cap."""
    cap = Config(max_message_tokens=setting).cap
    if setting is not None and setting > 0:
        assert cap == setting
    else:
        assert cap is None


@pytest.mark.parametrize(
    ("field", "value"),
    [("recall_envelope", "json"), ("carrier_policy", "strip"), ("enforce_budget", 1), ("head_window_tokens", "0")],
)
def test_config_refuses_bad_values(field, value):
    with pytest.raises(InvalidConfigError) as info:
        Config(**{field: value})
    assert info.value.field == field


# ----------------------------------------------------------------------------- config and budget messages


def test_budget_error_message_names_the_bad_value():
    """The message says what was expected and what came: ``field: must be a number, got 'lots'``."""
    with pytest.raises(InvalidConfigError, match=r"^reserve_for_response: must be a number, got 'lots'$") as info:
        Budget(max_tokens=10, reserve_for_response="lots")
    assert info.value.field == "reserve_for_response"


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("l2_budget_tokens", None, "must be a number, got None"),
        ("max_message_tokens", "100", "must be a number or None, got '100'"),
        ("max_message_tokens", True, "must be a number or None, got True"),
        ("positioned_recall_pairs", "yes", "must be a bool, got 'yes'"),
        ("recall_envelope", "json", "must be 'none' or 'xml', got 'json'"),
        ("carrier_policy", "strip", "must be 'full' or 'live-strip', got 'strip'"),
        ("summary_context_label", 5, "must be a string, got 5"),
        ("recall_header_template", None, "must be a string, got None"),
        ("summary_participant", b"Claude", "must be a string, got b'Claude'"),
    ],
)
def test_config_errors_name_field_and_value(field, value, message):
    """Each bad config value is refused with ``field`` set and a message ``field: expectation, got value``."""
    with pytest.raises(InvalidConfigError) as info:
        Config(**{field: value})
    assert info.value.field == field
    assert str(info.value) == f"{field}: {message}"


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("carrier_policy", "live-strip"),
        ("carrier_policy", "full"),
        ("recall_envelope", "xml"),
        ("recall_envelope", "none"),
        ("max_message_tokens", None),
        ("max_message_tokens", 2.5),
    ],
)
def test_config_accepts_every_documented_value(field, value):
    """Every value docs/model.md, Config and budget, lists is accepted and kept."""
    assert getattr(Config(**{field: value}), field) == value


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("max_live_images", "3", "must be a number, got '3'"),
        ("tool_use_input_max_tokens", None, "must be a number, got None"),
        ("tool_result_max_last_n", "x", "must be None, a number or a mapping tool name -> number, got 'x'"),
        (
            "tool_result_max_last_n",
            {"read": "2"},
            "must be None, a number or a mapping tool name -> number, got {'read': '2'}",
        ),
    ],
)
def test_tool_and_image_field_errors_name_field_and_value(field, value, message):
    with pytest.raises(InvalidConfigError) as info:
        Config(**{field: value})
    assert info.value.field == field
    assert str(info.value) == f"{field}: {message}"


@pytest.mark.parametrize("name", ["max_live_image_bytes", "image_strip_hysteresis_ratio"])
def test_the_optional_image_numbers_are_checked_and_read_as_javascript_holds_them(name):
    with pytest.raises(InvalidConfigError) as info:
        Config(**{name: "x"})
    assert info.value.field == name and str(info.value) == f"{name}: must be a number or None, got 'x'"
    big = Config(**{name: 2**60 + 1})
    assert getattr(big, name) == float(2**60) and isinstance(getattr(big, name), float)
    assert getattr(Config(), name) is None
