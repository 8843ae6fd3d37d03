"""The report's ``mutation-report.json`` in the official viewer (the npm package ``mutation-testing-elements``, 3.x)
in headless Chromium, as a Stryker user sees it: the mutation score, a file's mutants, an opened mutant's diff and
a test's killed mutants. The viewer is installed by ``.ci/run`` (``$CMHARNESS_VIEWER_DIR``); without it or Chromium
these tests skip."""

from __future__ import annotations

import ast
import base64
import contextlib
import fcntl
import json
import os
import re
import select
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from campaign_helpers import CHROMIUM, HEADLESS, MUTANTS, make_project

from reports.campaign.records import (
    BaselineRecord,
    Kind,
    MutantChange,
    MutantRecord,
    MutmutRecord,
    Outcome,
    Records,
    Status,
    WitnessRecord,
    witness_key,
)
from reports.campaign.records import TestRow as Row
from reports.render.mutation_testing_elements import mte_json
from reports.render.report_model import build

pytestmark = pytest.mark.harness

VIEWER_DIR = Path(os.environ.get("CMHARNESS_VIEWER_DIR", "/opt/cmharness-viewer"))
VIEWER_JS = VIEWER_DIR / "node_modules" / "mutation-testing-elements" / "dist" / "mutation-test-elements.js"
HERE = Path(__file__).parent / "viewer"

# ----------------------------------------------------------------------------- the fixture: the fake project's report

FILE = "calc.py"
TESTS = "tests/test_calc.py"
ADD_PR, ADD_SOUND = f"{TESTS}::test_add[pr-8bb01ab8]", f"{TESTS}::test_add[sound]"
ADD_ZERO, PLAIN = f"{TESTS}::test_add_zero", f"{TESTS}::test_plain"


@dataclass(frozen=True)
class Operator:
    """One of mutmut's mutants of ``calc.py`` as its fixture states it: the node it changes (its source text), the
    node's new text, the mutated line as mutmut writes it, its status, killers and mutator."""

    name: str
    node: str
    new: str
    mutated_line: str
    status: Status
    killed_by: tuple[str, ...] = ()
    mutator: str = "ArithmeticOperator"


OPERATORS = (
    Operator(
        "calc.x_add__mutmut_1", "a + b", "a - b", "return a - b + (1 if off else 0)", Status.KILLED, (ADD_PR, ADD_SOUND)
    ),
    Operator(
        "calc.x_add__mutmut_2",
        "1",
        "2",
        "return a + b + (2 if off else 0)",
        Status.SURVIVED,
        mutator="NumberReplacement",
    ),
    Operator(
        "calc.x_add__mutmut_3",
        "a >= 5",
        "a > 5",
        "off = Defect.OFF_BY_ONE in active or (Defect.OFF_FOR_LARGE in active and a > 5)",
        Status.NO_COVERAGE,
        mutator="ComparisonOperator",
    ),
    # mutmut names its first killer only; the red-first witness search finds that it kills test_add_zero too
    Operator("calc.x_add__mutmut_4", "a + b", "a * b", "return a * b + (1 if off else 0)", Status.KILLED, (ADD_PR,)),
)
WITNESS = (ADD_ZERO, "mutmut:calc.x_add__mutmut_4")
NAMED = {  # the named mutants: status and killers
    "defect:OFF_BY_ONE": (Status.KILLED, (ADD_PR, ADD_SOUND)),
    "defect:HANGS": (Status.TIMEOUT, ()),
    "defect:HARMLESS": (Status.SURVIVED, ()),
}


