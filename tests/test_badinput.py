"""Bad input gets a clear error at the boundary (docs/model.md, "Bad input"): the model's constructors,
``initialize`` / ``compile``, and the CLI's output and argument parsing; never a traceback from inside."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from invariants import check
from invariants.text import iterative_repr
from reference.estimator import Pricing, raw_price, text_tokens, tool_result_price
from reference.json_input import MAX_DEPTH
from reference.model import (
    MAX_NESTING,
    Budget,
    Config,
    Entry,
    Image,
    InvalidConfigError,
    InvalidStoreError,
    Message,
    RedactedThinking,
    Store,
    Summary,
    Text,
    Thinking,
    ToolResult,
    ToolUse,
)
from reference.numerics import is_number, js_number
from reference.scenario import dump_scenario, load_scenario
from reports import cli
from reports.cli.terminal import printable
from strategies import HierarchicalStrategy
from tests.builders import msg, store, summary

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "small-store.json"
VARIANTS = ("main-48bb87a1", "pr-8bb01ab8", "sound")


def scenario_file(tmp_path: Path, edit, name: str = "s.json") -> Path:
    """The example scenario, edited by ``edit(raw)`` on its JSON object, written to ``tmp_path``."""
    raw = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    edit(raw)
    path = tmp_path / name
    path.write_text(json.dumps(raw, ensure_ascii=True), encoding="utf-8")
    return path


def cmharness(*argv: str) -> subprocess.CompletedProcess[str]:
    """The CLI in its own process, its output through real pipes (so an unprintable character would fail)."""
    return subprocess.run(
        [sys.executable, "-m", "reports.cli", *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        encoding="utf-8",
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )


def nested(depth: int, leaf: tuple = (Text("x"),)) -> tuple:
    """Content of ``depth`` tool results, each inside the one before, around ``leaf``."""
    content = leaf
    for _ in range(depth):
        content = (ToolResult("t", content),)
    return content


# ----------------------------------------------------------------------------- huge numbers


def test_a_huge_integer_is_read_as_javascript_reads_it():
    """Past 2**53 an integer is the nearest double; past the largest double it is Infinity (``JSON.parse``)."""
    assert js_number(10**400) == math.inf and js_number(-(10**400)) == -math.inf
    assert js_number(2**53 + 1) == 2.0**53 and isinstance(js_number(2**53 + 1), float)
    assert js_number(2**53) == 2**53 and isinstance(js_number(2**53), int)
    big = int("9" * 400)
    config = Config(head_window_tokens=big, recent_window_tokens=big, max_message_tokens=big, l1_budget_tokens=big)
    assert config.head_window_tokens == config.max_message_tokens == config.l1_budget_tokens == math.inf
    assert Budget(max_tokens=big, reserve_for_response=2**60 + 1).reserve_for_response == 2.0**60
    assert Image(token_estimate=big).token_estimate == math.inf
    assert summary("L1-0", 0, 0, tokens=big).tokens == math.inf


@pytest.mark.parametrize("field", ["head_window_tokens", "recent_window_tokens", "max_message_tokens"])
def test_check_on_a_window_of_hundreds_of_digits_is_one_line(tmp_path, field):
    """Once an ``OverflowError`` in ``check``: a file's integer past the loader's 308 digits is refused in one
    line naming the field (exit 2); up to it, it reads as JavaScript's double."""
    path = scenario_file(tmp_path, lambda raw: raw["config"].update({field: int("9" * 400)}))
    done = cmharness("check", str(path))
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert f"config.{field}: expected a number, got a 400-digit integer" in done.stderr


def test_check_on_a_window_of_308_digits_runs(tmp_path):
    """The largest integer a file may hold (308 digits, below ``Number.MAX_VALUE``) is read as a finite double."""
    path = scenario_file(tmp_path, lambda raw: raw["config"].update({"head_window_tokens": int("9" * 308)}))
    done = cmharness("check", str(path))
    assert done.returncode in (0, 1), done.stderr
    assert "Traceback" not in done.stderr and "crashed" not in done.stdout


@pytest.mark.parametrize(
    "text, error",
    [
        ("9" * 5000, "config.recent_window_tokens: expected a number, got a 5000-digit integer"),  # past 4,300 digits
        ("[" * 5000 + "]" * 5000, f"scenario: nested deeper than {MAX_DEPTH} arrays and objects"),  # past its recursion
    ],
)
def test_input_past_the_json_parsers_limits_is_one_line(tmp_path, text, error):
    raw = EXAMPLE.read_text(encoding="utf-8").replace('"recent_window_tokens": 120', f'"recent_window_tokens": {text}')
    path = tmp_path / "s.json"
    path.write_text(raw, encoding="utf-8")
    done = cmharness("check", str(path))
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and error in done.stderr, done.stderr


