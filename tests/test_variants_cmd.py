"""``cmharness variants`` (reports/variants.py): what each variant models, and docs/model.md's Variants table in step
with ``strategies.provenance``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from reports import cli
from strategies import defects as defect_sets
from strategies.defects import VARIANTS
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


def table_rows(text: str) -> list[list[str]]:
    """The body rows of the first markdown table in ``text``, cells stripped."""
    rows = [line for line in text.splitlines() if line.startswith("|")]
    return [[c.strip() for c in r.strip("|").split("|")] for r in rows[2:]]


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
    """docs/model.md, Variants: one row per variant with its line, commits, defect set and versions read."""
    rows = table_rows(section("## 18. Variants"))
    assert [r[0].strip("`") for r in rows] == list(MODELS)
    for name, line, commits, defects, read_at in rows:
        m = MODELS[name.strip("`")]
        assert line == (m.line or "—"), name
        assert commits == (", ".join(m.commits) or "—"), name
        assert set(read_at.split(", ")) == (set(m.versions) or {"—"}), name
        named = re.match(r"`(\w+)`", defects)
        assert (getattr(defect_sets, named.group(1)) if named else frozenset()) == m.defects, name


def test_every_version_cited_is_in_versions_read() -> None:
    """Each stored version the variants and the bug reports cite has a row in *Versions read* naming its commit
    (else its stored id)."""
    text = MODEL_MD.read_text(encoding="utf-8")
    start = text.index("**Versions read**")
    rows = {r[0]: r for r in table_rows(text[start : text.index("\n\n", text.index("|", start))])}
    for short, v in VERSIONS.items():
        assert short in rows, short
        assert (v.commit or v.stored_id or "") in " ".join(rows[short]), short
