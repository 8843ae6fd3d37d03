"""The campaign's trampolines dispatch and record exactly as mutmut's, on the code mutmut itself generates."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import types
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from reports.campaign.mutmut import trampoline as lean
from reports.campaign.settings import ROOT

pytestmark = pytest.mark.harness
mutmut_trampoline = pytest.importorskip("mutmut.mutation.trampoline", reason="mutmut is not installed (mutation)")
mutmut_state = pytest.importorskip("mutmut.state")

SOURCE = """
def add(a, b):
    return a + b


def scaled(a, *, by=2):
    return add(a, a) * by


class Box:
    def __init__(self, size):
        self.size = size

    def grow(self, n):
        return self.size + n * 2

    @classmethod
    def made(cls, size):
        return cls(size + 1)


def count(n):
    for i in range(n):
        yield i + 1
    return n


async def later(n):
    return n + 10
"""


@pytest.fixture(scope="module")
def generated() -> Any:
    """``SOURCE`` as mutmut writes it mutated (imported here, not at collection: its parser costs half a second)."""
    file_mutation = pytest.importorskip("mutmut.mutation.file_mutation")
    return file_mutation.mutate_file_contents("calc.py", SOURCE)


def load(generated: Any, decorator: Callable[..., Any], name: str = "calc") -> types.ModuleType:
    """The generated module, its trampolines made by ``decorator`` (imported from mutmut's module, as mutmut
    writes it)."""
    saved = mutmut_trampoline.wrap_in_trampoline
    mutmut_trampoline.wrap_in_trampoline = decorator
    try:
        module = types.ModuleType(name)
        exec(compile(generated.code, f"{name}.py", "exec"), module.__dict__)
    finally:
        mutmut_trampoline.wrap_in_trampoline = saved
    return module


def observe(calc: types.ModuleType) -> list[Any]:
    """Every decorated function called once, each result (or the exception's type) in order."""

    def outcome(call: Callable[[], Any]) -> Any:
        try:
            return call()
        except Exception as err:  # a mutant may break a call: the two trampolines must break it alike
            return type(err).__name__

    def drained() -> tuple[list[int], Any]:
        gen = calc.count(3)
        items = []
        while True:
            try:
                items.append(next(gen))
            except StopIteration as stop:
                return items, stop.value

    return [
        outcome(lambda: calc.add(2, 3)),
        outcome(lambda: calc.scaled(4, by=3)),
        outcome(lambda: calc.Box(5).grow(4)),
        outcome(lambda: calc.Box.made(1).size),
        outcome(drained),
        outcome(lambda: asyncio.run(calc.later(1))),
    ]


@pytest.fixture
def modes() -> Iterator[None]:
    """Each test starts and ends with no mutant switched on."""
    lean.switch_on(None)
    yield
    lean.switch_on(None)
    mutmut_state.state()._stats.clear()


@pytest.mark.parametrize("mode", ["none", "stats", "another module's mutant", "each of this module's mutants"])
def test_each_mode_dispatches_as_mutmuts_trampoline_does(mode, generated, modes):
    names = {
        "none": [None],
        "stats": ["stats"],
        "another module's mutant": ["other.x_add__mutmut_1"],
        "each of this module's mutants": [f"calc.{n}" for n in generated.mutant_names],
    }[mode]
    stock, leaner = load(generated, mutmut_trampoline.wrap_in_trampoline), load(generated, lean.wrap_in_trampoline)
    stats = mutmut_state.state()._stats
    for name in names:
        lean.switch_on(name)
        stats.clear()
        expected = observe(stock)
        recorded_by_mutmut = set(stats)
        stats.clear()
        assert observe(leaner) == expected, name
        assert set(stats) == recorded_by_mutmut, name  # the stats run records the same functions
        assert bool(recorded_by_mutmut) == (name == "stats"), name  # and nothing is recorded in another mode


def test_the_mutants_cover_every_kind_of_function_the_trampoline_handles(generated):
    """The comparison above means something only if each kind has a mutant that changes what it returns."""
    names = {n.partition("__mutmut_")[0] for n in generated.mutant_names}
    assert {"x_add", "x_scaled", "xǁBoxǁgrow", "xǁBoxǁmade", "x_count", "x_later"} <= names
    calc = load(generated, lean.wrap_in_trampoline)
    original = observe(calc)
    changed = set()
    for name in generated.mutant_names:
        lean.switch_on(f"calc.{name}")
        if observe(calc) != original:
            changed.add(name.partition("__mutmut_")[0])
    lean.switch_on(None)
    assert changed == names


def test_a_switch_reaches_the_environment_and_mutmuts_record_and_none_clears_them(modes):
    lean.switch_on("calc.x_add__mutmut_1")
    assert os.environ[lean.ENV] == "calc.x_add__mutmut_1"
    assert mutmut_trampoline.get_mutant_under_test() == "calc.x_add__mutmut_1"
    assert lean.current() == lean.Mode("calc.x_add__mutmut_1", "calc", "x_add__mutmut_1")
    lean.switch_on(None)
    assert lean.ENV not in os.environ and mutmut_trampoline.get_mutant_under_test() == ""
    assert lean.current() == lean.Mode()


def test_recording_counts_each_call_and_restores_the_mode_before_it(generated, modes):
    calc = load(generated, lean.wrap_in_trampoline)
    lean.switch_on("calc.x_add__mutmut_1")
    hits: list[str] = []
    with lean.recording(hits.append):
        assert calc.scaled(1) == 4  # the original add inside: recording runs no mutant
    assert hits == ["calc.x_scaled", "calc.x_add"]
    assert lean.current().key == "x_add__mutmut_1" and calc.add(1, 1) == 0  # switched back on after


def test_the_fail_mode_fails_every_call_as_mutmuts_does(generated, modes):
    calc = load(generated, lean.wrap_in_trampoline)
    lean.switch_on(lean.FAIL)
    with pytest.raises(Exception, match="Verifying setup"):
        calc.add(1, 2)


def test_install_puts_the_trampoline_where_the_generated_code_imports_it_and_takes_mutmuts_mode(
    generated, monkeypatch, modes
):
    monkeypatch.setattr(mutmut_trampoline, "wrap_in_trampoline", mutmut_trampoline.wrap_in_trampoline)
    monkeypatch.setenv(lean.ENV, "calc.x_add__mutmut_1")
    assert lean.install() is True
    assert mutmut_trampoline.wrap_in_trampoline is lean.wrap_in_trampoline
    assert lean.current().module == "calc"
    calc = types.ModuleType("calc")
    exec(compile(generated.code, "calc.py", "exec"), calc.__dict__)
    assert calc.add(2, 3) == -1  # the installed trampoline dispatches to the mutant in mutmut's environment


def test_install_is_a_no_op_without_mutmut(monkeypatch, modes):
    monkeypatch.setattr(lean, "mutmut_trampoline", None)
    assert lean.install() is False
    lean.switch_on("calc.x_add__mutmut_1")  # the environment alone, for plugins that only read it
    assert os.environ[lean.ENV] == "calc.x_add__mutmut_1"


#: What mutmut's stats run does at each test's teardown, written down: the functions recorded since the last one.
STATS_COLLECTOR = """
import json
import os

from mutmut.state import state


def pytest_runtest_teardown(item):
    with open(os.environ["STATS_OUT"], "a", encoding="utf-8") as fh:
        fh.write(json.dumps([item.name, sorted(state()._stats)]) + "\\n")
    state()._stats.clear()
"""

USES_AT_IMPORT = """
from calc import add

TABLE = add(1, 1)  # run when the module is imported, before any test


def test_reads_the_table():
    assert TABLE == 2


def test_calls_add():
    assert add(2, 3) == 5
"""


def test_the_stats_run_credits_no_test_with_the_calls_made_outside_every_test(generated, tmp_path):
    """mutmut credits the calls made at import and collection to whichever test runs first, here one that calls
    nothing mutated; with the plugin each test is credited with its own calls only."""
    (tmp_path / "calc.py").write_text(generated.code)
    (tmp_path / "conftest.py").write_text(STATS_COLLECTOR)
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "test_uses.py").write_text(USES_AT_IMPORT)
    out = tmp_path / "stats.jsonl"
    env = {**os.environ, lean.ENV: lean.STATS, "STATS_OUT": str(out), "PYTHONPATH": f"{tmp_path}{os.pathsep}{ROOT}"}
    plugin = ["-p", "reports.campaign.plugins.mutant_plugin", "-p", "no:cacheprovider", "-p", "no:randomly"]
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", *plugin, "test_uses.py"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    credited = dict(json.loads(line) for line in out.read_text().splitlines())
    assert credited == {"test_reads_the_table": [], "test_calls_add": ["calc.x_add"]}
