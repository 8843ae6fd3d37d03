"""``mutation-report.json``: the report in the mutation-testing-elements schema (version 1), every mutant of every
kind, for the standard viewers; validated against the published schema (``reports/render/schema/``) by the tests.

A mutant's ``location`` (1-based, end exclusive, columns in UTF-16 code units as the viewer counts them) is the
span its ``replacement`` takes the place of: the viewer splices one into the other to show the mutated code."""

from __future__ import annotations

import ast
import importlib.metadata
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reports.campaign.records import Kind, MutantChange, MutantRecord, Outcome, Status
from reports.render.report_model import NamedRow, Report, module_file

#: Baseline outcomes of the tests no mutant runs.
NOT_RUN_UNDER_MUTANTS = frozenset({Outcome.SKIPPED, Outcome.XFAILED})
MTE_STATUS = {
    Status.KILLED: "Killed",
    Status.SURVIVED: "Survived",
    Status.TIMEOUT: "Timeout",
    Status.NO_COVERAGE: "NoCoverage",
    Status.ERROR: "RuntimeError",
    Status.TYPE_CHECK: "CompileError",
    Status.SKIPPED: "Ignored",
    Status.EQUIVALENT: "Ignored",
    Status.PENDING: "Pending",
}
NAMED_MUTATOR = {Kind.DEFECT: "DefectSwitch", Kind.REMOVAL: "SeedRemoval", Kind.EXTRA: "Patch"}
DISTRIBUTION = "cmharness"


@dataclass(frozen=True)
class Edit:
    """A span of one file (1-based lines and UTF-16 columns, end exclusive) and the text that replaces it."""

    file: str
    line: int
    column: int
    end_line: int
    end_column: int
    replacement: str

    def location(self) -> dict[str, dict[str, int]]:
        return {
            "start": {"line": self.line, "column": self.column},
            "end": {"line": self.end_line, "column": self.end_column},
        }


def _column(line: str, chars: int) -> int:
    """The viewer's 1-based column of the character at ``chars`` in ``line`` (JavaScript counts UTF-16 units)."""
    return len(line[:chars].encode("utf-16-le")) // 2 + 1


def _char_column(line: str, byte_col: int) -> int:
    """An AST column (UTF-8 bytes) as the viewer's column."""
    return _column(line, len(line.encode("utf-8")[:byte_col].decode("utf-8", "replace")))


def _source(path: Path) -> str:
    return path.read_text(encoding="utf-8") if path.is_file() else ""


# ----------------------------------------------------------------------------- named mutants


def _is_switch(node: ast.AST, defect: str) -> bool:
    """``X.on(Defect.NAME)`` or ``Defect.NAME in X``: where a switch is read (strategies/defects.py)."""

    def names(n: ast.AST) -> bool:
        return isinstance(n, ast.Attribute) and n.attr == defect and isinstance(n.value, ast.Name)

    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "on":
        return len(node.args) == 1 and names(node.args[0])
    return isinstance(node, ast.Compare) and isinstance(node.ops[0], ast.In) and names(node.left)


def _span(file: str, lines: list[str], node: ast.AST, replacement: str) -> Edit:
    """``node``'s span in a file's ``lines``, replaced by ``replacement``."""
    end_line = node.end_lineno or node.lineno  # type: ignore[attr-defined]
    return Edit(
        file,
        node.lineno,  # type: ignore[attr-defined]
        _char_column(lines[node.lineno - 1], node.col_offset),  # type: ignore[attr-defined]
        end_line,
        _char_column(lines[end_line - 1], node.end_col_offset or 0),  # type: ignore[attr-defined]
        replacement,
    )


def _removal(file: str, lines: list[str], owner: ast.If, block: list[ast.stmt]) -> Edit:
    """An ``if`` statement's lines removed (a ``pass`` left where it was its block's only statement)."""
    end = owner.end_lineno or owner.lineno
    filler = "" if len(block) > 1 else " " * owner.col_offset + "pass\n"
    if end < len(lines):
        return Edit(file, owner.lineno, 1, end + 1, 1, filler)
    return Edit(file, owner.lineno, 1, end, _column(lines[end - 1], len(lines[end - 1])), filler.removesuffix("\n"))


