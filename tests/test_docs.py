"""The contract's cross-references (docs/model.md, Where to find): citations, anchors, defect and invariant names.

Code and tests cite a section of ``docs/model.md`` by its heading text ("docs/model.md, Windows"), so a
renamed heading must fail here, not leave a dangling pointer; so must a ``Defect`` or an invariant the
document does not describe, a link to an anchor no heading makes, and a test it names that does not exist.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from invariants.properties import INVARIANTS
from strategies.defects import Defect

pytestmark = pytest.mark.harness  # the contract's cross-references: no mutant of the model can make it red

ROOT = Path(__file__).resolve().parents[1]
MODEL = ROOT / "docs" / "model.md"
OLD_SECTION_MAP = ROOT / "docs" / "spec-sections.txt"
SCANNED = (".py", ".md", ".toml", ".txt")
SKIPPED_DIRS = {".git", ".venv", "node_modules", "mutants", ".cmharness", ".hypothesis", "out", "__pycache__"}
CITE = "docs/model.md, "


def anchor(heading: str) -> str:
    """The anchor GitHub makes of a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def headings(text: str) -> list[str]:
    """Every heading of a markdown text (any level), as written."""
    return [m.group(1) for m in re.finditer(r"^#{1,6} (.+?)\s*$", text, re.M)]


def heading_name(heading: str) -> str:
    """A heading as code cites it: no section number, no backticks, lower case, single spaces."""
    return " ".join(re.sub(r"^\d+\.\s+", "", heading).replace("`", "").lower().split())


def names_a_heading(cited: str, names: list[str]) -> bool:
    """``cited`` is a heading, or its first words (a line without room for the whole pointer)."""
    c = " ".join(cited.replace("`", "").lower().split())
    if c and any(n == c or n.startswith(c + " ") for n in names):
        return True
    parts = c.split(" to ")  # a range of sections: "Windows to Known defects"
    return len(parts) > 1 and all(names_a_heading(part, names) for part in parts)


def cited_headings(rest: str) -> list[str]:
    """The headings cited by the text after ``docs/model.md, ``: quoted ones, or ``A; B`` (or a range ``A to B``)."""
    out: list[str] = []
    while True:
        quoted = re.match(r'"([^"]+)"', rest)
        if quoted:
            out.append(quoted.group(1))
            rest = rest[quoted.end() :]
            if rest.startswith(', "'):
                rest = rest[2:]
                continue
            return out
        plain = re.match(r"[^();:,.\"`*\n]+", rest)
        if not plain:
            return out
        out.append(plain.group(0).strip())
        rest = rest[plain.end() :]
        if not re.match(r"; [A-Z]", rest):
            return out
        rest = rest[2:]


def citations(root: Path) -> list[tuple[str, int, str]]:
    """Every (file, line, cited heading) under ``root``."""
    found = []
    for path in sorted(root.rglob("*")):
        if path.suffix not in SCANNED or not path.is_file() or SKIPPED_DIRS & set(path.relative_to(root).parts):
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            at = 0
            while (at := line.find(CITE, at)) >= 0:
                at += len(CITE)
                found += [(str(path.relative_to(root)), n, h) for h in cited_headings(line[at:])]
    return found


def dangling_citations(root: Path, model_text: str) -> list[str]:
    names = [heading_name(h) for h in headings(model_text)]
    return [f"{f}:{n}: cites {h!r}" for f, n, h in citations(root) if not names_a_heading(h, names)]


def broken_anchors(model_text: str, texts: dict[str, str]) -> list[str]:
    """Links to ``#anchor`` inside model.md, and to ``model.md#anchor`` anywhere, that no heading makes."""
    anchors = {anchor(h) for h in headings(model_text)}
    bad = [f"docs/model.md: #{a}" for a in re.findall(r"\]\(#([^)]+)\)", model_text) if a not in anchors]
    for name, text in texts.items():
        bad += [f"{name}: model.md#{a}" for a in re.findall(r"model\.md#([\w-]+)", text) if a not in anchors]
    return bad


@pytest.fixture(scope="module")
def model_text() -> str:
    return MODEL.read_text(encoding="utf-8")


def test_every_citation_in_code_names_a_heading(model_text: str) -> None:
    assert len(citations(ROOT)) > 20, "the scan found almost no citations: the pattern no longer matches the code"
    assert dangling_citations(ROOT, model_text) == []


