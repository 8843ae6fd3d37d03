"""Small store builders for example tests: prose messages priced in round tens, summaries over them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from reference.model import Budget, Config, Message, Store, Summary, Text, Thinking, Work
from reference.price import reference_price
from strategies import HierarchicalStrategy, OverBudgetError, UncoveredDropError
from strategies.emission import CompileResult

VARIANT_NAMES = ("main-48bb87a1", "pr-8bb01ab8", "sound")
MAIN, PR, SOUND = VARIANT_NAMES
FAITHFUL = (MAIN, PR)


def prose(tokens: int) -> str:
    """Prose that the default estimator prices at ``tokens`` (a multiple of 10)."""
    assert tokens % 10 == 0
    return "a" * (29 * tokens // 10)


def msg(i: int, tokens: int = 10) -> Message:
    return Message(id=f"m{i}", participant="user" if i % 2 == 0 else "assistant", content=(Text(prose(tokens)),))


def summary(
    sid: str,
    first: int,
    last: int,
    *,
    tokens: float = 10,
    content_tokens: int = 10,
    level: int = 1,
    sources: Sequence[str] | None = None,
    parent: str | None = None,
    carriers: tuple | None = None,
) -> Summary:
    """A summary over messages ``m{first}..m{last}`` (an L1), or over ``sources`` (a merge)."""
    if sources is None:
        source_level, source_ids = 0, tuple(f"m{i}" for i in range(first, last + 1))
    else:
        source_level, source_ids = level - 1, tuple(sources)
    return Summary(
        id=sid,
        level=level,
        content=prose(content_tokens),
        tokens=tokens,
        source_level=source_level,
        source_ids=source_ids,
        source_range=(f"m{first}", f"m{last}"),
        parent_id=parent,
        response_content=carriers,
    )


def carriers(text_tokens: int = 10) -> tuple:
    """A reply with reasoning: a signed thinking block and the summary's text."""
    return (Thinking("th", "s" * 33), Text(prose(text_tokens)))


def store(n: int, summaries: Sequence[Summary] = (), work: Sequence[Work] = (), **kw: object) -> Store:
    return Store(messages=tuple(msg(i) for i in range(n)), summaries=tuple(summaries), work=tuple(work), **kw)


@dataclass(frozen=True)
class Outcome:
    """A compile's outcome: what it sent, or how it refused."""

    result: CompileResult | None = None
    error: Exception | None = None

    @property
    def sent(self) -> bool:
        return self.result is not None

    def refusal(self) -> OverBudgetError:
        assert isinstance(self.error, OverBudgetError), f"expected an OverBudgetError, got {self.error!r}"
        return self.error


def compile_with(
    variant: str,
    st: Store,
    config: Config,
    max_tokens: float,
    *,
    dry_run: bool = False,
    strategy: HierarchicalStrategy | None = None,
) -> Outcome:
    if strategy is None:
        strategy = HierarchicalStrategy(config, variant)
        strategy.initialize(st)
    try:
        return Outcome(result=strategy.compile(Budget(max_tokens=max_tokens), dry_run=dry_run))
    except (OverBudgetError, UncoveredDropError) as err:
        return Outcome(error=err)


def sent_price(outcome: Outcome, st: Store, config: Config) -> float:
    assert outcome.result is not None, f"expected a send, got {outcome.error!r}"
    return reference_price(outcome.result.entries, st, config)


def exact_budget(st: Store, config: Config) -> float:
    """The sound compile's reference price at an unlimited budget."""
    return sent_price(compile_with(SOUND, st, config, float("inf")), st, config)
