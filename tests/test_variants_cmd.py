"""``cmharness variants`` (reports/cli/variants.py): what each variant models, and docs/model.md's Variants table
in step
with ``strategies.provenance``."""

from __future__ import annotations

import json
import re
from itertools import takewhile
from pathlib import Path

import pytest

from reports import cli
from strategies import defects as defect_sets
from strategies.defects import VARIANTS, Defect
from strategies.provenance import MODELS, VERSIONS

pytestmark = pytest.mark.harness

MODEL_MD = Path(__file__).resolve().parents[1] / "docs" / "model.md"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def section(heading: str) -> str:
    """The text of docs/model.md from ``heading`` to the next ``## `` heading."""
    text = MODEL_MD.read_text(encoding="utf-8")
    start = text.index(heading)
    end = text.find("\n## ", start + len(heading))
    return text[start : end if end != -1 else len(text)]


def table(text: str) -> list[dict[str, str]]:
    """The first markdown table in ``text``: one dict per body row, keyed by the header's cells."""
    lines = text.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("|"))
    block = takewhile(lambda line: line.startswith("|"), lines[first:])
    rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in block]
    return [dict(zip(rows[0], r, strict=True)) for r in rows[2:]]


def defect_set(cell: str) -> frozenset:
    """A Variants-table defects cell as a set: the sets and defects named before any ``:`` (prose after it)."""
    names = re.findall(r"`(\w+)`", cell.split(":")[0])
    found: frozenset = frozenset()
    for n in names:
        found |= getattr(defect_sets, n) if isinstance(getattr(defect_sets, n, None), frozenset) else {Defect[n]}
    return found


def test_every_variant_says_what_it_models() -> None:
    assert list(MODELS) == list(VARIANTS)
    for name, m in MODELS.items():
        assert m.defects == VARIANTS[name]
        assert bool(m.commits) == bool(m.readings) == bool(m.line), name


def test_variants_text_names_each_variant_its_commits_and_where_it_was_read(capsys) -> None:
    code, out, err = run(capsys, "variants")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    for name, m in MODELS.items():
        (row,) = [ln for ln in lines if ln.startswith(name + " ")]
        assert (", ".join(m.commits) or "(none)") in row
        assert f"{name}:" in lines
        for r in m.readings:
            v = VERSIONS[r.version]
            assert f"    {r.behaviour}: {', '.join(r.functions)} ({v.file}, {v.where})" in lines
    assert "  behaviour read at: no TypeScript (it models no commit)" in lines


def test_variants_json_names_the_commit_of_every_variant(capsys) -> None:
    code, out, _ = run(capsys, "variants", "--json")
    assert code == 0
    doc = json.loads(out)["variants"]
    assert [v["name"] for v in doc] == list(VARIANTS)
    for v in doc:
        assert set(v["defects"]) == {d.name for d in VARIANTS[v["name"]]}
        if v["name"] == "sound":
            assert (v["commits"], v["line"], v["readings"]) == ([], None, [])
            assert "models no commit" in v["models"]
            continue
        assert v["commits"] and v["line"]
        for r in v["readings"]:
            assert r["functions"] and r["file"] and (r["commit"] or r["stored_id"] or r["version"] == "seed")


def test_the_variants_table_here_is_the_data() -> None:
    """docs/model.md, Variants: one row per variant with its line, commits, defect set and versions read (columns
    found by their header, so the table may carry others)."""
    rows = table(section("## 18. Variants"))
    assert [r["variant"].strip("`") for r in rows] == list(MODELS)
    for row in rows:
        name = row["variant"].strip("`")
        m = MODELS[name]
        assert row["TypeScript line"] == (m.line or "—"), name
        assert row["commits"] == (", ".join(m.commits) or "—"), name
        assert set(row["read at"].split(", ")) == ({r.version for r in m.readings} or {"—"}), name
        assert defect_set(row["defects"]) == m.defects, name


def test_every_version_cited_is_in_versions_read() -> None:
    """Each stored version the variants and the bug reports cite has a row in *Versions read* naming its commit
    (else its stored id)."""
    text = MODEL_MD.read_text(encoding="utf-8")
    start = text.index("**Versions read**")
    rows = {r["short name"]: " ".join(r.values()) for r in table(text[start:])}
    for short, v in VERSIONS.items():
        assert short in rows, short
        assert (v.commit or v.stored_id or "") in rows[short], short
