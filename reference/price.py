"""The reference price of what a compile sends (docs/model.md, Prices and the floor: ``sound``).

Deliberately simple: every entry's content priced from scratch by ``E``, plus, for each summary an
answer holds whose floor applies, how far its measured tokens exceed the estimate of its prose.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from reference.estimator import content_tokens
from reference.model import Config, Content, Entry, RedactedThinking, Store, Summary, Text, Thinking
from reference.numerics import Number, is_number, js_max, js_trim


def prose(s: Summary) -> Content:
    """A summary's reply as sent: its carriers when it has any, else its text."""
    return tuple(s.response_content) if s.response_content else (Text(s.content),)


def live_prose(s: Summary, config: Config) -> Content:
    """``prose`` under the carrier policy: ``live-strip`` drops reasoning, keeping some non-blank text."""
    blocks = prose(s)
    if config.carrier_policy == "full":
        return blocks
    kept = tuple(b for b in blocks if not isinstance(b, (Thinking, RedactedThinking)))
    if not any(isinstance(b, Text) and js_trim(b.text) for b in kept):
        return (Text(s.content),)
    return kept


def measured(s: Summary) -> bool:
    """The summary's measured tokens can floor: a finite number > 0."""
    return is_number(s.tokens) and math.isfinite(s.tokens) and s.tokens > 0


def floor_applies(s: Summary, config: Config) -> bool:
    """The reference floor rule: full carriers, a non-empty carrier list, and measured tokens."""
    return config.carrier_policy == "full" and bool(s.response_content) and measured(s)


def excess(s: Summary, store: Store, config: Config) -> Number:
    """How far a floored summary's measured tokens exceed the estimate of its (uncapped) prose."""
    if not floor_applies(s, config):
        return 0
    return js_max(0, s.tokens - content_tokens(live_prose(s, config), store))


def reference_price(entries: Iterable[Entry], store: Store, config: Config) -> Number:
    """The price of ``entries`` computed from scratch: ``E`` of each, plus each held summary's excess."""
    total: Number = 0
    for entry in entries:
        total += content_tokens(entry.content, store)
        if entry.kind == "answer":
            for sid in entry.summary_ids:
                total += excess(store.summary(sid), store, config)
    return total