def test_an_estimator_returning_a_huge_integer_is_refused_naming_the_message():
    s = store(2, text_estimator=lambda text: 10**400)
    strategy = HierarchicalStrategy(Config(), "sound")
    strategy.initialize(s)
    with pytest.raises(InvalidConfigError, match=r"text_estimator: returned inf for text of message 'm0'"):
        strategy.compile(Budget(max_tokens=1000))


# ----------------------------------------------------------------------------- deep nesting


def test_content_nested_a_few_hundred_deep_is_checked_end_to_end():
    """Nested ``MAX_NESTING - 1`` tool results deep, every variant compiles and every invariant is judged
    without a crash (the walks over content are iterative)."""
    deep = Message("m1", "User", nested(MAX_NESTING - 1))
    s = Store((deep, *(msg(i) for i in range(2, 5))), (summary("L1-0", 2, 3),))
    for variant in VARIANTS:
        violations = check(s, Config(head_window_tokens=10), Budget(max_tokens=10**6), variant)
        assert not [v for v in violations if "crashed" in v.message], (variant, violations)


def test_a_scenario_file_nested_two_hundred_deep_runs_in_check(tmp_path):
    def deepen(raw):
        content = [{"type": "text", "text": "x"}]
        for _ in range(200):
            content = [{"type": "tool_result", "tool_use_id": "t", "content": content}]
        raw["store"]["messages"][0]["content"] = content

    done = cmharness("check", str(scenario_file(tmp_path, deepen)))
    assert done.returncode in (0, 1), done.stderr
    assert "crashed" not in done.stdout and "Traceback" not in done.stderr


@pytest.mark.parametrize("depth", [MAX_NESTING, 5000])
def test_content_nested_past_the_limit_is_refused_naming_the_message(depth):
    with pytest.raises(InvalidStoreError, match=rf"^message 'm1': content nested deeper than {MAX_NESTING} levels"):
        Store((Message("m1", "User", nested(depth)),))


def test_a_tool_use_input_nested_past_the_limit_is_refused_naming_the_message():
    value: object = 1
    for _ in range(5000):
        value = {"a": [value]}
    with pytest.raises(
        InvalidStoreError,
        match=rf"^message 'm1': content nested deeper than {MAX_NESTING} levels "
        r"\(the input of tool use 'u1'\)",
    ):
        Store((Message("m1", "User", (ToolUse("u1", "read", value),)),))


def test_the_iterative_repr_is_repr():
    values = [
        Entry("User", nested(3, (Text("a'b"), Image(1.5), ToolUse("u", "n", {"k": [1, None]}))), "raw", "m1"),
        (),
        (1,),
        [Text("x")],
        (Thinking("t", None, math.nan), RedactedThinking(None)),
        "text",
        None,
    ]
    for v in values:
        assert iterative_repr(v) == repr(v)


_SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=3)
_LEAVES = _SCALARS | st.builds(Text, st.text(max_size=3)) | st.builds(Image, st.none() | st.floats(0, 9))
#: Data as the model nests it: tuples (of one element too), lists, blocks holding blocks, with scalar leaves.
_NESTED = st.recursive(
    _LEAVES,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.lists(inner, max_size=3).map(tuple)
        | st.builds(ToolResult, st.just("u1"), st.lists(inner, max_size=2).map(tuple))
    ),
    max_leaves=12,
)


@given(_NESTED)
def test_the_iterative_repr_is_repr_of_any_nesting(value):
    assert iterative_repr(value) == repr(value)


def _recursive_price(block, p: Pricing):
    """The recursive definition the iterative walk must agree with (sums from 0, left to right)."""
    if isinstance(block, ToolResult) and not isinstance(block.content, str):
        return sum((_recursive_price(b, p) for b in block.content), 0)
    return raw_price(block, p)


def test_the_iterative_tool_result_price_is_the_recursive_sum():
    p = Pricing(lambda s: len(s) / 3)  # fractional prices: the order of the sums shows
    inner = ToolResult("t2", (Text("abcd"), ToolResult("t3", "[1, 2]"), Thinking("xy" * 7), ToolResult("t4", ())))
    block = ToolResult("t1", (Text("a" * 5), inner, Image(3.3), ToolResult("t5", (inner, Text("b")))))
    assert tool_result_price(block, p) == _recursive_price(block, p)
    assert tool_result_price(nested(MAX_NESTING, (Text("x" * 7),))[0], Pricing()) == text_tokens("x" * 7)


