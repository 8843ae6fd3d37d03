"""Recall pairs as sent: headers, envelope, positioned and combined (docs/model.md, Recall answers and the envelope)."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from reference.model import Block, Config, Content, Summary, Text
from reference.numerics import Number, js_number_string, js_replace_all
from reference.price import live_prose
from strategies.cap import cap_on, text_only, truncate, truncate_fates
from strategies.defects import Defect, Defects

SEPARATOR = "\n\n---\n\n"
SEPARATOR_TOKENS = text_only((Text(SEPARATOR),))
CLOSE_TAG = "</cm-recall>"
QUESTION_PARTICIPANT = "Context Manager"
_PLACEHOLDER = re.compile(r"\{(id|level|first|last)\}")
PLACEHOLDERS = ("id", "level", "first", "last")


def header(s: Summary, config: Config, defects: Defects) -> str:
    """The positioned question: the template with each placeholder replaced by its value, in one pass.

    Faithfully (``HEADER_REPLACE_CHAINED``) four chained JavaScript ``replace`` calls, as ``buildRecallHeader``.
    """
    values = {"id": s.id, "level": js_number_string(s.level), "first": s.source_range[0], "last": s.source_range[1]}
    template = config.recall_header_template
    if defects.on(Defect.HEADER_REPLACE_CHAINED):
        for name in PLACEHOLDERS:
            template = js_replace_all(template, "{" + name + "}", values[name])
        return template
    return _PLACEHOLDER.sub(lambda m: values[m.group(1)], template)


def open_tag(s: Summary) -> str:
    first, last = s.source_range
    attrs = f' id="{s.id}"' if s.id else ""
    attrs += f' level="{js_number_string(s.level)}"' if math.isfinite(s.level) else ""
    attrs += f' span="{first}..{last}"' if first and last else ""
    return f"<cm-recall{attrs}>"


def wrap(content: Content, s: Summary, config: Config) -> Content:
    """The ``xml`` envelope around an answer: tags on the first and last Text block, or else one Text of its own
    holding the open tag, one newline and the close tag (``wrapRecallAnswerContent``)."""
    if config.recall_envelope != "xml":
        return content
    opening = open_tag(s) + "\n"
    closing = "\n" + CLOSE_TAG
    texts = [i for i, b in enumerate(content) if isinstance(b, Text)]
    if not texts:
        return (*content, Text(open_tag(s) + "\n" + CLOSE_TAG))
    out: list[Block] = list(content)
    first, last = texts[0], texts[-1]
    out[first] = Text(opening + out[first].text)
    out[last] = Text(out[last].text + closing)
    return tuple(out)


def positioned_answer(s: Summary, config: Config) -> Content:
    """A positioned pair's answer as sent: the live prose under the cap, then the envelope."""
    return wrap(truncate(live_prose(s, config), config.cap), s, config)


@dataclass(frozen=True)
class CombinedAnswer:
    """The combined pair's answer and the summaries it holds, in the order it holds them."""

    content: Content
    held: tuple[Summary, ...]


def _combined_flat(summaries: Sequence[Summary], config: Config) -> CombinedAnswer:
    whole: list[Block] = []
    owners: list[int] = []
    for k, s in enumerate(summaries):
        if k > 0:
            whole.append(Text(SEPARATOR))
            owners.append(-1)
        prose = live_prose(s, config)
        whole.extend(prose)
        owners.extend([k] * len(prose))
    content, fates = truncate_fates(tuple(whole), config.cap)
    alive = {owners[i] for i, kept in enumerate(fates) if kept}
    return CombinedAnswer(content, tuple(s for k, s in enumerate(summaries) if k in alive))


def _combined_xml(summaries: Sequence[Summary], config: Config) -> CombinedAnswer:
    cap = config.cap
    remaining: Number = cap if cap_on(cap) else math.inf
    out: list[Block] = []
    held: list[Summary] = []
    for k, s in enumerate(summaries):
        sep = SEPARATOR_TOKENS if k > 0 else 0
        if cap_on(cap) and remaining - sep <= 0:
            break
        capped = truncate(live_prose(s, config), remaining - sep if cap_on(cap) else None)
        if k > 0:
            out.append(Text(SEPARATOR))
        out.extend(wrap(capped, s, config))
        held.append(s)
        if cap_on(cap):
            remaining -= text_only(capped) + sep
    return CombinedAnswer(tuple(out), tuple(held))


def combined_answer(summaries: Sequence[Summary], config: Config) -> CombinedAnswer:
    """The combined pair's answer over ``summaries`` in the given order, and what it holds."""
    if config.recall_envelope == "xml":
        return _combined_xml(summaries, config)
    return _combined_flat(summaries, config)
