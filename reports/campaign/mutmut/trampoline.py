"""mutmut's trampoline with the same dispatch and less work per call, installed before the mutants are imported.

mutmut wraps each mutated function in a trampoline that, at every call, looks the mutant under test up (the
environment first), splits its name and, in the stats run, records the call and its caller through a context
variable. The suite calls the model's functions millions of times, so that per-call work made the tests about 2.5
times slower under a mutant and 5 times slower in the stats run (benchmarks/README.md, "The trampolines").

Here the mode is decoded once, when it is switched (:func:`switch_on`, or :func:`install` reading mutmut's own
record), and each call does one comparison: the original function, this function's active mutant, or, in the stats
run, the original after recording the function in mutmut's ``state()._stats`` (callers are not tracked:
``track_dependencies`` is off in ``pyproject.toml``). Everything else stays mutmut's: the generated modules, the
mutants' names, the stats file and its reading.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import wraps
from typing import Any

try:  # the mutation extra; without it a switch is only the environment variable, as the plugins' tests need
    from mutmut.core import MutmutProgrammaticFailException
    from mutmut.mutation import trampoline as mutmut_trampoline
    from mutmut.state import state
except ImportError:  # pragma: no cover - exercised where the mutation extra is not installed
    mutmut_trampoline = None

ENV = "MUTANT_UNDER_TEST"
STATS = "stats"
FAIL = "fail"
ORIGINAL = "_mutmut_orig"
MUTANT_MARK = "__mutmut_"
#: mutmut's own decorator, kept for what this one leaves to it (coroutines, async generators, class methods).
MUTMUT_WRAP = mutmut_trampoline.wrap_in_trampoline if mutmut_trampoline else None


@dataclass(frozen=True, slots=True)
class Mode:
    """The mutant under test decoded once: its module and its key in that module's mutants, or a special mode."""

    name: str = ""
    module: str = ""
    key: str = ""
    stats: bool = False
    fail: bool = False

    @classmethod
    def of(cls, name: str | None) -> Mode:
        name = name or ""
        module, _, key = name.rpartition(".")
        return cls(name=name, module=module, key=key, stats=name == STATS, fail=name == FAIL)


def _into_stats(name: str) -> None:
    state()._stats.add(name)


_mode = Mode()
_record: Callable[[str], None] = _into_stats


def current() -> Mode:
    """The mode the trampolines of this process dispatch on."""
    return _mode


def switch_on(name: str | None) -> None:
    """Make ``name`` (``module.function__mutmut_N``, ``stats``, ``fail``, or None for none) the mutant under test in
    this process: for the trampolines, in the environment (what subprocesses and the plugins read) and in
    mutmut's own record."""
    global _mode
    _mode = Mode.of(name)
    if name:
        os.environ[ENV] = name
    else:
        os.environ.pop(ENV, None)
    if mutmut_trampoline is not None:
        mutmut_trampoline.set_mutant_under_test(name or None)


def on_test_start() -> None:
    """In the stats run, a test starts: the calls recorded since the last test ended (imports, collection, a
    module's code run when first imported) are forgotten, since mutmut would credit them to this test alone, and
    which test comes first depends on the session (a cold run, or a few new tests measured after a change), not on
    what the test runs."""
    if _mode.stats and mutmut_trampoline is not None:
        state()._stats.clear()


@contextmanager
def recording(hit: Callable[[str], None]) -> Iterator[None]:
    """The block runs as mutmut's stats run does, each call of a mutated function passed to ``hit`` (its stats
    name) instead of mutmut's record; the mode before it is restored after."""
    global _mode, _record
    mode, record, name = _mode, _record, os.environ.get(ENV)
    switch_on(STATS)
    _record = hit
    try:
        yield
    finally:
        switch_on(name)
        _mode, _record = mode, record


def install() -> bool:
    """Put this trampoline in ``mutmut.mutation.trampoline``, where the generated modules import it from, and take
    the mode mutmut has recorded; False where mutmut is not installed. A module mutated and imported before this
    keeps mutmut's own trampoline."""
    global _mode
    if mutmut_trampoline is None:
        return False
    mutmut_trampoline.wrap_in_trampoline = wrap_in_trampoline  # type: ignore[assignment]
    _mode = Mode.of(mutmut_trampoline.get_mutant_under_test())
    return True


def _qualified(module: str, orig: Callable[..., Any]) -> str:
    """The name mutmut's stats record a function under: its module and its mangled name."""
    return f"{module}.{orig.__name__.partition(MUTANT_MARK)[0]}"


def wrap_in_trampoline(
    mutants: dict[str, Callable[..., Any]], is_classmethod: bool = False
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """mutmut's decorator (same signature): ``mutants`` holds the original under ``_mutmut_orig`` and each mutant
    under its key; it is filled after the decoration, so it is read at call time."""

    def decorate(decorated: Callable[..., Any]) -> Callable[..., Any]:
        if is_classmethod or inspect.iscoroutinefunction(decorated) or inspect.isasyncgenfunction(decorated):
            return MUTMUT_WRAP(mutants, is_classmethod)(decorated)
        module = decorated.__module__
        recorded: list[str] = []  # the stats name, computed at the first recorded call

        def chosen() -> Callable[..., Any]:
            mode = _mode
            if mode.module == module:
                mutant = mutants.get(mode.key)
                if mutant is not None:
                    return mutant
            elif mode.stats:
                if not recorded:
                    recorded.append(_qualified(module, mutants[ORIGINAL]))
                _record(recorded[0])
            elif mode.fail:
                raise MutmutProgrammaticFailException(
                    "Verifying setup. At least one test should fail if mutations cause errors."
                )
            return mutants[ORIGINAL]

        if inspect.isgeneratorfunction(decorated):

            @wraps(decorated)
            def generator(*args: Any, **kwargs: Any) -> Any:
                return (yield from chosen()(*args, **kwargs))

            return generator

        @wraps(decorated)
        def function(*args: Any, **kwargs: Any) -> Any:
            return chosen()(*args, **kwargs)

        return function

    return decorate