def span(source: str, text: str) -> tuple[int, int, int, int]:
    """The exact span (1-based line and column, the end column one past the node) of the first expression node in
    ``source`` whose text is ``text``."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.expr) and ast.get_source_segment(source, node) == text:
            return node.lineno, node.col_offset + 1, node.end_lineno or node.lineno, (node.end_col_offset or 0) + 1
    raise LookupError(text)


def mutmut_record(root: Path, op: Operator) -> MutmutRecord:
    """The journal record of ``op`` as the format means its location: the changed node's span, its new text."""
    line, col, end_line, end_col = span((root / FILE).read_text(), op.node)
    change = MutantChange(FILE, "add", line, col, end_line, end_col, op.node, op.new, op.mutator)
    return MutmutRecord(f"mutmut:{op.name}", "", op.status, 1 if op.killed_by else 0, 0.2, change, op.killed_by)


def fixture_records(root: Path) -> Records:
    """The journal of a finished campaign over the fake project, record by record."""
    rows = tuple(
        Row(t, Outcome.PASSED, 0.01, 0.0, t.split("[")[0], TESTS, v)
        for t, v in ((ADD_PR, "pr-8bb01ab8"), (ADD_SOUND, "sound"), (ADD_ZERO, None), (PLAIN, None))
    )
    records: Records = {"baseline": BaselineRecord("", 1.0, 0.5, 0, rows, 1.0)}
    for key, (status, killers) in NAMED.items():
        spec = "sound+" + key.split(":")[1]
        failures = {t: "E   assert 4 == 3" for t in killers}
        records[key] = MutantRecord(
            key, "", Kind.DEFECT, spec, 4, status, 1.0, 0.3, killed_by=killers, failures=failures
        )
    for op in OPERATORS:
        records[f"mutmut:{op.name}"] = mutmut_record(root, op)
    test, mutant = WITNESS
    records[witness_key(test)] = WitnessRecord(witness_key(test), "", test, test, mutant, 1, "E   assert 0 == 5")
    return records


def render(root: Path, records: Records) -> dict[str, Any]:
    """The report the project's renderer writes for ``records``, as JSON reads it back."""
    named = [m for m in MUTANTS if m.id in NAMED]
    return json.loads(json.dumps(mte_json(build(records, "", named, equivalents={}), root)))


def expected_score(records: Records) -> float:
    """Stryker's mutation score: detected (killed, timed out) over detected and undetected (survived, no coverage)."""
    statuses = [r.status for r in records.values() if isinstance(r, MutantRecord | MutmutRecord)]
    detected = sum(s in (Status.KILLED, Status.TIMEOUT) for s in statuses)
    undetected = sum(s in (Status.SURVIVED, Status.NO_COVERAGE) for s in statuses)
    return 100 * detected / (detected + undetected)


def killed_by_test(records: Records) -> dict[str, set[str]]:
    """Each test's killed mutants: the mutants naming it a killer, and its red-first witness."""
    out: dict[str, set[str]] = {}
    for key, r in records.items():
        if isinstance(r, MutantRecord | MutmutRecord):
            for t in r.killed_by:
                out.setdefault(t, set()).add(key)
        if isinstance(r, WitnessRecord) and r.test and r.witness:
            out.setdefault(r.test, set()).add(r.witness)
    return out


# ----------------------------------------------------------------------------- Chromium over the DevTools protocol