def switch_edit(root: Path, defect: str) -> Edit | None:
    """The first site that reads ``defect`` in ``strategies/``, forced on: an ``if not`` switch with no ``else``
    loses its lines, any other read (``X.on(Defect.NAME)``, ``Defect.NAME in X``) becomes ``True``. Where no
    read is found, the first mention unchanged; where none is, the switch's definition."""
    folder = root / "strategies"
    mention: Edit | None = None
    for path in sorted(folder.glob("*.py")) if folder.is_dir() else []:
        if path.name == "defects.py" or f".{defect}" not in (text := _source(path)):
            continue
        tree = ast.parse(text)
        lines = text.split("\n")
        file = path.relative_to(root).as_posix()
        parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        sites = sorted((n for n in ast.walk(tree) if _is_switch(n, defect)), key=lambda n: (n.lineno, n.col_offset))
        for site in sites:
            not_ = parents.get(site)
            owner = parents.get(not_) if not_ is not None else None
            if (
                isinstance(not_, ast.UnaryOp)
                and isinstance(not_.op, ast.Not)
                and isinstance(owner, ast.If)
                and owner.test is not_
                and not owner.orelse
            ):
                around = parents[owner]
                block = next((b for f in ("body", "orelse", "finalbody") if owner in (b := getattr(around, f, []))), [])
                return _removal(file, lines, owner, block)
            return _span(file, lines, site, "True")
        if mention is None:
            refs = [n for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr == defect]
            first = min(refs, key=lambda n: (n.lineno, n.col_offset), default=None)
            if first is not None:
                mention = _span(file, lines, first, ast.get_source_segment(text, first) or "")
    if mention is not None:
        return mention
    text = _source(folder / "defects.py")
    tree = ast.parse(text) if text else ast.Module([], [])
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == defect for t in node.targets):
            target = node.targets[0]
            return _span("strategies/defects.py", text.split("\n"), target, defect)
    return None


_HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+\d+(?:,\d+)? @@")


def patch_edit(root: Path, rec: MutantRecord) -> Edit | None:
    """An extra patch's first hunk's first change: the lines it removes and the lines it puts in their place."""
    line: int | None = None
    removed: list[str] = []
    added: list[str] = []
    for raw in rec.diff.splitlines():
        m = _HUNK.match(raw)
        if m:
            if line is not None:
                break
            line = int(m.group(1)) or 1
            continue
        if line is None:
            continue
        if raw.startswith("-"):
            removed.append(raw[1:])
        elif raw.startswith("+"):
            added.append(raw[1:])
        elif removed or added:
            break
        else:
            line += 1
    if line is None or not (removed or added) or not rec.file:
        return None
    lines = _source(root / rec.file).split("\n")
    new = "".join(a + "\n" for a in added)
    end = line + len(removed)
    if end <= len(lines):
        return Edit(rec.file, line, 1, end, 1, new)
    last = lines[-1]
    return Edit(rec.file, line, 1, len(lines), _column(last, len(last)), new.removesuffix("\n"))


def named_edit(root: Path, row: NamedRow, report: Report) -> Edit:
    """The code change a named mutant makes, or the top of ``strategies/defects.py`` where none is found."""
    found: Edit | None = None
    if row.kind == Kind.EXTRA:
        rec = report.extra_locations.get(row.id)
        found = patch_edit(root, rec) if rec is not None else None
        if found is None and rec is not None and rec.file:  # a patch that does not apply: where it would go
            found = Edit(rec.file, int(rec.line or 1), 1, int(rec.line or 1), 1, "")
    else:
        found = switch_edit(root, row.spec.split("+")[-1])
    return found or Edit("strategies/defects.py", 1, 1, 1, 1, "")


# ----------------------------------------------------------------------------- mutmut's mutants


def mutmut_edit(root: Path, path: str, change: MutantChange) -> tuple[Edit, str]:
    """A mutmut mutant's span and new text, and its mutator. A journal written before spans holds the changed
    line(s), stripped: where the source still has them, that stripped text is the span."""
    if change.span_original or change.span_replacement:
        edit = Edit(path, change.line, change.column, change.end_line, change.end_column, change.span_replacement)
        return edit, change.mutator
    lines = _source(root / path).split("\n")
    first = change.original.split("\n")
    for at in sorted({change.line - k for k in range(len(first))} | {change.line}):
        chunk = "\n".join(lines[at - 1 : at - 1 + len(first)]) if at >= 1 else None
        if chunk is not None and change.original and chunk.strip() == change.original:
            head, last = lines[at - 1], lines[at - 2 + len(first)]
            indent = len(head) - len(head.lstrip())
            end_line = at + len(first) - 1
            edit = Edit(
                path, at, _column(head, indent), end_line, _column(last, len(last.rstrip())), change.replacement
            )
            return edit, change.mutator if change.mutator != "Mutation" else "LineReplacement"
    edit = Edit(path, change.line, change.column, change.end_line, change.end_column, change.replacement)
    return edit, change.mutator if change.mutator != "Mutation" else "Unclassified"


# ----------------------------------------------------------------------------- tests


