"""The messages between the campaign and its child sessions (reports/campaign/protocol.py): every kind survives its
own JSON, a malformed line is one line naming its field, a line cut short by a kill is skipped, and the module loads
no pytest (docs/architecture.md, "Records")."""

from __future__ import annotations

import json
import subprocess
import sys
import typing
from pathlib import Path

import pytest

from reports.campaign import protocol as p
from reports.campaign.records import Outcome
from reports.campaign.records import TestRow as Row
from reports.errors import HarnessError

pytestmark = pytest.mark.harness

ROOT = Path(__file__).resolve().parents[1]

ROW = Row(
    nodeid="tests/test_x.py::test_y[at-sound]",
    outcome=Outcome.FAILED,
    duration=0.25,
    t=1700000000.5,
    base="tests/test_x.py::test_y[at]",
    file="tests/test_x.py",
    variant="sound",
    red_on=("pr-8bb01ab8",),
    variants_used=("sound",),
    reads_table=True,
    text="AssertionError: assert 31 == 30",
)
#: One message of every kind, each with its optional fields set where it has any.
EXAMPLES: list[tuple[p.Message, typing.Callable[[object], object]]] = [
    (p.TestStarted("tests/test_x.py::test_y", 1.5), p.decode_result),
    (p.TestFinished(ROW, calls=("reference.ops.f", "strategies.m.g"), spawned=True), p.decode_result),
    (p.TestFinished(Row("t.py::a", Outcome.PASSED, 0.0, 0.0, "t.py::a", "t.py", None)), p.decode_result),
    (p.CallsEvent(shared=("reference.ops.f",), modules=("reference.ops", "strategies.m")), p.decode_result),
    (p.KillerLine("reference.ops.x_f__mutmut_1", "tests/test_ops.py::test_f"), p.KillerLine.from_json),
    (
        p.WarmPlan(
            mutants=(
                p.PlannedMutant("defect:X", 12.5, ("t.py::a", "t.py::b"), spec="sound+X"),
                p.PlannedMutant("reference.ops.x_f__mutmut_1", 10.0, function="reference.ops.x_f", key="k"),
                p.PlannedMutant("defect:Z", 3.0, ("t.py::a", "tests/test_x.py::test_y"), spec="sound+Z", known=(ROW,)),
            ),
            workers=3,
            functions={"reference.ops.x_f": p.FunctionTests(("t.py::a",), first=("t.py::a",))},
            durations={"t.py::a": 0.01},
            order_durations={"t.py::a": 1.0},
            per_test=(10.0, 2.0),
        ),
        p.WarmPlan.from_json,
    ),
    (p.WarmPlan((p.PlannedMutant("defect:Y", 1.0, ()),)), p.WarmPlan.from_json),
    (p.MutantStarted("defect:X", "t.py::a", 2.0), p.decode_warm),
    (p.MutantRow("defect:X", ROW), p.decode_warm),
    (p.MutantRow("defect:X", ROW, ("strategies.m.g",), spawned=True), p.decode_warm),
    (p.MutantKiller("reference.ops.x_f__mutmut_1", "t.py::a"), p.decode_warm),
    (p.MutantEnded("defect:X", p.MutantExit.TIMEOUT, 3.25, started=1.0), p.decode_warm),
    (p.MutantEnded("reference.ops.x_f__mutmut_2", p.MutantExit.NO_TESTS, 0.0), p.decode_warm),
    (
        p.WitnessPlan(
            tests={
                "t.py::a": (
                    p.Candidate(p.CandidateKind.DISCOVER),
                    p.Candidate(p.CandidateKind.NAMED, "sound+X", "defect:X"),
                    p.Candidate(p.CandidateKind.MUTMUT, "m.x_f__mutmut_1", "mutmut:m.x_f__mutmut_1"),
                )
            },
            durations={"t.py::a": 0.5},
            killed={"m.x_f": ("m.x_f__mutmut_1",)},
            most=7,
        ),
        p.WitnessPlan.from_json,
    ),
    (
        p.WitnessFound("t.py::a", "mutmut:m.x_f__mutmut_1", True, 2, 5, 1, 7.0, 0.5, "AssertionError", calls=3),
        p.WitnessFound.from_json,
    ),
    (p.WitnessFound("t.py::b", None, False, tried=4), p.WitnessFound.from_json),
]


@pytest.mark.parametrize(("message", "decode"), EXAMPLES, ids=lambda v: type(v).__name__)
def test_every_message_reads_back_as_it_was_written(message, decode):
    assert decode(json.loads(p.encode_line(message))) == message


def test_every_kind_of_message_has_an_example():
    kinds = set(typing.get_args(p.Message))
    assert kinds == {type(m) for m, _ in EXAMPLES}
    assert kinds >= set(typing.get_args(p.ResultLine)) | set(typing.get_args(p.WarmLine))