class Browser:
    """Headless Chromium driven over the DevTools protocol on a pipe (``--remote-debugging-pipe``: it reads
    NUL-terminated JSON on fd 3 and answers on fd 4), the standard library only."""

    def __init__(self, profile: Path) -> None:
        to_child, self._to_chromium = os.pipe()
        self._from_chromium, from_child = os.pipe()
        # numbers clear of 3 and 4, so that the redirections below cannot overwrite one another (bash: dash takes
        # no fd past 9)
        a, b = (fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (to_child, from_child))
        os.close(to_child), os.close(from_child)
        flags = [
            *HEADLESS,
            "--hide-scrollbars",
            "--remote-debugging-pipe",
            f"--user-data-dir={profile}",
            "--window-size=1280,2000",
            "about:blank",
        ]
        self.proc = subprocess.Popen(
            ["bash", "-c", f'exec "$@" 3<&{a} 4>&{b}', "bash", str(CHROMIUM), *flags],
            pass_fds=(a, b),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(a), os.close(b)
        self._buffer, self._id, self.events = b"", 0, []
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        self.page("Page.enable")
        self.page("Runtime.enable")

    def _message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._from_chromium], [], [], left)[0]:
                raise TimeoutError("Chromium did not answer")
            chunk = os.read(self._from_chromium, 1 << 20)
            if not chunk:
                raise RuntimeError(f"Chromium closed its pipe (exit {self.proc.poll()})")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method: str, session: str | None = None, timeout: float = 30, **params: Any) -> dict[str, Any]:
        self._id += 1
        data = json.dumps(
            {"id": self._id, "method": method, "params": params, **({"sessionId": session} if session else {})}
        )
        view = memoryview(data.encode() + b"\0")
        while view:
            view = view[os.write(self._to_chromium, view) :]
        deadline = time.monotonic() + timeout
        while True:
            m = self._message(deadline)
            if m.get("id") == self._id:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m["result"]
            self.events.append(m)

    def page(self, method: str, **params: Any) -> dict[str, Any]:
        return self.call(method, self.session, **params)

    def wait_for(self, event: str, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while not any(e.get("method") == event for e in self.events):
            self.events.append(self._message(deadline))
        self.events = [e for e in self.events if e.get("method") != event]

    def open(self, url: str) -> None:
        self.events.clear()
        self.page("Page.navigate", url=url)
        self.wait_for("Page.loadEventFired")

    def run(self, expression: str) -> Any:
        """The value of an expression in the page, a promise awaited; a JavaScript error raised as one."""
        out = self.page("Runtime.evaluate", expression=expression, awaitPromise=True, returnByValue=True)
        if "exceptionDetails" in out:
            details = out["exceptionDetails"]
            raise RuntimeError(details.get("exception", {}).get("description") or details.get("text"))
        return out["result"].get("value")

    def screenshot(self, path: Path) -> Path:
        path.write_bytes(base64.b64decode(self.page("Page.captureScreenshot", format="png")["data"]))
        return path

    def page_errors(self) -> list[str]:
        """The uncaught exceptions and console errors since the last page opened."""
        return [
            json.dumps(e["params"])[:500]
            for e in self.events
            if e.get("method") == "Runtime.exceptionThrown"
            or (e.get("method") == "Runtime.consoleAPICalled" and e["params"].get("type") == "error")
        ]

    def close(self) -> None:
        with contextlib.suppress(RuntimeError, TimeoutError, OSError):
            self.call("Browser.close", timeout=5)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._to_chromium), os.close(self._from_chromium)


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    missing = [
        what
        for what, present in (
            (
                f"the viewer ({VIEWER_JS}; .ci/run installs it: npm install --prefix $CMHARNESS_VIEWER_DIR "
                "mutation-testing-elements@3)",
                VIEWER_JS.is_file(),
            ),
            ("Chromium (apt-get install chromium; .ci/run does)", CHROMIUM is not None),
        )
        if not present
    ]
    if missing:
        pytest.skip("absent: " + ", ".join(missing))
    b = Browser(tmp_path_factory.mktemp("chromium-profile"))
    yield b
    b.close()


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_project(tmp_path_factory.mktemp("viewer") / "project")


def show(browser: Browser, doc: dict[str, Any], folder: Path) -> dict[str, Any]:
    """Opens ``doc`` in the official viewer (a local page, the report set as the app's ``report`` property)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "report.js").write_text(f"window.REPORT = {json.dumps(doc)};\n", encoding="utf-8")
    page = (HERE / "page.html").read_text(encoding="utf-8")
    for name, path in (("viewer", VIEWER_JS), ("probe", HERE / "probe.js"), ("report", folder / "report.js")):
        page = page.replace("{" + name + "}", path.as_uri())
    (folder / "index.html").write_text(page, encoding="utf-8")
    browser.open((folder / "index.html").as_uri())
    return browser.run("probe.ready()")


# ----------------------------------------------------------------------------- the checks: what a person sees


def check_score(seen: dict[str, Any], records: Records) -> None:
    """The headline row ("All files") shows Stryker's mutation score of the journal, to two decimals."""
    rows = {row[0]: [c for c in row[1:] if c] for row in seen["rows"]}
    assert "All files" in rows, seen["rows"]
    assert rows["All files"][0] == f"{expected_score(records):.2f}", rows["All files"]


