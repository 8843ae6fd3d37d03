"""Scenario files (reference/scenario.py): loading, round trips, NaN/infinity strings, JSON text and files."""

from __future__ import annotations

import codecs
import copy
import json
import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from scenario_helpers import M, S
from scenario_helpers import example as example  # a fixture
from scenario_helpers import minimal as minimal  # a fixture

from invariants.generators.store_shapes import stores
from reference.model import Budget, Config, Image, Message, Store, Summary, Text, Thinking, ToolResult, Work
from reference.scenario import Scenario, dump_scenario, dumps_scenario, load_scenario, save_scenario, store_prefix

# ----------------------------------------------------------------------------- loading and round trips


def test_example_loads(example):
    store = example.store
    assert [m.id for m in store.messages] == [f"m{i}" for i in range(1, 9)]
    assert [s.id for s in store.summaries] == ["L1-0", "L1-1", "L2-0"]
    assert store.leaves("L2-0") == {"m1", "m2", "m3", "m4", "m5"}
    assert store.summary("L2-0").response_content is not None
    assert example.budget == Budget(max_tokens=8000, reserve_for_response=1000)


def test_example_round_trips(example):
    dumped = dump_scenario(example)
    again = load_scenario(dumped)
    assert again == example
    assert dump_scenario(again) == dumped
    json.dumps(dumped, allow_nan=False)  # strict JSON


def test_round_trip_through_a_file(example, tmp_path):
    path = tmp_path / "s.json"
    save_scenario(example, path)
    assert load_scenario(str(path)) == example


def test_defaults(minimal):
    sc = load_scenario(minimal)
    assert sc.config == Config()
    assert sc.budget.max_tokens == math.inf and sc.budget.reserve_for_response == 0
    assert sc.store.calibration == 1.0 and sc.store.pricing_epoch == 1 and sc.store.work == ()
    assert math.isnan(load_scenario(_without_tokens(minimal)).store.summaries[0].tokens)


def _without_tokens(d: dict) -> dict:
    d = copy.deepcopy(d)
    del d["store"]["summaries"][0]["tokens"]
    return d


def test_blocks_are_built_with_their_fields(minimal):
    m2 = load_scenario(minimal).store.messages[1]
    assert m2.content == (
        Thinking("hm", signature="sig", token_estimate=None),
        ToolResult("t1", (Text("a"), Image(token_estimate=None))),
    )


def test_non_finite_number_strings(minimal):
    minimal["store"]["summaries"][0]["tokens"] = "NaN"
    minimal["store"]["messages"][1]["content"][0]["token_estimate"] = "-Infinity"
    minimal["budget"] = {"max_tokens": "Infinity"}
    minimal["config"] = {"max_message_tokens": "NaN"}
    sc = load_scenario(minimal)
    assert math.isnan(sc.store.summaries[0].tokens)
    assert sc.store.messages[1].content[0].token_estimate == -math.inf
    assert sc.budget.max_tokens == math.inf
    dumped = dump_scenario(sc)
    assert dumped["store"]["summaries"][0]["tokens"] == "NaN"
    assert dumped["store"]["messages"][1]["content"][0]["token_estimate"] == "-Infinity"
    assert dumped["budget"]["max_tokens"] == "Infinity"
    assert dumped["config"]["max_message_tokens"] == "NaN"
    assert dump_scenario(load_scenario(dumped)) == dumped


def test_rejected_calibration_reads_as_one(minimal):
    minimal["store"]["calibration"] = "Infinity"
    assert load_scenario(minimal).store.calibration == 1.0


def test_integers_stay_integers(minimal):
    minimal["budget"] = {"max_tokens": 100, "reserve_for_response": 2.5}
    sc = load_scenario(minimal)
    assert isinstance(sc.budget.max_tokens, int) and isinstance(sc.budget.reserve_for_response, float)


def test_custom_estimator_is_dropped(minimal):
    base = load_scenario(minimal).store
    store = Store(messages=base.messages, summaries=base.summaries, text_estimator=len)
    again = load_scenario(dump_scenario(Scenario(store=store)))
    assert again.store.text_estimator is None
    assert again.store.messages == store.messages


