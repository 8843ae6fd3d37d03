"""What the power tests share: the six invariants that read the reference layout, judged together over one case,
and the hand-made shapes as explicit Hypothesis examples."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from hypothesis import example

from invariants.generators import Case
from invariants.properties import _SHARED, INVARIANTS

#: The invariants that read the reference layout (docs/model.md, Invariants).
NEW = ("rendering", "selection", "exactly-once", "chronological", "tail-suffix", "diagnostics-full")


def violations(case: Case, variant: str, names: Sequence[str] = NEW) -> list:
    """Every violation of ``names`` on ``case``, the reference layout computed once for them all."""
    token = _SHARED.set({})
    try:
        return [v for name in names for v in INVARIANTS[name](*case, variant)]
    finally:
        _SHARED.reset(token)


def with_shapes(shapes: Sequence[Case]) -> Callable[[Any], Any]:
    """Each shape as an explicit example of the decorated property (they run first, whatever the profile)."""

    def decorate(test: Any) -> Any:
        for case in reversed(shapes):
            test = example(case=case)(test)
        return test

    return decorate
