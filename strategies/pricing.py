"""What each item is charged (docs/model.md, Prices and the floor): ``E``, the store view ``V``, and the memo.

The sound prices are the reference price of what is sent; each faithful departure is one switch.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, MutableMapping
from dataclasses import dataclass
from functools import cached_property
from types import TracebackType
from typing import Literal

from reference.estimator import Pricing, TextEstimator, calibrated_tokens, fallback_tokens, text_tokens
from reference.model import Config, Content, InvalidConfigError, Store, Summary, Text
from reference.numerics import Number, is_finite_nonneg, is_number, js_max, js_min, js_number, json_stringify
from reference.price import live_prose, measured
from strategies.cap import cap_on
from strategies.defects import Defect, Defects
from strategies.recall import wrap

RAW_CAP_SLACK = 50
AnswerBasis = Literal["wrapped", "prose", "sent"]
Memo = MutableMapping[tuple[str, str], Number]


class BadEstimate(Exception):
    """The custom text estimator returned something other than a finite number >= 0, or raised."""

    def __init__(self, text: str, value: object = None, error: Exception | None = None) -> None:
        what = f"raised {type(error).__name__}: {error}" if error is not None else f"returned {value!r}"
        super().__init__(f"text estimator {what} for {text[:40]!r}")
        self.text = text
        self.value = value
        self.error = error


def checked(estimator: TextEstimator) -> TextEstimator:
    """The estimator, refusing any output that is not a finite number >= 0, and any exception it raises."""

    def check(text: str) -> Number:
        try:
            value = estimator(text)
        except Exception as err:
            raise BadEstimate(text, error=err) from err
        if is_number(value):
            value = js_number(value)  # an integer past the largest double is Infinity, as in JavaScript
        if not is_finite_nonneg(value):
            raise BadEstimate(text, value)
        return value

    return check


class owned_by:
    """Turn a bad estimate met while pricing ``culprit``'s text into an ``InvalidConfigError`` naming it.

    An estimator that raised is chained as the cause. A plain class, not ``contextlib``: the compile
    enters one per message.
    """

    __slots__ = ("culprit",)

    def __init__(self, culprit: str) -> None:
        self.culprit = culprit

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, bad: BaseException | None, tb: TracebackType | None) -> bool:
        if not isinstance(bad, BadEstimate):
            return False
        text = f"text of {self.culprit} ({bad.text[:40]!r})"
        if bad.error is not None:
            raise InvalidConfigError(
                "text_estimator", f"raised {type(bad.error).__name__}: {bad.error} on the {text}"
            ) from bad.error
        raise InvalidConfigError("text_estimator", f"returned {bad.value!r} for {text}") from None


def store_rule(store: Store, defects: Defects) -> Pricing:
    """The store's estimator under the variant's rules: verbatim stamps and unchecked outputs faithfully."""
    estimator = store.text_estimator
    if estimator is not None and not defects.on(Defect.UNCHECKED_BAD_VALUES):
        estimator = checked(estimator)
    return Pricing(estimator or text_tokens, store.pricing_epoch, defects.on(Defect.STAMPS_VERBATIM))


@dataclass(frozen=True)
class Prices:
    """Prices for one compile: the store's ``E``, the bound view's ``V``, and the answer-price memo."""

    store: Store
    config: Config
    defects: Defects
    view: Store | None
    memo: Memo

    @cached_property
    def _e_rule(self) -> Pricing:
        return store_rule(self.store, self.defects)

    def E(self, content: Content) -> Number:
        """The store's estimate of ``content``."""
        return calibrated_tokens(content, self._e_rule, self.store.calibration)

    def V(self, content: Content) -> Number:
        """The view's price: ``E`` of the bound store, or the fallback when nothing is bound."""
        if self.view is None:
            return fallback_tokens(content)
        return calibrated_tokens(content, store_rule(self.view, self.defects), self.view.calibration)

    # -- raw messages ------------------------------------------------------------------

    def messages(self) -> tuple[Number, ...]:
        """``E`` of every message, in order; kept on the store when its estimator is pure (the default is).

        A custom estimator is trusted to be pure only when it says so (an attribute ``pure`` that is True).
        """
        estimator = self.store.text_estimator
        if estimator is not None and getattr(estimator, "pure", False) is not True:
            return self._price_messages()
        rule = self._e_rule
        unchecked = estimator is not None and self.defects.on(Defect.UNCHECKED_BAD_VALUES)
        key = ("message prices", estimator, unchecked, rule.epoch, rule.verbatim_stamps, self.store.calibration)
        return self.store.derived.value(key, self._price_messages)

    def _price_messages(self) -> tuple[Number, ...]:
        out = []
        for m in self.store.messages:
            with owned_by(f"message {m.id!r}"):
                out.append(self.E(m.content))
        return tuple(out)

    def raw(self, original_price: Number, original: Content, sent: Content) -> Number:
        """A raw message: ``E`` of what is sent, or faithfully ``min(E, cap + 50)`` under a cap."""
        if self.defects.on(Defect.RAW_CAP_PLUS_50):
            return self.raw_cap_plus_50(original_price)
        return original_price if sent is original else self.E(sent)

    def raw_cap_plus_50(self, original_price: Number) -> Number:
        """``RAW_CAP_PLUS_50``'s price of a raw message: ``min(E, cap + 50)`` of the original under a cap."""
        cap = self.config.cap
        return js_min(original_price, cap + RAW_CAP_SLACK) if cap_on(cap) else original_price

    # -- recall answers ------------------------------------------------------------------

    def memo_key(self, s: Summary) -> str:
        """The memo key: the JSON text of (id, tokens, label, envelope, carrier policy, calibration)."""
        c = self.config
        calibration = self.view.calibration if self.view is not None else 1
        return json_stringify(
            [s.id, s.tokens, c.summary_context_label, c.recall_envelope, c.carrier_policy, calibration]
        )

    def _basis(self, s: Summary, basis: AnswerBasis, sent: Content | None) -> Content:
        prose = live_prose(s, self.config)
        if basis == "prose":
            return prose
        if basis == "wrapped":
            return wrap(prose, s, self.config)
        assert sent is not None
        return sent

    def answer_estimate(self, s: Summary, basis: AnswerBasis, sent: Content | None = None) -> Number:
        """``V`` of a summary's answer in one of its forms, memoized per summary and form."""
        key = (basis, self.memo_key(s))
        if key not in self.memo:
            self.memo[key] = self.V(self._basis(s, basis, sent))
        return self.memo[key]

    def floor_applies(self, s: Summary) -> bool:
        """Full carriers, carriers present (faithfully: any list, even empty), measured tokens."""
        if self.config.carrier_policy != "full" or s.response_content is None:
            return False
        if not s.response_content and not self.defects.on(Defect.EMPTY_CARRIERS_FLOOR):
            return False
        return measured(s)

    def _floor_basis(self) -> AnswerBasis:
        return "wrapped" if self.defects.on(Defect.ENVELOPE_ABSORBED) else "prose"

    def excess(self, s: Summary) -> Number:
        """How far measured tokens exceed the estimate the floor is read against; 0 without a floor."""
        if not self.floor_applies(s):
            return 0
        return js_max(0, s.tokens - self.answer_estimate(s, self._floor_basis()))

    def answer(self, s: Summary, sent: Content) -> Number:
        """A positioned answer: the estimate of what is priced, floored by the measured tokens."""
        basis: AnswerBasis = "wrapped" if self.defects.on(Defect.ANSWER_PRICED_UNCAPPED) else "sent"
        est = self.answer_estimate(s, basis, sent)
        if self.floor_applies(s) and basis == self._floor_basis():
            return js_max(s.tokens, est)
        return est + self.excess(s)

    def question(self, sent: Content) -> Number:
        """A positioned question: what is sent, or faithfully the label."""
        if self.defects.on(Defect.QUESTION_PRICED_AS_LABEL):
            return self.V((Text(self.config.summary_context_label),))
        return self.V(sent)

    def combined(self, question: Content, answer: Content, floored: Iterable[Summary]) -> Number:
        """The combined pair: question and answer as sent, plus each floored summary's excess."""
        price = self.V(question) + self.V(answer)
        if self.defects.on(Defect.COMBINED_NO_FLOOR):
            return price
        return price + sum((self.excess(s) for s in floored), 0)


def grace_limit(input_budget: Number, config: Config) -> Number:
    """``floor(B * (1 + max(0, g)))`` in doubles (each step rounded as JavaScript rounds it past 2**53);
    unlimited when the budget is not enforced."""
    if not config.enforce_budget:
        return math.inf
    limit = js_number(input_budget * js_number(1 + js_max(0, config.over_budget_grace_ratio)))
    return limit if not math.isfinite(limit) else math.floor(limit)


def over_budget(config: Config) -> Callable[[Number, Number], bool]:
    """``over_budget(x, limit)``: strict, and never when the budget is not enforced."""
    return lambda x, limit: config.enforce_budget and x > limit
