"""Every commit the conformance corpus cites is declared by a variant (``strategies.provenance``: ``reproduces``,
``contrasts``), and every declaration is true: its scenario files cite its commit and test file, and their
expectations hold on the variant that declares them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from invariants.reproduce import compare, observe
from reference.expect import Expectation, expectation_for, variants_named
from reference.scenario import load_scenario
from reference.variant_names import HYSTERESIS, MAIN, RAW_FORMS, SOUND
from reports import cli
from strategies.provenance import CONFORMANCE_DIR, MODELS, UpstreamTest

pytestmark = pytest.mark.defect_table  # reads the defects and their reports: a named mutant edits that table

ROOT = Path(__file__).resolve().parents[1]
FILES = sorted((ROOT / CONFORMANCE_DIR).glob("*.scenario.json"))
#: A commit a scenario cites: in its upstream URL (``/blob/<commit>/``) or, without one, after ``@`` in its description.
CITED = (re.compile(r"/blob/([0-9a-f]{8,40})/"), re.compile(r"@ ([0-9a-f]{8,40})\b"))


def cited(path: Path) -> str:
    """The commit a conformance scenario cites, as 8 hex digits."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    for pattern, text in zip(CITED, (doc.get("source") or "", doc.get("description") or ""), strict=True):
        if m := pattern.search(text):
            return m[1][:8]
    raise AssertionError(f"{path.name} cites no commit")


def declared(relation: str, commit: str, path: Path) -> set[str]:
    """The variants whose ``relation`` (reproduces or contrasts) holds a test at ``commit`` listing ``path``."""
    rel = path.relative_to(ROOT).as_posix()
    return {m.name for m in MODELS.values() for t in getattr(m, relation) if t.commit == commit and rel in t.paths}


def holds(path: Path, variant: str, expectation: Expectation) -> bool:
    sc = load_scenario(path)
    needs = expectation.breaks is not None or expectation.holds
    return all(line.ok for line in compare(expectation, observe(sc, variant, invariants=needs)))


def declarations(relation: str) -> list[tuple[str, UpstreamTest]]:
    return [(m.name, t) for m in MODELS.values() for t in getattr(m, relation)]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name.removesuffix(".scenario.json"))
def test_the_commit_a_conformance_scenario_cites_is_reproduced_by_a_variant(path: Path) -> None:
    commit = cited(path)
    assert declared("reproduces", commit, path), f"{path.name} cites {commit}, which no variant reproduces"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name.removesuffix(".scenario.json"))
def test_each_variant_an_expect_names_declares_the_cited_commit(path: Path) -> None:
    """A variant the file expects something of reproduces the cited test, or is pinned apart from it."""
    commit = cited(path)
    named = set(variants_named(load_scenario(path).expect))
    missing = named - declared("reproduces", commit, path) - declared("contrasts", commit, path)
    assert not missing, f"{path.name} names {sorted(missing)}, which declare nothing of {commit}"


@pytest.mark.parametrize(("variant", "test"), declarations("reproduces"), ids=lambda x: getattr(x, "commit", x))
def test_a_reproduced_test_holds_on_the_variant_that_declares_it(variant: str, test: UpstreamTest) -> None:
    """Each file cites the test's commit and file; its expectation holds on the variant: the variant's own where the
    file names it, else the one every reproducing variant it names shares."""
    assert re.fullmatch(r"[0-9a-f]{8}", test.commit) and test.scenarios
    for rel in test.paths:
        path = ROOT / rel
        sc = load_scenario(path)
        assert cited(path) == test.commit and test.test_file in (sc.source or ""), rel
        own = expectation_for(sc.expect, variant)
        if own is None:
            shared = {repr(expectation_for(sc.expect, v)) for v in declared("reproduces", test.commit, path)} - {"None"}
            assert len(shared) == 1, f"{rel}: the reproducing variants it names expect different things"
            own = next(expectation_for(sc.expect, v) for v in variants_named(sc.expect))
        assert holds(path, variant, own), f"{rel} does not hold on {variant}"


@pytest.mark.parametrize(("variant", "test"), declarations("contrasts"), ids=lambda x: getattr(x, "commit", x))
def test_a_contrast_names_the_variant_with_an_expectation_of_its_own(variant: str, test: UpstreamTest) -> None:
    """A variant pinned apart from a test: the file names it, its own expectation holds and differs from what the
    reproducing variants are expected to do."""
    for rel in test.paths:
        path = ROOT / rel
        sc = load_scenario(path)
        own = expectation_for(sc.expect, variant)
        assert own is not None and holds(path, variant, own), rel
        others = {repr(expectation_for(sc.expect, v)) for v in declared("reproduces", test.commit, path)}
        assert repr(own) not in others, f"{rel}: {variant} is expected to do what the test pins"


def test_variants_json_names_every_reproduced_commit_with_its_files(capsys) -> None:
    assert cli.main(["variants", "--json"]) == 0
    doc = {v["name"]: v for v in json.loads(capsys.readouterr().out)["variants"]}
    for name, m in MODELS.items():
        shown = [(t["commit"], t["test_file"], tuple(t["scenarios"])) for t in doc[name]["reproduces"]]
        assert shown == [(t.commit, t.test_file, t.paths) for t in m.reproduces], name
        assert [t["commit"] for t in doc[name]["contrasts"]] == [t.commit for t in m.contrasts], name


@pytest.mark.harness  # the command's wording, made in reports/cli/variants.py, which no mutant changes
def test_variants_text_says_which_tests_each_variant_reproduces(capsys) -> None:
    assert cli.main(["variants"]) == 0
    lines = capsys.readouterr().out.splitlines()
    for name, m in MODELS.items():
        block = lines[lines.index(f"{name}:") :]
        line = next(ln for ln in block if ln.startswith("  reproduces the tests of: "))
        assert all(f"{t.commit} {t.test_file} ({len(t.scenarios)} scenario file" in line for t in m.reproduces)
        assert (line == "  reproduces the tests of: none") == (not m.reproduces), name


def test_main_reproduces_the_structural_order_and_recall_positioning_tests() -> None:
    """Their assertions hold on main's line, as on the newer lines that keep its code there."""
    for name in (MAIN, HYSTERESIS, RAW_FORMS):
        assert {"2615289f", "ccc74a5e"} <= {t.commit for t in MODELS[name].reproduces}, name
    assert MODELS[SOUND].reproduces == ()