def test_the_lines_keep_the_fields_the_children_wrote_before():
    """The plans and lines are the JSON the parent and the plugins exchanged as dicts, field for field."""
    named = p.WarmPlan((p.PlannedMutant("defect:X", 12.5, ("t.py::a",), spec="sound+X"),), workers=2)
    assert json.dumps(named.to_json()) == (
        '{"workers": 2, "mutants": [{"name": "defect:X", "spec": "sound+X", "tests": ["t.py::a"], "limit": 12.5}]}'
    )
    found = p.WitnessFound("t.py::a", "mutmut:m", True, 1, 3, 0, 2.0, 0.1, "E", calls=2)
    assert list(found.to_json()) == [
        *("nodeid", "witness", "complete", "calls", "failure"),
        *("tried", "candidates", "timeouts", "limit", "seconds"),
    ]
    assert p.CallsEvent(("f",), ("m",)).to_json() == {"event": "calls", "shared": ["f"], "modules": ["m"]}
    assert p.TestStarted("t.py::a", 1.0).to_json() == {"event": "start", "nodeid": "t.py::a", "t": 1.0}
    assert p.MutantKiller("m", "t.py::a").to_json() == {"name": "m", "killer": "t.py::a"}
    assert json.dumps(p.Candidate(p.CandidateKind.DISCOVER).to_json()) == '["discover", "", ""]'


@pytest.mark.parametrize(
    ("line", "decode", "words"),
    [
        ('{"nodeid": "t.py::a", "outcome": "exploded"}', p.decode_result, ("a test row", "'outcome'", "exploded")),
        ('{"outcome": "passed"}', p.decode_result, ("a test row", "no field 'nodeid'")),
        ('{"nodeid": "t.py::a", "outcome": "passed", "duration": "1s"}', p.decode_result, ("'duration'", '"1s"')),
        ('{"event": "finish", "nodeid": "t.py::a"}', p.decode_result, ("'event'", "finish")),
        ('{"name": "m", "exit": "killed", "seconds": 1}', p.decode_warm, ("a warm session's line", "'exit'")),
        ('{"name": "m", "row": {"nodeid": 3, "outcome": "passed"}}', p.decode_warm, ("'nodeid'", "not a string")),
        ('{"name": "m", "limit": 1}', p.PlannedMutant.from_json, ("'tests' nor 'function'",)),
        (
            '{"name": "m", "limit": 1, "tests": [], "known": [{"nodeid": "t.py::a"}]}',
            p.PlannedMutant.from_json,
            (
                "a known row",
                "no field 'outcome'",
            ),
        ),
        ('{"tests": {"t.py::a": [["maybe", "", ""]]}}', p.WitnessPlan.from_json, ("'tests'", "maybe")),
        ('{"nodeid": "t.py::a", "witness": null}', p.WitnessFound.from_json, ("no field 'complete'",)),
        ('["t.py::a"]', p.WitnessFound.from_json, ("not a JSON object",)),
    ],
)
def test_a_malformed_line_is_one_line_naming_its_field(line, decode, words):
    with pytest.raises(p.ProtocolError) as caught:
        decode(json.loads(line))
    message = str(caught.value)
    assert "\n" not in message and all(w in message for w in words), message
    assert isinstance(caught.value, HarnessError)  # the command line prints it as one line, with its exit code


def test_a_line_cut_short_by_a_kill_is_skipped_and_a_bad_one_names_its_file(tmp_path):
    out = tmp_path / "results.jsonl"
    first, second = p.TestStarted("t.py::a", 1.0), p.TestStarted("t.py::b", 2.0)
    cut = p.encode_line(second)[:20]  # a child killed mid-write, another's line appended to what it left
    out.write_text(p.encode_line(first) + cut + p.encode_line(second) + cut)
    found, offset = p.read_lines(out, p.decode_result)
    assert found == [first]  # the unfinished last line waits for its newline; the spliced one is no JSON
    assert offset == len((p.encode_line(first) + cut + p.encode_line(second)).encode())
    with out.open("a") as fh:
        fh.write(p.encode_line(second)[20:])
    assert p.read_lines(out, p.decode_result, offset) == ([second], out.stat().st_size)
    assert p.read_lines(tmp_path / "none.jsonl", p.decode_result) == ([], 0)
    with out.open("a") as fh:
        fh.write('{"nodeid": "t.py::c", "outcome": "exploded"}\n')
    with pytest.raises(p.ProtocolError, match=r"results\.jsonl: a test row: field 'outcome'"):
        p.read_lines(out, p.decode_result, offset)


def test_a_bad_plan_names_its_file(tmp_path):
    plan = tmp_path / "plan.json"
    plan.write_text('{"workers": 1, "mutants": [{"name": "m"}]}')
    with pytest.raises(p.ProtocolError, match=r"plan\.json: a warm session's plan: field 'mutants': .*'limit'"):
        p.read_plan(plan, p.WarmPlan.from_json)
    plan.write_text('{"workers": 1,')
    with pytest.raises(p.ProtocolError, match=r"plan\.json: not JSON"):
        p.read_plan(plan, p.WarmPlan.from_json)


def test_the_protocol_loads_no_pytest():
    """The parent reads the children's lines without pytest's import cost; the plugins load it in any project."""
    code = (
        "import sys, reports.campaign.protocol\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pytest', '_pytest', 'hypothesis', 'numpy')))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
