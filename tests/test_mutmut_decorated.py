"""mutmut mutates decorated functions (``reports.campaign.mutmut.decorated``): a property, a cached function, a
function a decorator registers; each decorator still runs once, and a mutant switched on is what the decorated
name runs."""

from __future__ import annotations

import types
from collections.abc import Iterator
from typing import Any

import pytest

from reports.campaign.mutmut import trampoline as lean

pytestmark = pytest.mark.harness
file_mutation = pytest.importorskip("mutmut.mutation.file_mutation", reason="mutmut is not installed (mutation)")
mutmut_trampoline = pytest.importorskip("mutmut.mutation.trampoline")
decorated = pytest.importorskip("reports.campaign.mutmut.decorated")

SOURCE = """
import functools

REGISTERED = []


def registered(name):
    def add(function):
        REGISTERED.append((name, function))
        return function

    return add


@functools.lru_cache(maxsize=8)
def half(n):
    return n // 2


@registered("twice")
def twice(n):
    return n * 2


class Box:
    def __init__(self, w, h):
        self.w = w
        self.h = h

    @property
    def area(self):
        return self.w * self.h

    @functools.cached_property
    def perimeter(self):
        return 2 * (self.w + self.h)

    @property
    def width(self):
        return self.w * 1

    @width.setter
    def width(self, value):
        self.w = value + 1

    @staticmethod
    def unit():
        return 1 + 0
"""

#: The decorated functions whose mutants the patch adds, by mutmut's mangled name.
ADDED = ("x_half", "x_twice", "xǁBoxǁarea", "xǁBoxǁperimeter")


def names_of(generated: Any) -> set[str]:
    return {n.rsplit("__mutmut_", 1)[0] for n in generated.mutant_names}


@pytest.fixture
def patched(monkeypatch: pytest.MonkeyPatch) -> None:
    """The patch installed for one test, mutmut as it was after."""
    monkeypatch.setattr(file_mutation.MutationVisitor, "_skip_node_and_children", decorated._SKIP)
    monkeypatch.setattr(file_mutation, "function_trampoline_arrangement", decorated._ARRANGE)
    monkeypatch.setattr(decorated.mutmut_main, "Pool", decorated.mutmut_main.Pool)
    decorated.install()


@pytest.fixture
def modes() -> Iterator[None]:
    lean.switch_on(None)
    yield
    lean.switch_on(None)


def load(code: str) -> types.ModuleType:
    """The generated module, its trampolines the campaign's (imported from mutmut's module, as mutmut writes it)."""
    saved = mutmut_trampoline.wrap_in_trampoline
    mutmut_trampoline.wrap_in_trampoline = lean.wrap_in_trampoline
    try:
        module = types.ModuleType("boxes")
        exec(compile(code, "boxes.py", "exec"), module.__dict__)
    finally:
        mutmut_trampoline.wrap_in_trampoline = saved
    return module


def test_mutmut_alone_leaves_every_decorated_function_but_a_static_method_unmutated():
    generated = file_mutation.mutate_file_contents("boxes.py", SOURCE)
    assert names_of(generated) == {"xǁBoxǁ__init__", "x_registered", "xǁBoxǁunit"}


def test_the_patch_mutates_the_decorated_functions_but_those_that_share_a_name(patched):
    generated = file_mutation.mutate_file_contents("boxes.py", SOURCE)
    assert names_of(generated) == {"xǁBoxǁ__init__", "x_registered", "xǁBoxǁunit", "xǁBoxǁwidth", *ADDED}
    # the getter is mutated, its setter (of the same name, so of the same copies' names) is not
    assert generated.code.count("def xǁBoxǁwidth__mutmut_orig(") == 1


def test_each_decorator_runs_once_and_the_decorated_name_runs_the_mutant_switched_on(patched, modes):
    generated = file_mutation.mutate_file_contents("boxes.py", SOURCE)
    boxes = load(generated.code)
    assert [name for name, _ in boxes.REGISTERED] == ["twice"]  # registered once, the trampoline
    original = (boxes.half(9), boxes.REGISTERED[0][1](5), boxes.Box(2, 3).area, boxes.Box(2, 3).perimeter)
    assert original == (4, 10, 6, 10)
    changed = set()
    for mutant in generated.mutant_names:
        function = mutant.rsplit("__mutmut_", 1)[0]
        if function not in ADDED:
            continue
        lean.switch_on(f"boxes.{mutant}")  # half(9) memoized by the original above: the mutant's copy computes
        seen = (boxes.half(9), boxes.REGISTERED[0][1](5), boxes.Box(2, 3).area, boxes.Box(2, 3).perimeter)
        lean.switch_on(None)
        differs = {ADDED[k] for k, (a, b) in enumerate(zip(original, seen, strict=True)) if a != b}
        assert differs <= {function}, mutant  # a mutant changes its own function's value alone
        changed |= differs
    assert changed == set(ADDED)
    box = boxes.Box(1, 1)
    box.width = 4
    assert box.width == 5  # the accessor pair works, its getter mutated
    widths = set()
    for mutant in (m for m in generated.mutant_names if m.startswith("xǁBoxǁwidth__")):
        lean.switch_on(f"boxes.{mutant}")
        widths.add(box.width)
        lean.switch_on(None)
    assert widths - {5}  # and a getter's mutant is what reading the property runs


def test_a_memoized_function_reaches_its_trampoline_at_every_call(patched, modes):
    """mutmut's own engine checks its set-up by failing every trampoline after the stats run, in one process: a memo
    outside the trampoline would answer from the stats run's values and no test would fail."""
    boxes = load(file_mutation.mutate_file_contents("boxes.py", SOURCE).code)
    assert boxes.half(9) == 4
    lean.switch_on("fail")
    with pytest.raises(mutmut_trampoline.MutmutProgrammaticFailException):
        boxes.half(9)