def check_file_view(seen: dict[str, Any], records: Records) -> None:
    """A file's view shows each of its mutants once, with its status, and the filter counts them."""
    want = {r.key: r.status for r in records.values() if isinstance(r, MutmutRecord) and r.change.file == FILE}
    shown = {d["id"]: d["status"] for d in seen["dots"]}
    assert len(seen["dots"]) == len(shown), seen["dots"]
    mte = {Status.KILLED: "Killed", Status.SURVIVED: "Survived", Status.NO_COVERAGE: "NoCoverage"}
    assert shown == {k: mte[s] for k, s in want.items()}
    for status in set(shown.values()):
        assert f"{status} ({list(shown.values()).count(status)})" in " ".join(seen["filters"]), seen["filters"]


def check_diff(opened: dict[str, Any], source: str, op: Operator) -> None:
    """An opened mutant shows its original line struck and, added below it, the mutated source line (the text as
    shown: whitespace collapsed)."""
    line = span(source, op.node)[0]
    assert opened["old"] == [" ".join(source.splitlines()[line - 1].split())], opened
    assert opened["new"] == [" ".join(op.mutated_line.split())], opened


def killed_items(seen: dict[str, Any]) -> list[str]:
    """The drawer's items marked killed (its tooltip: "... killed ..."), as shown."""
    return [i["text"] for i in seen["items"] if "killed" in i["title"]]


def check_mutant_killers(opened: dict[str, Any], op: Operator) -> None:
    """An opened killed mutant's drawer says it was killed and lists every test that killed it, by name and with its
    place in its test file."""
    assert "Killed by:" in opened["drawer"], opened["drawer"]
    want = sorted((t.split("::", 1)[1], t.split("::", 1)[0]) for t in op.killed_by)
    shown = [re.fullmatch(r"(\S+) \((\S+):\d+:\d+\)", k.removeprefix("🎯").strip()) for k in killed_items(opened)]
    assert all(shown) and sorted(m.groups() for m in shown if m) == want, opened["items"]


def check_test_view(seen: dict[str, Any], test: str, records: Records) -> None:
    """A test's drawer in the test view lists exactly the mutants it killed (mutmut's by mutated line and place)."""
    want = killed_by_test(records).get(test, set())
    assert "missing" not in seen, seen
    killed = killed_items(seen)
    assert len(killed) == len(want), (sorted(want), killed)
    for op in OPERATORS:
        rec = records[f"mutmut:{op.name}"]
        if rec.key in want and isinstance(rec, MutmutRecord):
            place = f"{FILE}:{rec.change.line}:{rec.change.column}"
            assert any(op.mutated_line in k and place in k for k in killed), (op.mutated_line, place, killed)


def open_mutant(browser: Browser, op: Operator) -> dict[str, Any]:
    """``op`` opened in its file's view: the diff and the drawer."""
    return browser.run(f"probe.openMutant({json.dumps(FILE)}, {json.dumps('mutmut:' + op.name)})")


def open_test(browser: Browser, test: str) -> dict[str, Any]:
    """``test`` opened in the test view, its file reached from the test view's table as a person would."""
    links = browser.run("probe.testFiles()")
    href = next(link["href"] for link in links if link["text"].endswith(Path(TESTS).name))
    return browser.run(f"probe.openTest({json.dumps(href)}, {json.dumps(test.split('::', 1)[1])})")


# ----------------------------------------------------------------------------- the tests