def test_lone_surrogate_survives_a_file(tmp_path):
    store = Store(messages=(Message(id="m1", participant="User", content=(Text("bad \ud800 half"),)),))
    path = tmp_path / "s.json"
    save_scenario(Scenario(store=store), path)
    assert "\\ud800" in path.read_text(encoding="utf-8")
    assert load_scenario(path).store == store


def test_work_round_trips(minimal):
    minimal["store"]["work"] = [
        {"kind": "chunk", "state": "queued", "folds": ["m2", "m1"]},
        {"kind": "merge", "state": "running", "folds": None},
    ]
    sc = load_scenario(minimal)
    assert sc.store.work[0].folds == frozenset({"m1", "m2"})
    assert dump_scenario(sc)["store"]["work"][0]["folds"] == ["m1", "m2"]
    assert load_scenario(dump_scenario(sc)) == sc


def test_summary_round_trip_keeps_carriers_and_parent(example):
    l2 = example.store.summary("L2-0")
    dumped = dump_scenario(example)["store"]["summaries"][2]
    assert dumped["response_content"][0]["type"] == "thinking"
    assert load_scenario(dump_scenario(example)).store.summary("L2-0") == l2
    assert example.store.summary("L1-0").parent_id == "L2-0"


def test_dumps_is_text_ending_in_newline(example):
    text = dumps_scenario(example)
    assert text.endswith("}\n") and "🙏" in text


# ----------------------------------------------------------------------------- JSON text and files


def test_dumps_is_indented_utf8_json(example: Scenario) -> None:
    """dumps_scenario writes the dump as JSON indented by 2 (or by the given indent), non-ASCII kept."""
    obj = dump_scenario(example)
    assert dumps_scenario(example) == json.dumps(obj, indent=2, ensure_ascii=False) + "\n"
    assert dumps_scenario(example, indent=None) == json.dumps(obj, ensure_ascii=False) + "\n"
    assert dumps_scenario(example, indent=4) == json.dumps(obj, indent=4, ensure_ascii=False) + "\n"


def test_dumps_escapes_only_when_a_lone_surrogate_forces_it() -> None:
    """A lone surrogate cannot be UTF-8: the text is then ASCII-escaped, still indented as asked."""
    store = Store(messages=(Message(id="m1", participant="User", content=(Text("é \ud800"),)),))
    sc = Scenario(store=store)
    obj = dump_scenario(sc)
    assert dumps_scenario(sc) == json.dumps(obj, indent=2, ensure_ascii=True) + "\n"
    assert dumps_scenario(sc, indent=None) == json.dumps(obj, ensure_ascii=True) + "\n"


def test_dumps_never_writes_bare_nan(minimal: dict) -> None:
    """A tool input is kept as is, so a NaN inside it cannot be written as strict JSON: refused."""
    minimal[S][M][0]["content"] = [{"type": "tool_use", "id": "t", "name": "n", "input": [float("nan")]}]
    sc = load_scenario(minimal)
    with pytest.raises(ValueError, match="not JSON compliant"):
        dumps_scenario(sc)


def test_dump_block_refuses_a_non_block() -> None:
    """The block writer names what it was given when it is not a block."""
    from reference.scenario import _dump_block

    with pytest.raises(TypeError, match=r"^not a block: 'x'$"):
        _dump_block("x")  # type: ignore[arg-type]


def test_files_are_read_and_written_as_utf8_whatever_the_locale(tmp_path, monkeypatch):
    """load_scenario and save_scenario name UTF-8 themselves rather than take the locale's encoding."""
    seen: list[str | None] = []
    real_read, real_write = Path.read_text, Path.write_text

    def read_text(self, encoding=None, errors=None):
        seen.append(encoding)
        return real_read(self, encoding=encoding, errors=errors)

    def write_text(self, data, encoding=None, errors=None, newline=None):
        seen.append(encoding)
        return real_write(self, data, encoding=encoding, errors=errors, newline=newline)

    monkeypatch.setattr(Path, "read_text", read_text)
    monkeypatch.setattr(Path, "write_text", write_text)
    store = Store(messages=(Message(id="m1", participant="User", content=(Text("naïve 🙏"),)),))
    save_scenario(Scenario(store=store), tmp_path / "s.json")
    assert load_scenario(tmp_path / "s.json").store == store
    assert len(seen) == 2 and all(e is not None and codecs.lookup(e).name == "utf-8" for e in seen)


