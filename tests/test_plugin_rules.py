"""The plugin's two rules that decide a verdict, on generated inputs: which failures ``red_on`` takes as the
expected red (``is_invariant_violation``), and which files pytest collects as scenarios (``is_scenario_file``).

A rule too lenient here excuses a crash as an expected red or leaves a scenario file unrun, and every test
still passes; only these properties can see it.
"""

from __future__ import annotations

from pathlib import PurePosixPath

import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.errors import Flaky, FlakyFailure

from invariants.plugin import is_invariant_violation
from invariants.scenario_items import SUFFIX, is_scenario_file
from strategies.errors import InvalidConfigError, UncoveredDropError

#: A failure's leaves by kind: the compile's own outcomes and broken expectations (reds), and crashes.
REDS = {
    "assertion": lambda: AssertionError("expected 3, got 4"),
    "pytest.fail": lambda: pytest.fail.Exception("fail"),
    "drop": lambda: UncoveredDropError(("m0",), {"m0": "not-covered"}),
    "invalid config": lambda: InvalidConfigError("max_tokens", "negative"),
}
CRASHES = {
    "ValueError": lambda: ValueError("v"),
    "KeyError": lambda: KeyError("k"),
    "TypeError": lambda: TypeError("t"),
}

#: A failure's shape: a leaf's kind, or a group of shapes (nested to any depth).
SHAPES = st.recursive(
    st.sampled_from(sorted(REDS) + sorted(CRASHES)),
    lambda inner: st.lists(inner, min_size=1, max_size=3),
    max_leaves=6,
)


def raised(shape) -> BaseException:
    """The exception of ``shape``: a leaf, or an exception group of its parts."""
    if isinstance(shape, str):
        return {**REDS, **CRASHES}[shape]()
    return BaseExceptionGroup("several failures", [raised(part) for part in shape])


def every_leaf_red(shape) -> bool:
    return shape in REDS if isinstance(shape, str) else all(every_leaf_red(part) for part in shape)


@given(shape=SHAPES)
def test_red_on_takes_a_failure_as_red_exactly_when_every_leaf_of_it_is_a_red(shape):
    """A group is an expected red only when each of its leaves, at any depth, is one: a crash anywhere in it is a
    crash."""
    assert is_invariant_violation(raised(shape)) == every_leaf_red(shape), shape


@given(shape=SHAPES)
def test_red_on_never_takes_a_flaky_failure_as_red(shape):
    """Red once and green on replay (Hypothesis's flaky group, or a bare Flaky) is never the expected red, whatever
    it holds."""
    err = raised(shape)
    leaves = list(err.exceptions) if isinstance(err, BaseExceptionGroup) else [err]
    assert not is_invariant_violation(FlakyFailure("flaky", leaves)), shape
    assert not is_invariant_violation(Flaky("flaky"))


FOLDERS = st.lists(st.sampled_from(["tests", "scenarios", "reports", "typescript", "seed", "a"]), max_size=4)


@given(before=FOLDERS, after=FOLDERS, stem=st.sampled_from(["x", "pr-303", "scenarios"]))
def test_a_scenario_file_is_one_anywhere_under_a_scenarios_folder(before, after, stem):
    """A file named ``*.scenario.json`` is collected wherever it stands under a folder named ``scenarios``, its
    subfolders included; elsewhere, or under another name, it is not."""
    folders = [*before, *after]
    path = PurePosixPath("/", *folders, stem + SUFFIX)
    assert is_scenario_file(path) == ("scenarios" in folders), path
    assert not is_scenario_file(PurePosixPath("/", *folders, stem + ".json"))