def test_lines(source: str) -> dict[str, int]:
    """Each test function's ``def`` line by its name in a node id (``test_f``, ``TestC::test_m``)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    out: dict[str, int] = {}

    def visit(body: Iterable[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                out.setdefault(prefix + node.name, node.lineno)
            elif isinstance(node, ast.ClassDef):
                visit(node.body, f"{prefix}{node.name}::")

    visit(tree.body, "")
    return out


def framework() -> dict[str, Any]:
    """The tool's name, its installed version and its homepage where the package metadata names one."""
    out: dict[str, Any] = {"name": DISTRIBUTION}
    try:
        meta = importlib.metadata.metadata(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return out
    out["version"] = meta["Version"]
    urls = dict(u.split(", ", 1) for u in meta.get_all("Project-URL") or () if ", " in u)
    home = next((v for k, v in urls.items() if k.lower() in ("homepage", "home", "repository", "source")), None)
    if home:
        out["branding"] = {"homepageUrl": home}
    return out


def mte_json(report: Report, root: Path) -> dict[str, Any]:
    """The report in the mutation-testing-elements schema (version 1); no absolute path, so two clones of one
    commit write the same bytes."""
    files: dict[str, dict[str, Any]] = {}

    def file_entry(path: str) -> dict[str, Any]:
        if path not in files:
            files[path] = {"language": "python", "source": _source(root / path), "mutants": []}
        return files[path]

    ids = {nodeid: str(k) for k, nodeid in enumerate(sorted({t.nodeid for t in report.tests}))}

    def tests(nodeids: Iterable[str]) -> list[str]:
        """Test ids by number, as the viewer's own reporters write them (a test covers thousands of mutants)."""
        return sorted({ids.get(t, t) for t in nodeids}, key=lambda i: (len(i), i))

    numbered: dict[int, tuple[list[str], frozenset[str]]] = {}

    def covering(covered: tuple[str, ...], killed: Sequence[str]) -> list[str]:
        """``tests(covered + killed)``, the function's share worked out once (its mutants share one tuple)."""
        if id(covered) not in numbered:
            listed = tests(covered)
            numbered[id(covered)] = listed, frozenset(listed)
        base, known = numbered[id(covered)]
        extra = {ids.get(t, t) for t in killed} - known
        return sorted([*base, *extra], key=lambda i: (len(i), i)) if extra else base

    ran = {row.mutant: tuple(row.cells) for row in report.kills.rows}
    for row in report.named:
        edit = named_edit(root, row, report)
        entry: dict[str, Any] = {
            "id": row.id,
            "mutatorName": NAMED_MUTATOR.get(row.kind, "SeedRemoval"),
            "replacement": edit.replacement,
            "description": row.wording,
            "location": edit.location(),
            "status": MTE_STATUS.get(row.status, "RuntimeError"),
            "coveredBy": tests(ran.get(row.id, ())),
            "killedBy": tests([*row.killed_by, *report.witnessed.get(row.id, ())]),
        }
        if row.duration is not None:
            entry["duration"] = round(float(row.duration) * 1000)
        if row.status == Status.TIMEOUT:
            entry["statusReason"] = "no test failed before the timeout"
        file_entry(edit.file)["mutants"].append(entry)
    for row in report.mutmut:
        change = row.change
        path = change.file if change is not None and change.file else module_file(row.id)
        if not (root / path).exists():
            continue
        if change is not None:
            edit, mutator = mutmut_edit(root, path, change)
        else:
            edit, mutator = Edit(path, row.line, 1, row.line, 1, ""), "Pending"
        killed = [*row.killed_by, *report.witnessed.get(row.id, ())]
        entry = {
            "id": row.id,
            "mutatorName": mutator,
            "replacement": edit.replacement,
            "location": edit.location(),
            "status": MTE_STATUS.get(row.status, "RuntimeError"),
            "coveredBy": covering(row.covered_by, killed),
            "killedBy": tests(killed),
        }
        if row.status == Status.EQUIVALENT:
            entry["statusReason"] = f"equivalent: {row.reason}"
        if row.duration is not None:
            entry["duration"] = round(float(row.duration) * 1000)
        file_entry(path)["mutants"].append(entry)
    test_files: dict[str, dict[str, Any]] = {}
    # the tests a mutant can run: one skipped or an expected red on the unmutated code never runs under a mutant (the
    # report's own tables show those), so the viewer would list it as covering nothing
    for t in sorted((t for t in report.tests if t.outcome not in NOT_RUN_UNDER_MUTANTS), key=lambda t: t.nodeid):
        if t.file not in test_files:
            source = _source(root / t.file)
            test_files[t.file] = {
                "source": source,
                "tests": [],
                "lines": test_lines(source) if t.file.endswith(".py") else {},
            }
        name = t.nodeid.split("::", 1)[-1]
        line = test_files[t.file]["lines"].get(name.split("[", 1)[0], 1)
        test_files[t.file]["tests"].append(
            {"id": ids[t.nodeid], "name": name, "location": {"start": {"line": line, "column": 1}}}
        )
    return {
        "$schema": "https://git.io/mutation-testing-schema",
        "schemaVersion": "1",
        "thresholds": {"high": 80, "low": 60},
        "files": dict(sorted(files.items())),
        "testFiles": {f: {"source": e["source"], "tests": e["tests"]} for f, e in sorted(test_files.items())},
        "framework": framework(),
    }
