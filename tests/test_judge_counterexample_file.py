"""The counterexample a failing property test prints (``invariants/counterexample_file.py``): found wherever the
violation that carries its case is raised, and saved as a scenario file under the project's root."""

from __future__ import annotations

import tempfile
from pathlib import Path
from types import SimpleNamespace

from hypothesis import given
from hypothesis import strategies as st

from invariants.counterexample_file import counterexample_section
from invariants.properties import InvariantViolation, Violation
from reference.model import Budget, Config, Message, Store, Text


@st.composite
def _raised_with_a_case(draw: st.DrawFn) -> BaseException:
    """A violation that carries its case, alone or inside exception groups (Hypothesis reports several failures of
    one test as a group), among other errors and violations without a case."""
    store = Store(messages=(Message("m0", "user", (Text("hi"),)),))
    err: BaseException = InvariantViolation([Violation("never-over", "made up")], case=(store, Config(), Budget(5)))
    for _ in range(draw(st.integers(0, 3))):
        others = draw(
            st.lists(
                st.sampled_from([ValueError("beside"), InvariantViolation([Violation("never-over", "x")])]), max_size=2
            )
        )
        at = draw(st.integers(0, len(others)))
        err = ExceptionGroup("several", [*others[:at], err, *others[at:]])
    return err


@given(_raised_with_a_case())
def test_a_violation_with_a_case_is_found_however_deep_in_exception_groups(err: BaseException) -> None:
    with tempfile.TemporaryDirectory() as root:
        item = SimpleNamespace(nodeid="tests/test_x.py::test_y[sound]", config=SimpleNamespace(rootpath=Path(root)))
        section = counterexample_section(item, err)  # type: ignore[arg-type]
        assert section is not None and "never-over broken; found by tests/test_x.py::test_y[sound]" in section
        assert (Path(root) / ".cmharness" / "counterexamples" / "test_x-test_y-sound.scenario.json").is_file()