def test_a_renamed_heading_breaks_the_citations_of_it(model_text: str) -> None:
    renamed = model_text.replace("## 5. Windows\n", "## 5. The windows\n")
    assert renamed != model_text
    dangling = dangling_citations(ROOT, renamed)
    assert any("strategies/windows.py" in d and "'Windows'" in d for d in dangling), dangling


def section(model_text: str, name: str) -> str:
    """The text of the numbered section whose heading is ``name``."""
    parts = re.split(r"^## ", model_text, flags=re.M)
    return next(p for p in parts if heading_name(p.split("\n", 1)[0]) == name)


def test_every_defect_is_in_the_known_defects_table(model_text: str) -> None:
    table = section(model_text, "known defects")
    assert [d.name for d in Defect if f"| `{d.name}` |" not in table] == []


def test_every_invariant_is_in_the_invariants_table(model_text: str) -> None:
    table = section(model_text, "invariants")
    assert [name for name in INVARIANTS if f"| `{name}` |" not in table] == []


def test_sections_are_numbered_in_order(model_text: str) -> None:
    numbers = [int(m) for m in re.findall(r"^## (\d+)\. ", model_text, re.M)]
    assert numbers == list(range(1, len(numbers) + 1))


def test_every_link_to_the_model_names_an_anchor(model_text: str) -> None:
    texts = {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8") for p in ROOT.glob("*.md")}
    texts |= {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8") for p in (ROOT / "docs").rglob("*.md")}
    assert broken_anchors(model_text, texts) == []


def test_the_old_section_map_names_existing_headings(model_text: str) -> None:
    lines = OLD_SECTION_MAP.read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("#") and "docs/model.md" in lines[0], "the first line must say what the file is"
    names = [heading_name(h) for h in headings(model_text)]
    targets = [
        re.sub(r"\s*\(.*?\)", "", t).strip()
        for line in lines
        if line and not line.startswith("#") and "\t" in line
        for t in line.split("\t", 1)[1].split(" | ")
    ]
    assert targets, "no mapping lines found"
    assert [t for t in targets if t != "docs/model.md" and not names_a_heading(t, names)] == []


def test_every_test_the_model_names_exists(model_text: str) -> None:
    defined = set()
    for path in (ROOT / "tests").glob("test_*.py"):
        defined |= set(re.findall(r"^\s*def (test_\w+)", path.read_text(encoding="utf-8"), re.M))
    named = set(re.findall(r"`(?:tests/)?(?:test_\w+\.py::)?(test_\w+)`", model_text))
    assert sorted(named - defined) == []


#: Number words the contract writes counts in.
NUMBERS = {
    w: n
    for n, w in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
            "twenty",
        ]
    )
}


def counts_of(text: str, noun: str) -> list[int]:
    """Every count the text gives of ``noun`` ("the fourteen invariants", "All 15 hold"), as numbers."""
    words = "|".join(NUMBERS)
    found = re.findall(rf"\b(?:the|all|its)\s+(\d+|{words})\s+{noun}\b", text, re.I)
    found += re.findall(rf"\ball\s+(\d+|{words})\s+hold\b", text, re.I) if noun == "invariants" else []
    return [int(w) if w.isdigit() else NUMBERS[w.lower()] for w in found]


def test_the_counts_the_model_gives_are_the_registries(model_text: str) -> None:
    """ "the fourteen invariants" once stayed after the fifteenth was added: a count is checked against its registry."""
    from reports.campaign.named_mutants import named_mutants

    removals = sum(1 for m in named_mutants() if m.kind == "removal")
    assert counts_of(model_text, "invariants") and set(counts_of(model_text, "invariants")) == {len(INVARIANTS)}
    assert set(counts_of(model_text, "removals")) <= {removals}


def test_a_wrong_count_is_caught() -> None:
    assert counts_of("the fourteen invariants; All fourteen hold", "invariants") == [14, 14]
    assert counts_of("its 3 removals", "removals") == [3]


def test_every_path_the_model_names_exists(model_text: str) -> None:
    """A backticked path with a folder (``strategies/cap.py``, ``invariants/properties/``) names a file or folder of
    the project, optionally followed by ``: symbol`` or ``::test``."""
    named = set(
        re.findall(
            r"`((?:docs|strategies|reference|invariants|reports|tests|examples|mutation|benchmarks)"
            r"/[\w./-]*)`",
            model_text,
        )
    )
    missing = sorted(p for p in named if not (ROOT / p.split("::")[0]).exists())
    assert missing == []