def test_the_report_reads_right_in_the_official_viewer(browser, project, tmp_path):
    records = fixture_records(project)
    seen = show(browser, render(project, records), tmp_path / "report")
    assert seen["errors"] == [] and browser.page_errors() == []
    check_score(seen, records)
    check_file_view(browser.run(f"probe.fileView({json.dumps(FILE)})"), records)
    opened = open_mutant(browser, OPERATORS[0])
    print(f"file view: {browser.screenshot(tmp_path / 'file-view.png')}")
    check_diff(opened, (project / FILE).read_text(), OPERATORS[0])
    check_mutant_killers(opened, OPERATORS[0])
    seen = open_test(browser, ADD_SOUND)
    print(f"test view: {browser.screenshot(tmp_path / 'test-view.png')}")
    check_test_view(seen, ADD_SOUND, records)
    assert browser.page_errors() == []


def test_a_tests_red_first_witness_shows_among_its_killed_mutants(browser, project, tmp_path):
    """mutmut names a mutant's first killer only; the witness search finds the others: the viewer must show them."""
    records = fixture_records(project)
    show(browser, render(project, records), tmp_path / "report")
    seen = open_test(browser, WITNESS[0])
    print(f"test view: {browser.screenshot(tmp_path / 'witness-view.png')}")
    check_test_view(seen, WITNESS[0], records)


# ----------------------------------------------------------------------------- the checks go red on wrong reports


def spliced_line(records: Records) -> Records:
    """mutmut_1's replacement the whole mutated line, spliced into the span of the node it changes."""
    key = f"mutmut:{OPERATORS[0].name}"
    rec = records[key]
    assert isinstance(rec, MutmutRecord)
    return {**records, key: replace(rec, change=replace(rec.change, replacement=OPERATORS[0].mutated_line))}


def no_killers(records: Records) -> Records:
    """mutmut_1 killed, with no killer named."""
    key = f"mutmut:{OPERATORS[0].name}"
    return {**records, key: replace(records[key], killed_by=())}


def wrong_status(doc: dict[str, Any]) -> dict[str, Any]:
    """A killed mutant written as survived: the score the viewer shows is not the journal's."""
    next(m for m in doc["files"][FILE]["mutants"] if m["status"] == "Killed")["status"] = "Survived"
    return doc


def one_mutant_lost(doc: dict[str, Any]) -> dict[str, Any]:
    """One of the file's mutants left out."""
    doc["files"][FILE]["mutants"].pop()
    return doc


CHECKS: dict[str, Callable[[Browser, Records, Path], None]] = {
    "score": lambda b, records, root: check_score(b.run("probe.ready()"), records),
    "file": lambda b, records, root: check_file_view(b.run(f"probe.fileView({json.dumps(FILE)})"), records),
    "diff": lambda b, records, root: check_diff(open_mutant(b, OPERATORS[0]), (root / FILE).read_text(), OPERATORS[0]),
    "killers": lambda b, records, root: check_mutant_killers(open_mutant(b, OPERATORS[0]), OPERATORS[0]),
    "test": lambda b, records, root: check_test_view(open_test(b, ADD_SOUND), ADD_SOUND, records),
}


@pytest.mark.parametrize(
    ("spoil_records", "spoil_doc", "check"),
    [
        pytest.param(spliced_line, None, "diff", id="replacement-is-the-whole-line"),
        pytest.param(no_killers, None, "killers", id="killed-without-killedBy-drawer"),
        pytest.param(no_killers, None, "test", id="killed-without-killedBy-test-view"),
        pytest.param(None, wrong_status, "score", id="wrong-score"),
        pytest.param(None, one_mutant_lost, "file", id="a-mutant-lost"),
    ],
)
def test_each_check_goes_red_on_a_wrong_report(browser, project, tmp_path, spoil_records, spoil_doc, check):
    records = fixture_records(project)
    doc = render(project, spoil_records(records) if spoil_records else records)
    show(browser, spoil_doc(doc) if spoil_doc else doc, tmp_path / "report")
    with pytest.raises(AssertionError) as red:
        CHECKS[check](browser, records, project)
    print(f"{check}: red, as it must be: {str(red.value)[:300]}")
