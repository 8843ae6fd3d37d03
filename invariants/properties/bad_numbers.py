"""The bad-values invariant (docs/model.md, Invariants): with NaN, negative or infinite numbers (or an
estimator giving them) the compile refuses, or sends a finite price under a real grace limit."""

from __future__ import annotations

import math
from collections.abc import Iterable

from invariants.properties.running import Variant, Violation, compile_once, grace_limit, invariant
from reference.model import Block, Budget, Config, Content, Image, RedactedThinking, Store, Text, Thinking, ToolResult
from reference.numerics import is_finite_nonneg, is_number
from reference.price import reference_price


def _walk(content: Content) -> Iterable[Block]:
    """Every block of ``content``, nested tool results' blocks too, in order, without recursion."""
    stack = [iter(content)]
    while stack:
        b = next(stack[-1], None)
        if b is None:
            stack.pop()
            continue
        yield b
        if isinstance(b, ToolResult) and not isinstance(b.content, str):
            stack.append(iter(b.content))


def _estimator_texts(store: Store, config: Config) -> Iterable[str]:
    def texts(content: Content) -> Iterable[str]:
        for b in _walk(content):
            if isinstance(b, Text):
                yield b.text
            elif isinstance(b, Thinking):
                yield b.thinking

    yield from ("", config.summary_context_label, config.recall_header_template, "\n\n---\n\n")
    for m in store.messages:
        yield from texts(m.content)
    for s in store.summaries:
        yield s.content
        yield from texts(s.response_content or ())


def _stamps(content: Content) -> Iterable[object]:
    for b in _walk(content):
        if isinstance(b, (Thinking, RedactedThinking, Image)):
            yield b.token_estimate


def bad_values(store: Store, config: Config, budget: Budget) -> list[str]:
    """The bad values (NaN, negative, infinite numbers; an estimator giving them) in a store, config and budget."""
    bad: list[str] = []

    def ordinary(x: object) -> bool:
        return is_finite_nonneg(x)

    cap = config.max_message_tokens
    if cap is not None and (math.isnan(cap) or cap < 0 or math.isinf(cap)):
        bad.append(f"cap {cap}")
    for fname in (
        "head_window_tokens",
        "recent_window_tokens",
        "l1_budget_tokens",
        "l2_budget_tokens",
        "l3_budget_tokens",
        "over_budget_grace_ratio",
    ):
        if not ordinary(getattr(config, fname)):
            bad.append(f"{fname} {getattr(config, fname)}")
    if math.isnan(budget.max_tokens) or budget.max_tokens < 0:
        bad.append(f"max_tokens {budget.max_tokens}")
    if not ordinary(budget.reserve_for_response):
        bad.append(f"reserve_for_response {budget.reserve_for_response}")
    if not budget.input_budget >= 0:
        bad.append(f"input budget {budget.input_budget}")
    for m in store.messages:
        if any(x is not None and not ordinary(x) for x in _stamps(m.content)):
            bad.append(f"a stamp in {m.id}")
    for s in store.summaries:
        if not ordinary(s.tokens):
            bad.append(f"{s.id}.tokens {s.tokens}")
        if any(x is not None and not ordinary(x) for x in _stamps(s.response_content or ())):
            bad.append(f"a stamp in {s.id}'s carriers")
    if store.text_estimator is not None:
        for text in _estimator_texts(store, config):
            try:
                value = store.text_estimator(text)
            except Exception as err:
                value = err
            if not ordinary(value):
                bad.append(f"the estimator gives {value!r} for {text[:20]!r}")
                break
    return bad


def _unlimited_by_request(budget: Budget, config: Config) -> bool:
    return not config.enforce_budget or (budget.max_tokens == math.inf and math.isfinite(budget.reserve_for_response))


@invariant("bad-values", cost=5)
def bad_values_invariant(store: Store, config: Config, budget: Budget, variant: Variant) -> list[Violation]:
    """With bad values the compile refuses with a clear error, or sends a finite price under a real limit."""
    name = "bad-values"
    bad = bad_values(store, config, budget)
    if not bad:
        return []
    out = compile_once(store, config, budget, variant)
    why = ", ".join(bad[:4]) + (f" and {len(bad) - 4} more" if len(bad) > 4 else "")
    if out.crashed:
        return [
            Violation(name, f"with bad values ({why}) the compile crashed with {type(out.error).__name__}: {out.error}")
        ]
    if not out.sent:
        return []
    try:
        price = reference_price(out.entries, store, config)
    except Exception as err:
        price = f"unpriceable ({type(err).__name__}: {err})"
    limit = grace_limit(budget, config)
    charged = out.result.stats.total.tokens
    if not is_number(price) or not math.isfinite(price):
        return [
            Violation(
                name,
                f"with bad values ({why}) it sends {len(out.entries)} entries whose reference price "
                f"is {price} (it charged {charged})",
            )
        ]
    if math.isnan(limit):
        return [
            Violation(
                name,
                f"with bad values ({why}) it sends {len(out.entries)} entries (reference price "
                f"{price}) against a NaN grace limit, which refuses nothing",
            )
        ]
    if math.isinf(limit) and not _unlimited_by_request(budget, config):
        return [
            Violation(
                name,
                f"with bad values ({why}) it sends {len(out.entries)} entries (reference price "
                f"{price}) against an infinite grace limit nobody asked for",
            )
        ]
    if not price <= limit:
        return [
            Violation(
                name,
                f"with bad values ({why}) it sends {len(out.entries)} entries priced {price}, over "
                f"the grace limit {limit} (it charged {charged})",
            )
        ]
    return []
