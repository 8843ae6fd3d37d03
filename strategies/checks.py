"""The sound compile's refusals of bad values (docs/model.md, The bad-value refusals), before anything is priced."""

from __future__ import annotations

import math

from reference.model import Budget, Config, InvalidConfigError, Store, Text
from reference.numerics import Number, is_number
from reference.price import live_prose
from strategies.pricing import Prices, owned_by
from strategies.recall import SEPARATOR, header, wrap


def _finite_nonneg(x: Number) -> bool:
    return is_number(x) and math.isfinite(x) and x >= 0


def check_values(config: Config, budget: Budget) -> None:
    """Refuse a budget, grace ratio or window size the compile cannot price against."""
    if not (is_number(budget.max_tokens) and budget.max_tokens >= 0):
        raise InvalidConfigError("max_tokens", f"must be a number >= 0 (+inf for unlimited), got {budget.max_tokens!r}")
    if not _finite_nonneg(budget.reserve_for_response):
        raise InvalidConfigError(
            "reserve_for_response", f"must be a finite number >= 0, got {budget.reserve_for_response!r}"
        )
    if budget.input_budget < 0:
        raise InvalidConfigError(
            "reserve_for_response",
            f"{budget.reserve_for_response} leaves an input budget of "
            f"{budget.input_budget} below 0 (max_tokens {budget.max_tokens})",
        )
    if not _finite_nonneg(config.over_budget_grace_ratio):
        raise InvalidConfigError(
            "over_budget_grace_ratio", f"must be a finite number >= 0, got {config.over_budget_grace_ratio!r}"
        )
    for name in ("head_window_tokens", "recent_window_tokens"):
        if math.isnan(getattr(config, name)):
            raise InvalidConfigError(name, "must not be NaN")


def check_summary_texts(store: Store, config: Config, prices: Prices) -> None:
    """Run the custom estimator over every summary's answer and question, the label and the separator."""
    for s in store.summaries:
        with owned_by(f"summary {s.id!r}"):
            prices.E(wrap(live_prose(s, config), s, config))
            prices.E((Text(header(s, config, prices.defects)),))
    with owned_by("summary_context_label"):
        prices.E((Text(config.summary_context_label),))
    with owned_by("separator"):
        prices.E((Text(SEPARATOR),))