# ----------------------------------------------------------------------------- a store's prefix (compiles_before)


def _two_level_store() -> Store:
    """m0..m4; L1-0 over m0 m1 and L1-1 over m2 m3, merged into L2-0; work: a chunk of m0 m1, a merge of the two
    L1s, a chunk of m4, a compression in flight; calibration 2, epoch 0, a custom estimator."""
    return Store(
        messages=tuple(Message(f"m{i}", "User", (Text(f"t{i}"),)) for i in range(5)),
        summaries=(
            Summary("L1-0", 1, "a", 10, 0, ("m0", "m1"), ("m0", "m1"), parent_id="L2-0"),
            Summary("L1-1", 1, "b", 10, 0, ("m2", "m3"), ("m2", "m3"), parent_id="L2-0"),
            Summary("L2-0", 2, "ab", 10, 1, ("L1-0", "L1-1"), ("m0", "m3")),
        ),
        calibration=2.0,
        pricing_epoch=0,
        text_estimator=len,
        work=(
            Work("chunk", "queued", frozenset({"m0", "m1"})),
            Work("merge", "queued", frozenset({"L1-0", "L1-1"})),
            Work("chunk", "queued", frozenset({"m4"})),
            Work("chunk", "running", None),
        ),
    )


@pytest.mark.parametrize(
    ("n", "summaries", "work"),
    [
        (0, {}, []),
        (2, {"L1-0": None}, [0]),  # L2-0 covers m2 m3: past the prefix, so L1-0 is unmerged there
        (3, {"L1-0": None}, [0]),
        (4, {"L1-0": "L2-0", "L1-1": "L2-0", "L2-0": None}, [0, 1]),  # the merge folds summaries the prefix holds
        (5, {"L1-0": "L2-0", "L1-1": "L2-0", "L2-0": None}, [0, 1, 2]),  # in flight: folds nothing recorded
    ],
)
def test_a_prefix_is_the_store_as_it_stood_with_its_first_n_messages(
    n: int, summaries: dict[str, str | None], work: list[int]
) -> None:
    """Scenario.prefix(n): the first n messages, the summaries whose messages all lie within them (a parent
    past them dropped), the work whose folds name only what the prefix holds, and the store's settings."""
    full = _two_level_store()
    p = Scenario(store=full).prefix(n)
    assert p.messages == full.messages[:n]
    assert {s.id: s.parent_id for s in p.summaries} == summaries
    assert p.summaries == tuple(
        Summary(**{**vars(full.summary(sid)), "parent_id": parent}) for sid, parent in summaries.items()
    )
    assert p.work == tuple(full.work[i] for i in work)
    assert (p.calibration, p.pricing_epoch, p.text_estimator) == (2.0, 0, len)


@given(store=stores(max_messages=6), n=st.integers(0, 6))
def test_a_prefix_keeps_exactly_what_lies_within_its_messages(store: Store, n: int) -> None:
    """Over any store: a summary is kept when every message it covers is in the prefix, with its parent when the
    parent is kept; work is kept when what it folds is all in the prefix; the whole store is its own prefix but
    for work in flight (nothing recorded)."""
    p = store_prefix(store, n)
    kept = {m.id for m in store.messages[:n]}
    assert p.messages == store.messages[:n]
    assert [s.id for s in p.summaries] == [s.id for s in store.summaries if store.leaves(s.id) <= kept]
    ids = {s.id for s in p.summaries}
    for s in p.summaries:
        original = store.summary(s.id)
        assert s.parent_id == (original.parent_id if original.parent_id in ids else None)
        assert s == Summary(**{**vars(original), "parent_id": s.parent_id})
    held = {"chunk": kept, "merge": ids}
    assert p.work == tuple(w for w in store.work if w.folds is not None and w.folds <= held[w.kind])
    assert (p.calibration, p.pricing_epoch, p.text_estimator) == (
        store.calibration,
        store.pricing_epoch,
        store.text_estimator,
    )
    if n >= len(store.messages):
        assert p.summaries == store.summaries
        assert p.work == tuple(w for w in store.work if w.folds is not None)