# ----------------------------------------------------------------------------- text that cannot be printed


@pytest.mark.harness
def test_printable_escapes_only_surrogates():
    assert printable("m\udc00 \ud83d!") == "m\\udc00 \\ud83d!"
    assert printable("caf\u00e9 \U0001f600") == "caf\u00e9 \U0001f600"


def _surrogate_ids(raw):
    """Message m1 renamed ``m\\udc00`` (a lone low surrogate), with the summary over it."""
    raw["store"]["messages"][0]["id"] = "m\udc00"
    for s in raw["store"]["summaries"]:
        s["source_ids"] = ["m\udc00" if x == "m1" else x for x in s["source_ids"]]
        s["source_range"] = ["m\udc00" if x == "m1" else x for x in s["source_range"]]


@pytest.mark.harness
@pytest.mark.parametrize("command", ["price", "check"])
def test_a_lone_surrogate_in_an_id_is_printed_as_an_escape(tmp_path, command):
    done = cmharness(command, str(scenario_file(tmp_path, _surrogate_ids)))
    assert done.returncode in (0, 1) and "Traceback" not in done.stderr, done.stderr
    if command == "price":
        assert "m\\udc00" in done.stdout


@pytest.mark.harness
def test_an_error_naming_a_lone_surrogate_is_one_printable_line(tmp_path):
    def duplicate(raw):
        _surrogate_ids(raw)
        raw["store"]["messages"][1]["id"] = "m\udc00"

    done = cmharness("price", str(scenario_file(tmp_path, duplicate)))
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "m\\udc00" in done.stderr


# ----------------------------------------------------------------------------- report options


@pytest.mark.harness
@pytest.mark.parametrize(
    "argv",
    [
        ["--shard", "3/2"],
        ["--shard", "x"],
        ["--shard", "0/0"],
        ["--shard", "1/0"],
        ["--budget", "-1"],
        ["--budget", "NaN"],
        ["--budget", "inf"],
        ["--budget", "0"],
        ["--workers", "0"],
        ["--workers", "-3"],
        ["--workers", "two"],
    ],
)
def test_bad_report_options_are_refused_at_parsing(capsys, monkeypatch, argv):
    import reports.campaign.pipeline

    monkeypatch.setattr(reports.campaign.pipeline, "run", lambda *a, **k: pytest.fail("the campaign started"))
    assert cli.main(["report", *argv]) == 2
    err = capsys.readouterr().err
    assert f"error: argument {argv[0]}:" in err and "Traceback" not in err
    assert len([line for line in err.splitlines() if "error" in line]) == 1


@pytest.mark.harness
def test_an_out_folder_naming_a_regular_file_is_refused(capsys, monkeypatch, tmp_path):
    import reports.campaign.pipeline

    monkeypatch.setattr(reports.campaign.pipeline, "run", lambda *a, **k: pytest.fail("the campaign started"))
    regular = tmp_path / "report.txt"
    regular.write_text("not a folder")
    assert cli.main(["report", "--out", str(regular)]) == 2
    assert "argument --out: " in capsys.readouterr().err


def _a_file(tmp: Path) -> Path:
    (tmp / "one.patch").write_text("--- a/x\n+++ b/x\n")
    return tmp / "one.patch"


def _no_patch(tmp: Path) -> Path:
    (tmp / "notes.txt").write_text("a patch?")
    return tmp


