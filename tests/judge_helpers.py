"""What the judges' tests share: wrong compiles that no named defect makes, built by tampering with sound's outcome.

``tamper(monkeypatch, ...)`` swaps the strategy every invariant compiles with for sound's, its outcome then
changed by hand (the result sent, the refusal raised, or the budget it sees). The invariants judge it as they
judge any compile; a test then asserts the invariant breaks, with the words it breaks with.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

import invariants.properties.repeatability as repeatability
import invariants.properties.running as running
from invariants.generators import Case
from invariants.properties import INVARIANTS, SHARED_COMPILES, Violation
from reference.model import Budget, Config, Store
from strategies import HierarchicalStrategy, OverBudgetError
from strategies.emission import CompileResult

SentChange = Callable[[CompileResult, Budget], CompileResult]
RefusalChange = Callable[[Exception, Budget], Exception]
BudgetChange = Callable[[Budget], Budget]


def tamper(
    monkeypatch,
    *,
    sent: SentChange | None = None,
    refused: RefusalChange | None = None,
    budget: BudgetChange | None = None,
    config: Callable[[Config], Config] | None = None,
    store: Callable[[Store], Store] | None = None,
    held: Callable[[Store], Store] | None = None,
) -> None:
    """Every compile the invariants run is sound's on ``budget(b)`` (over ``store(s)`` with ``config(c)``), its
    result passed through ``sent`` and its refusal through ``refused`` (each given the budget asked for); after
    each compile the strategy holds ``held(s)`` in place of its store ``s``."""

    class Tampered(HierarchicalStrategy):
        def __init__(self, c: Config, variant="sound") -> None:
            super().__init__(c if config is None else config(c), variant)

        def initialize(self, s: Store) -> None:
            super().initialize(s if store is None else store(s))

        def compile(self, b: Budget, dry_run: bool = False) -> CompileResult:
            try:
                result = super().compile(b if budget is None else budget(b), dry_run=dry_run)
            except Exception as err:
                if refused is None:
                    raise
                raise refused(err, b) from None
            finally:
                if held is not None and self._store is not None:
                    self._store = held(self._store)
            return result if sent is None else sent(result, b)

    monkeypatch.setattr(running, "HierarchicalStrategy", Tampered)
    monkeypatch.setattr(repeatability, "HierarchicalStrategy", Tampered)


def judged(name: str, case: Case, variant="sound") -> list[Violation]:
    """``name``'s violations on ``case`` (its compiles shared as ``check`` shares them)."""
    token = SHARED_COMPILES.set({})
    try:
        return INVARIANTS[name](*case, variant)
    finally:
        SHARED_COMPILES.reset(token)


def broken(name: str, case: Case, variant="sound", *words: str) -> Violation:
    """A violation of ``name`` on ``case`` whose message holds each of ``words`` (there may be others)."""
    found = judged(name, case, variant)
    assert found, f"expected {name} to break, it holds"
    assert all(v.invariant == name for v in found), found
    hits = [v for v in found if all(w in v.message for w in words)]
    assert hits, f"no violation of {name} says {words}: {[v.message for v in found]}"
    return hits[0]


def with_diagnostics(err: Exception, **changes: object) -> Exception:
    """``err`` (an ``OverBudgetError``) with some diagnostics fields, or ``budget``/``actual``, changed."""
    assert isinstance(err, OverBudgetError), f"expected an OverBudgetError, got {err!r}"
    top = {k: changes.pop(k) for k in ("budget", "actual") if k in changes}
    return OverBudgetError(
        budget=top.get("budget", err.budget),
        actual=top.get("actual", err.actual),
        stage=err.stage,
        diagnostics=dataclasses.replace(err.diagnostics, **changes),
        item=err.item,
        refused=err.refused,
    )


def with_entries(
    result: CompileResult, keep: Callable[[int], bool] | None = None, extra: Sequence = ()
) -> CompileResult:
    """``result`` sending only the entries whose index ``keep`` accepts, then ``extra``."""
    entries = tuple(e for k, e in enumerate(result.entries) if keep is None or keep(k)) + tuple(extra)
    return dataclasses.replace(result, entries=entries)
