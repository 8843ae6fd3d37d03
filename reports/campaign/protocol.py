"""What the campaign and its child pytest sessions say to each other: the plans a child is given and the lines it
writes back, as frozen records (docs/architecture.md, "Records").

A child session (``reports.campaign.plugins``) writes each message as one JSON line (``encode_line``); the parent
decodes each line once, where it reads it (``read_lines``), and works with records from there on. A line that is not
JSON is one cut short when its writer was killed, and is skipped; a JSON line that is no message is a
``ProtocolError`` naming the message and its field. The journal's own records are ``reports.campaign.records``; a
test's row is one of them, encoded by the journal's codec. This module imports no pytest: the parent loads it
cheaply, and the plugins load it in whatever project the campaign runs in.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import IntEnum, StrEnum
from pathlib import Path
from typing import Any, TypeVar

from reports.campaign.records import Outcome, TestRow, decode_row, encode_row
from reports.errors import HarnessError

JSON = dict[str, Any]
T = TypeVar("T")


class ProtocolError(HarnessError, ValueError):
    """A line a child session wrote, or a plan it was given, that is no message of the protocol (names the message
    and the field)."""


class MutantExit(IntEnum):
    """How a warm child ended (mutmut's exit codes; any other code is a crash of the run itself)."""

    SURVIVED = 0
    KILLED = 1
    CRASHED = 2
    NO_TESTS = 33
    SKIPPED = 34  # mutmut's: not run (a reviewed equivalent)
    TIMEOUT = 36


class Event(StrEnum):
    """The lines of a results file that are not a finished test's row."""

    START = "start"  # a test started (a run killed at its timeout tells which test it was in)
    CALLS = "calls"  # a process's last line: the shared calls and the modules instrumented


class CandidateKind(StrEnum):
    """What a witness candidate is: a mutant to run the test under, or a step that finds more of them."""

    NAMED = "named"
    MUTMUT = "mutmut"
    DISCOVER = "discover"  # run the test once recording the mutated functions it calls; their mutants come next


# ----------------------------------------------------------------------------- reading a message's fields


class _Missing:
    pass


_REQUIRED = _Missing()


def _short(value: object) -> str:
    text = json.dumps(value) if not isinstance(value, _Missing) else "nothing"
    return text if len(text) <= 60 else text[:57] + "..."


class _Fields:
    """One message's JSON object, read field by field: a field missing or of the wrong type is a ``ProtocolError``
    naming the message (``what``) and the field."""

    def __init__(self, what: str, obj: object) -> None:
        if not isinstance(obj, dict):
            raise ProtocolError(f"{what}: not a JSON object: {_short(obj)}")
        self.what, self.obj = what, obj

    def get(self, name: str, convert: Callable[[Any], T], default: T | _Missing = _REQUIRED) -> T:
        if name not in self.obj or (self.obj[name] is None and not isinstance(default, _Missing)):
            if isinstance(default, _Missing):
                raise ProtocolError(f"{self.what}: no field {name!r}")
            return default
        try:
            return convert(self.obj[name])
        except (TypeError, ValueError) as err:
            raise ProtocolError(f"{self.what}: field {name!r}: {err}") from None


def _str(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{_short(value)} is not a string")
    return value


def _optional_str(value: Any) -> str | None:
    return None if value is None else _str(value)


def _float(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{_short(value)} is not a number")
    return float(value)


def _int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{_short(value)} is not an integer")
    return value


def _bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{_short(value)} is not true or false")
    return value


def _strs(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise TypeError(f"{_short(value)} is not a list of strings")
    return tuple(value)


def _mapping(convert: Callable[[Any], T]) -> Callable[[Any], dict[str, T]]:
    def read(value: Any) -> dict[str, T]:
        if not isinstance(value, dict):
            raise TypeError(f"{_short(value)} is not an object")
        out = {}
        for key, item in value.items():
            try:
                out[key] = convert(item)
            except (TypeError, ValueError) as err:
                raise TypeError(f"at {key!r}: {err}") from None
        return out

    return read


def _list(convert: Callable[[Any], T]) -> Callable[[Any], tuple[T, ...]]:
    def read(value: Any) -> tuple[T, ...]:
        if not isinstance(value, list):
            raise TypeError(f"{_short(value)} is not a list")
        return tuple(convert(item) for item in value)

    return read


def _outcome(value: Any) -> Outcome:
    if value not in Outcome.__members__.values():
        raise ValueError(f"{_short(value)} is not one of {', '.join(Outcome)}")
    return Outcome(value)


# ----------------------------------------------------------------------------- a session's results (--cm-results)


@dataclass(frozen=True)
class TestStarted:
    """A test started (``reports.campaign.plugins.mutant_plugin``): one never finished was running when its run was
    killed."""

    nodeid: str
    t: float

    def to_json(self) -> JSON:
        return {"event": Event.START, "nodeid": self.nodeid, "t": self.t}

    @staticmethod
    def from_json(obj: object) -> TestStarted:
        f = _Fields("a test's start", obj)
        return TestStarted(f.get("nodeid", _str), f.get("t", _float))


@dataclass(frozen=True)
class TestFinished:
    """A test's row as the recording plugin writes it: the journal's ``TestRow``, with ``--cm-calls`` the functions
    the test called and whether it started a Python process."""

    row: TestRow
    calls: tuple[str, ...] | None = None
    spawned: bool = False

    def to_json(self) -> JSON:
        out = encode_row(self.row)
        if self.calls is not None:
            out["calls"] = list(self.calls)
        return out | ({"spawned": True} if self.spawned else {})

    @staticmethod
    def from_json(obj: object) -> TestFinished:
        return TestFinished(_row("a test row", obj), *_calls_of(_Fields("a test row", obj)))


def _calls_of(f: _Fields) -> tuple[tuple[str, ...] | None, bool]:
    return f.get("calls", _strs, None), f.get("spawned", _bool, False)


def _row(what: str, obj: object) -> TestRow:
    """A test's row: the fields this module relies on checked by name, the rest read by the journal's codec."""
    f = _Fields(what, obj)
    f.get("nodeid", _str)
    f.get("outcome", _outcome)
    f.get("duration", _float, 0.0)
    f.get("t", _float, 0.0)
    try:
        return decode_row(f.obj)
    except (KeyError, TypeError, ValueError) as err:
        raise ProtocolError(f"{what}: {err}") from None


@dataclass(frozen=True)
class CallsEvent:
    """A process's last results line with ``--cm-calls``: the calls that outlive a test, the modules instrumented."""

    shared: tuple[str, ...]
    modules: tuple[str, ...]

    def to_json(self) -> JSON:
        return {"event": Event.CALLS, "shared": list(self.shared), "modules": list(self.modules)}

    @staticmethod
    def from_json(obj: object) -> CallsEvent:
        f = _Fields("the calls event", obj)
        return CallsEvent(f.get("shared", _strs, ()), f.get("modules", _strs, ()))


ResultLine = TestStarted | TestFinished | CallsEvent


def decode_result(obj: object) -> ResultLine:
    """One line of a ``--cm-results`` file."""
    f = _Fields("a results line", obj)
    event = f.get("event", _str, "")
    if event == Event.START:
        return TestStarted.from_json(obj)
    if event == Event.CALLS:
        return CallsEvent.from_json(obj)
    if event:
        raise ProtocolError(f"a results line: field 'event': {_short(event)} is not one of {', '.join(Event)}")
    return TestFinished.from_json(obj)


@dataclass(frozen=True)
class KillerLine:
    """A mutmut mutant's first killing test, as mutmut's killers files hold it (``$CMHARNESS_KILLERS``)."""

    mutant: str
    test: str

    def to_json(self) -> JSON:
        return {"mutant": self.mutant, "test": self.test}

    @staticmethod
    def from_json(obj: object) -> KillerLine:
        f = _Fields("a killer line", obj)
        return KillerLine(f.get("mutant", _str), f.get("test", _str))


# ----------------------------------------------------------------------------- the warm session (--cm-execute)


@dataclass(frozen=True)
class PlannedMutant:
    """One mutant a warm session runs: a named mutant (``spec``, its ``tests``) or a mutmut mutant (its ``key`` in
    mutmut's files and its ``function``, whose covering tests the plan lists), within ``limit`` seconds. A named
    mutant's ``known`` rows are its tests' rows of an earlier run whose code has not changed since: filed as they
    are instead of run again."""

    name: str
    limit: float
    tests: tuple[str, ...] | None = None  # None: the function's tests, in running order
    function: str = ""
    spec: str = ""
    key: str = ""
    known: tuple[TestRow, ...] = ()

    def to_json(self) -> JSON:
        out: JSON = {"name": self.name}
        out |= {"key": self.key} if self.key else {}
        out |= {"function": self.function} if self.function else {}
        out |= {"spec": self.spec} if self.spec else {}
        out |= {"tests": list(self.tests)} if self.tests is not None else {}
        out |= {"known": [encode_row(r) for r in self.known]} if self.known else {}
        return out | {"limit": self.limit}

    @staticmethod
    def from_json(obj: object) -> PlannedMutant:
        f = _Fields("a planned mutant", obj)
        mutant = PlannedMutant(
            f.get("name", _str),
            f.get("limit", _float),
            f.get("tests", _strs, None),
            f.get("function", _str, ""),
            f.get("spec", _str, ""),
            f.get("key", _str, ""),
            f.get("known", _list(lambda o: _row("a known row", o)), ()),
        )
        if mutant.tests is None and not mutant.function:
            raise ProtocolError("a planned mutant: no field 'tests' nor 'function'")
        return mutant


@dataclass(frozen=True)
class FunctionTests:
    """A mutated function's covering tests, and those that killed its mutants in the last complete report."""

    tests: tuple[str, ...]
    first: tuple[str, ...] = ()

    def to_json(self) -> JSON:
        return {"tests": list(self.tests), "first": list(self.first)}

    @staticmethod
    def from_json(obj: object) -> FunctionTests:
        f = _Fields("a function's tests", obj)
        return FunctionTests(f.get("tests", _strs), f.get("first", _strs, ()))


@dataclass(frozen=True)
class WarmPlan:
    """What a warm session runs (``reports.campaign.plugins.warm_session``): its mutants, ``workers`` children at a
    time; for mutmut's, each function's tests, the tests' baseline durations (their per-test limits:
    ``per_test`` = factor, constant) and the durations they are ordered by."""

    mutants: tuple[PlannedMutant, ...]
    workers: int = 1
    functions: Mapping[str, FunctionTests] = field(default_factory=dict)
    durations: Mapping[str, float] = field(default_factory=dict)
    order_durations: Mapping[str, float] | None = None  # None: ``durations``
    per_test: tuple[float, float] = (0.0, 0.0)

    def to_json(self) -> JSON:
        out: JSON = {"workers": self.workers, "mutants": [m.to_json() for m in self.mutants]}
        if self.functions:
            out["functions"] = {fn: t.to_json() for fn, t in self.functions.items()}
        if self.per_test != (0.0, 0.0):
            out["per_test"] = list(self.per_test)
        if self.durations:
            out["durations"] = dict(self.durations)
        if self.order_durations is not None:
            out["order_durations"] = dict(self.order_durations)
        return out

    @staticmethod
    def from_json(obj: object) -> WarmPlan:
        f = _Fields("a warm session's plan", obj)
        per_test = f.get("per_test", _list(_float), (0.0, 0.0))
        if len(per_test) != 2:
            raise ProtocolError(f"a warm session's plan: field 'per_test': {_short(list(per_test))} is not two numbers")
        return WarmPlan(
            f.get("mutants", _list(PlannedMutant.from_json)),
            max(1, f.get("workers", _int, 1)),
            f.get("functions", _mapping(FunctionTests.from_json), {}),
            f.get("durations", _mapping(_float), {}),
            f.get("order_durations", _mapping(_float), None),
            (per_test[0], per_test[1]),
        )


@dataclass(frozen=True)
class MutantStarted:
    """A mutant's child started one of its tests."""

    name: str
    nodeid: str
    t: float

    def to_json(self) -> JSON:
        return {"name": self.name, "start": self.nodeid, "t": self.t}


@dataclass(frozen=True)
class MutantRow:
    """A named mutant's child finished one of its tests (or skipped a property test once one had failed); with the
    calls recorded, the functions the test called under the mutant and whether it started a Python process."""

    name: str
    row: TestRow
    calls: tuple[str, ...] | None = None
    spawned: bool = False

    def to_json(self) -> JSON:
        out: JSON = {"name": self.name, "row": encode_row(self.row)}
        if self.calls is not None:
            out["calls"] = list(self.calls)
        return out | ({"spawned": True} if self.spawned else {})


@dataclass(frozen=True)
class MutantKiller:
    """A mutmut mutant's child saw its first failing test."""

    name: str
    killer: str

    def to_json(self) -> JSON:
        return {"name": self.name, "killer": self.killer}


@dataclass(frozen=True)
class MutantEnded:
    """A mutant's child ended: its exit code (``MutantExit``, or a crash's), its seconds, when it started."""

    name: str
    exit: int
    seconds: float
    started: float | None = None  # None: never started (no test of it was collected)

    def to_json(self) -> JSON:
        out: JSON = {"name": self.name, "exit": self.exit, "seconds": self.seconds}
        return out | ({"started": self.started} if self.started is not None else {})


WarmLine = MutantStarted | MutantRow | MutantKiller | MutantEnded


def decode_warm(obj: object) -> WarmLine:
    """One line of a warm session's output (``--cm-execute-out``), told apart by its fields."""
    f = _Fields("a warm session's line", obj)
    name = f.get("name", _str)
    if "start" in f.obj:
        return MutantStarted(name, f.get("start", _str), f.get("t", _float))
    if "row" in f.obj:
        return MutantRow(name, _row("a warm session's row", f.obj["row"]), *_calls_of(f))
    if "exit" in f.obj:
        return MutantEnded(name, f.get("exit", _int), f.get("seconds", _float), f.get("started", _float, None))
    if "killer" in f.obj:
        return MutantKiller(name, f.get("killer", _str))
    raise ProtocolError("a warm session's line: no field 'start', 'row', 'exit' nor 'killer'")


# ----------------------------------------------------------------------------- the witness search (--cm-witness)


@dataclass(frozen=True)
class Candidate:
    """One step of a test's witness search: a mutant to run it under (``name`` to switch on, ``mutant`` its journal
    key), or the ``discover`` step."""

    kind: CandidateKind
    name: str = ""
    mutant: str = ""

    def to_json(self) -> list[str]:
        return [self.kind, self.name, self.mutant]

    @staticmethod
    def from_json(obj: object) -> Candidate:
        if not isinstance(obj, list) or len(obj) != 3 or not all(isinstance(v, str) for v in obj):
            raise TypeError(f"{_short(obj)} is not a candidate [kind, name, mutant]")
        if obj[0] not in CandidateKind.__members__.values():
            raise ValueError(f"{_short(obj[0])} is not one of {', '.join(CandidateKind)}")
        return Candidate(CandidateKind(obj[0]), obj[1], obj[2])


#: The candidates a test may try (its ``discover`` step's found mutants included).
MAX_CANDIDATES = 400


@dataclass(frozen=True)
class WitnessPlan:
    """One worker's witness search: each test's candidates in order, the killed (and unrun) mutmut mutants of each
    function for a ``discover`` step, each test's baseline duration (its runs' limit) and the candidates a test may
    try in all (``most``)."""

    tests: Mapping[str, tuple[Candidate, ...]]
    durations: Mapping[str, float] = field(default_factory=dict)
    killed: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    most: int = MAX_CANDIDATES

    def to_json(self) -> JSON:
        return {
            "tests": {n: [c.to_json() for c in cands] for n, cands in self.tests.items()},
            "durations": dict(self.durations),
            "killed": {fn: list(names) for fn, names in self.killed.items()},
            "max": self.most,
        }

    @staticmethod
    def from_json(obj: object) -> WitnessPlan:
        f = _Fields("a witness plan", obj)
        return WitnessPlan(
            f.get("tests", _mapping(_list(Candidate.from_json))),
            f.get("durations", _mapping(_float), {}),
            f.get("killed", _mapping(_strs), {}),
            f.get("max", _int, MAX_CANDIDATES),
        )


@dataclass(frozen=True)
class WitnessFound:
    """A searched test's line: its witness (a mutant's journal key) and that run's failure, or none; how far the
    search went (``complete``: every candidate tried, or a witness found)."""

    nodeid: str
    witness: str | None
    complete: bool
    tried: int = 0
    candidates: int | None = None  # the candidates known in the end (None: not counted)
    timeouts: int = 0  # the runs cut at their limit (a mutant taken to loop)
    limit: float = 0.0
    seconds: float = 0.0
    failure: str = ""
    calls: int | None = None  # the mutated functions its ``discover`` step saw it call (None: no such step)

    def to_json(self) -> JSON:
        out: JSON = {"nodeid": self.nodeid, "witness": self.witness, "complete": self.complete}
        out |= {"calls": self.calls} if self.calls is not None else {}
        out |= {"failure": self.failure} if self.witness is not None else {}
        return out | {
            "tried": self.tried,
            **({"candidates": self.candidates} if self.candidates is not None else {}),
            "timeouts": self.timeouts,
            "limit": self.limit,
            "seconds": self.seconds,
        }

    @staticmethod
    def from_json(obj: object) -> WitnessFound:
        f = _Fields("a witness line", obj)
        return WitnessFound(
            nodeid=f.get("nodeid", _str),
            witness=f.get("witness", _optional_str, None),
            complete=f.get("complete", _bool),
            tried=f.get("tried", _int, 0),
            candidates=f.get("candidates", _int, None),
            timeouts=f.get("timeouts", _int, 0),
            limit=f.get("limit", _float, 0.0),
            seconds=f.get("seconds", _float, 0.0),
            failure=f.get("failure", _str, ""),
            calls=f.get("calls", _int, None),
        )


# ----------------------------------------------------------------------------- lines and files

Message = (
    TestStarted
    | TestFinished
    | CallsEvent
    | KillerLine
    | WarmPlan
    | MutantStarted
    | MutantRow
    | MutantKiller
    | MutantEnded
    | WitnessPlan
    | WitnessFound
)


def encode_line(message: Message) -> str:
    """One message as the line a child (or the parent, for a plan) writes, its newline included."""
    return json.dumps(message.to_json()) + "\n"


def write_plan(path: Path, plan: WarmPlan | WitnessPlan) -> None:
    path.write_text(json.dumps(plan.to_json()), encoding="utf-8")


def read_plan(path: Path | str, decode: Callable[[object], T]) -> T:
    """A plan the parent wrote (``WarmPlan.from_json``, ``WitnessPlan.from_json``); a bad one names its file."""
    try:
        return decode(json.loads(Path(path).read_text(encoding="utf-8")))
    except json.JSONDecodeError as err:
        raise ProtocolError(f"{path}: not JSON: {err}") from None
    except ProtocolError as err:
        raise ProtocolError(f"{path}: {err}") from None


def read_lines(path: Path, decode: Callable[[object], T], offset: int = 0) -> tuple[list[T], int]:
    """The messages of ``path``'s complete lines from byte ``offset`` on, and the offset past them (nothing when the
    file is not there). A line that is not JSON was cut short when its writer was killed (or another's line was
    appended to it), and is skipped; a JSON line that is no message is a ``ProtocolError`` naming the file."""
    if not path.exists():
        return [], offset
    with open(path, "rb") as fh:
        fh.seek(offset)
        chunk = fh.read()
    complete = chunk[: chunk.rfind(b"\n") + 1]
    out = []
    for text in complete.decode("utf-8", errors="replace").splitlines():
        try:
            obj = json.loads(text)
        except json.JSONDecodeError:
            continue
        try:
            out.append(decode(obj))
        except ProtocolError as err:
            raise ProtocolError(f"{path}: {err}") from None
    return out, offset + len(complete)