@pytest.mark.harness
@pytest.mark.parametrize(
    "make, says",
    [(lambda tmp: tmp / "missing", "not a folder"), (_a_file, "not a folder"), (_no_patch, "no *.patch file")],
    ids=["missing", "a-file", "no-patch"],
)
def test_an_extra_mutants_folder_without_patches_is_refused(capsys, monkeypatch, tmp_path, make, says):
    import reports.campaign.pipeline

    monkeypatch.setattr(reports.campaign.pipeline, "run", lambda *a, **k: pytest.fail("the campaign started"))
    folder = make(tmp_path)
    assert cli.main(["report", "--extra-mutants", str(folder)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"--extra-mutants {folder}: {says}" in err and "Traceback" not in err


GOOD_PATCH = "a constant\n--- a/strategies/cap.py\n+++ b/strategies/cap.py\n@@ -1,1 +1,1 @@\n-x\n+y\n"


@pytest.mark.harness
@pytest.mark.parametrize(
    "content, says",
    [
        (b"nothing to apply here\n", "not a unified diff"),
        (b"--- a/x\n+++ b/x\n", "not a unified diff"),
        (b"\xff\xfe-\x00-\x00", "cannot read: 'utf-8' codec"),
    ],
    ids=["prose", "no-hunk", "utf-16"],
)
def test_an_extra_mutant_that_is_no_diff_is_refused_naming_its_file(capsys, monkeypatch, tmp_path, content, says):
    """Before the run (minutes of baseline): a diff that no longer applies is a mutant shown as an error, but a file
    that is no diff at all is a bad input."""
    import reports.campaign.pipeline

    monkeypatch.setattr(reports.campaign.pipeline, "run", lambda *a, **k: pytest.fail("the campaign started"))
    (tmp_path / "a-good.patch").write_text(GOOD_PATCH, encoding="utf-8")
    (tmp_path / "b-bad.patch").write_bytes(content)
    assert cli.main(["report", "--extra-mutants", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert f"--extra-mutants {tmp_path / 'b-bad.patch'}: {says}" in err


# ----------------------------------------------------------------------------- the Python API


@pytest.mark.parametrize(
    "make, match",
    [
        (lambda: Store(messages=None), "messages must be a sequence, got None"),
        (lambda: Store(messages=5), "messages must be a sequence, got 5"),
        (lambda: Store(messages="m1"), "messages must be a sequence, got 'm1'"),
        (lambda: Store(messages=(), summaries=None), "summaries must be a sequence, got None"),
        (lambda: Text(text=5), "Text.text must be a string, got 5"),
        (lambda: Thinking(thinking=None), "Thinking.thinking must be a string"),
        (lambda: Thinking("x", signature=7), "Thinking.signature must be a string or None, got 7"),
        (lambda: Thinking("x", token_estimate="12"), "Thinking.token_estimate must be a number or None, got '12'"),
        (lambda: RedactedThinking("d", token_estimate=True), "RedactedThinking.token_estimate must be a number"),
        (lambda: Image(token_estimate="1"), "Image.token_estimate must be a number or None"),
        (lambda: ToolUse(1, "read", {}), "ToolUse.id must be a string, got 1"),
        (lambda: ToolResult("t", 5), "ToolResult.content must be a string or a tuple of blocks, got 5"),
        (lambda: Message(id=1, participant="User", content=()), "Message.id must be a string, got 1"),
        (lambda: Message(id="m1", participant=None, content=()), "message 'm1': participant must be a string"),
        (lambda: store(2, text_estimator=lambda: 1), "text_estimator must take one argument"),
        (lambda: store(2, text_estimator=lambda a, b: 1), "text_estimator must take one argument"),
        (lambda: store(2, summaries=(replace(summary("L1-0", 0, 1), id=3),)), "Summary.id must be a string, got 3"),
    ],
)
def test_a_wrong_type_is_refused_by_the_constructor(make, match):
    with pytest.raises(InvalidStoreError, match=match):
        make()


def _text(v: object) -> bool:
    return isinstance(v, str)


def _text_or_none(v: object) -> bool:
    return v is None or isinstance(v, str)


def _number_or_none(v: object) -> bool:
    return v is None or is_number(v)


#: Each block field the constructor checks, the block's other fields, and what the field accepts (docs/model.md,
#: The data).
BLOCK_FIELDS = [
    (Text, "text", {}, _text),
    (Thinking, "thinking", {}, _text),
    (Thinking, "signature", {"thinking": "t"}, _text_or_none),
    (Thinking, "token_estimate", {"thinking": "t"}, _number_or_none),
    (RedactedThinking, "data", {}, _text_or_none),
    (RedactedThinking, "token_estimate", {"data": None}, _number_or_none),
    (ToolUse, "id", {"name": "read", "input": {}}, _text),
    (ToolUse, "name", {"id": "u0", "input": {}}, _text),
    (ToolResult, "tool_use_id", {"content": "r"}, _text),
    (ToolResult, "content", {"tool_use_id": "u0"}, lambda v: isinstance(v, (str, tuple))),
    (Image, "token_estimate", {}, _number_or_none),
    (Image, "data", {}, _text_or_none),
]
#: Values of every JSON type and then some, for a field that takes one or two of them.
ANY_VALUE = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=3),
    st.lists(st.integers(0, 2), max_size=2),
    st.tuples(),
    st.dictionaries(st.sampled_from(["a", "type"]), st.integers(0, 2), max_size=2),
    st.binary(max_size=2),
)


@pytest.mark.parametrize("field", BLOCK_FIELDS, ids=lambda f: f"{f[0].__name__}.{f[1]}")
@given(value=ANY_VALUE)
def test_a_block_field_takes_exactly_its_types_and_names_itself_otherwise(field, value):
    """A block built with a value its field accepts is built; any other value is refused by the constructor with an
    ``InvalidStoreError`` that names the block and the field."""
    cls, name, others, accepts = field
    if accepts(value):
        cls(**others, **{name: value})  # built: no error
    else:
        with pytest.raises(InvalidStoreError, match=rf"^{cls.__name__}\.{name} must be "):
            cls(**others, **{name: value})


def test_initialize_refuses_what_is_not_a_store():
    with pytest.raises(TypeError, match=r"initialize\(store\): store must be a reference.model.Store, got str"):
        HierarchicalStrategy(Config()).initialize("a string")


def test_compile_refuses_a_number_for_a_budget():
    strategy = HierarchicalStrategy(Config())
    strategy.initialize(store(2))
    with pytest.raises(TypeError, match=r"compile\(budget\): budget must be a reference.model.Budget.*got int"):
        strategy.compile(8000)


def _raising_on(bad_text: str):
    def estimator(text: str) -> int:
        if text == bad_text:
            raise ZeroDivisionError("the estimator's own bug")
        return len(text)

    return estimator


@pytest.mark.parametrize("owner", ["message 'm1'", "summary 'L1-0'", "summary_context_label"])
def test_an_estimator_that_raises_is_named_with_the_text_owner_and_chained(owner):
    label = "the label to fail on"
    s = store(3, summaries=(summary("L1-0", 0, 1, content_tokens=20),))
    s = Store((s.messages[0], replace(s.messages[1], content=(Text("m1's own text"),)), s.messages[2]), s.summaries)
    bad = {"message 'm1'": "m1's own text", "summary 'L1-0'": s.summaries[0].content, "summary_context_label": label}[
        owner
    ]
    s = Store(s.messages, s.summaries, text_estimator=_raising_on(bad))
    strategy = HierarchicalStrategy(Config(summary_context_label=label), "sound")
    strategy.initialize(s)
    with pytest.raises(InvalidConfigError) as info:
        strategy.compile(Budget(max_tokens=10**6))
    assert info.value.field == "text_estimator"
    assert f"raised ZeroDivisionError: the estimator's own bug on the text of {owner}" in str(info.value)
    assert isinstance(info.value.__cause__, ZeroDivisionError)


# ----------------------------------------------------------------------------- structure


@pytest.mark.parametrize(
    "level, source_level, sources",
    [
        (1, 1, ("L1-0",)),  # an L1 summarizing L1s
        (1, 2, ("L2-0",)),  # an L1 summarizing L2s
        (2, 0, ("m3",)),  # an L2 whose sources are messages
        (3, 1, ("L1-0",)),  # an L3 over L1s
    ],
)
def test_a_summary_level_not_one_above_its_sources_is_refused(level, source_level, sources):
    l1 = summary("L1-0", 0, 1, parent="L2-0")
    l2 = summary("L2-0", 0, 1, level=2, sources=("L1-0",))
    bad = Summary(
        id="bad",
        level=level,
        content="x",
        tokens=1,
        source_level=source_level,
        source_ids=sources,
        source_range=("m3", "m3") if source_level == 0 else ("m0", "m1"),
    )
    with pytest.raises(
        InvalidStoreError,
        match=rf"^summary 'bad': level {level} must be one above its "
        rf"source_level {source_level}",
    ):
        store(4, summaries=(l1, l2, bad))


def test_a_summary_that_is_its_own_parent_is_named():
    """Not "a cycle through" its child: the summary whose parent_id is its own id."""
    l1 = summary("L1-0", 0, 1, parent="L2-0")
    l2 = summary("L2-0", 0, 1, level=2, sources=("L1-0",), parent="L2-0")
    with pytest.raises(InvalidStoreError, match=r"^summary 'L2-0': parent_id is its own id$"):
        store(2, summaries=(l1, l2))


def test_a_scenario_with_a_self_parent_names_it(tmp_path):
    path = scenario_file(tmp_path, lambda raw: raw["store"]["summaries"][2].update(parent_id="L2-0"))
    done = cmharness("price", str(path))
    assert done.returncode == 2 and "summary 'L2-0': parent_id is its own id" in done.stderr


def test_the_example_round_trips_through_the_checked_constructors():
    """The constructors' checks keep every valid scenario valid (and its dump equal)."""
    sc = load_scenario(EXAMPLE)
    assert load_scenario(dump_scenario(sc)) == sc
