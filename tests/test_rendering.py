"""The reference rendering (reference/rendering.py): its own rules, and the four TypeScript fidelity cases
(docs/model.md: Recall answers and the envelope, Selection, The message cap), which ``sound`` sends as rendered."""

from __future__ import annotations

import pytest

from reference.cap import cap_content, safe_slice
from reference.model import Budget, Config, Message, Store, Summary, Text, Thinking
from reference.numerics import js_replace_all
from reference.rendering import Selection, recall_header, render
from strategies.hierarchical import HierarchicalStrategy
from tests.builders import msg, store, summary


def sent_and_rendered(st: Store, config: Config, max_tokens: float = 10**6):
    strategy = HierarchicalStrategy(config, "sound")
    strategy.initialize(st)
    result = strategy.compile(Budget(max_tokens=max_tokens))
    raw = frozenset(e.message_id for e in result.entries if e.kind == "raw")
    return result.entries, render(st, config, Selection(raw, result.selected))


def test_safe_slice_steps_back_from_a_low_surrogate_paired_or_lone():
    assert safe_slice("a😀b", 2) == "a"
    assert safe_slice("ab\udc00cd", 2) == "a"
    assert safe_slice("abc", 2.9) == "ab"
    assert safe_slice("abc", 5) == "abc"


def test_js_replace_all_reads_replacement_patterns():
    assert js_replace_all("[{id}]", "{id}", "a$&b") == "[a{id}b]"
    assert js_replace_all("x{id}y", "{id}", "$`|$'|$$") == "xx|y|$y"
    assert js_replace_all("{id}{id}", "{id}", "$1") == "$1$1"


def test_the_header_is_replaced_in_turn():
    s = summary("L1-0", 0, 1)
    s = Summary(**{**s.__dict__, "id": "{level}"})
    assert recall_header(s, Config(recall_header_template="[{id}]"), chained=True) == "[1]"
    assert recall_header(s, Config(recall_header_template="[{id}]")) == "[{level}]"


def test_the_cap_keeps_an_exact_fit_whole_and_replaces_a_spent_result():
    from reference.model import ToolResult

    content = (Text("a" * 8), ToolResult("t", "b" * 8))
    assert cap_content(content, 2) == (Text("a" * 8), ToolResult("t", "[content omitted — context budget exceeded]"))


def test_sound_sends_the_reference_rendering_of_a_combined_xml_answer():
    st = store(5, [summary("L1-0", 0, 1), summary("L1-1", 2, 3)])
    sent, rendered = sent_and_rendered(st, Config(positioned_recall_pairs=False, recall_envelope="xml"))
    assert sent == rendered


_THINKING_ONLY = (Thinking("reasoning", "s" * 33),)
FIDELITY_CASES = {
    "carrier-only-envelope": (
        store(3, [Summary("L1-0", 1, "x", 10, 0, ("m1",), ("m1", "m1"), response_content=_THINKING_ONLY)]),
        Config(recall_envelope="xml"),
    ),
    "header-replace-semantics": (
        Store(messages=(msg(0), msg(1)), summaries=(Summary("a$&b", 1, "text", 10, 0, ("m0",), ("m0", "m0")),)),
        Config(),
    ),
    "blank-summary": (store(3, [Summary("L1-0", 1, "   ", 10, 0, ("m1",), ("m1", "m1"))]), Config()),
    "lone-low-surrogate-cut": (
        Store(messages=(msg(0), Message("m1", "user", (Text("ab\udc00" + "c" * 20),)))),
        Config(max_message_tokens=0.5),
    ),
}


@pytest.mark.parametrize("name", sorted(FIDELITY_CASES))
def test_a_fidelity_case_sends_the_reference_rendering(name):
    st, config = FIDELITY_CASES[name]
    sent, rendered = sent_and_rendered(st, config)
    assert sent == rendered
