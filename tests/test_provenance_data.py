"""The helpers that build the provenance tables (``strategies/provenance.py``, ``strategies/upstream.py``), called
here on small inputs: the module-level tables are built once at import, so only a direct call shows what a helper
does (a reading replaced by behaviour, a defect present at every tip, an unknown version refused)."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from strategies.defects import Defect
from strategies.provenance import VERSIONS, Reading, Version, _replacing
from strategies.upstream import BUGS, TIPS, Presence, _all_tips, _at, _positioned, _read, typescript_bugs

KNOWN = sorted(VERSIONS)
behaviours = st.sampled_from(["windows", "cap", "pairing", "pruning", "stripping"])
readings = st.builds(Reading, behaviours, st.tuples(st.sampled_from(["f", "g"])), st.sampled_from(KNOWN))


@given(st.lists(readings, unique_by=lambda r: r.behaviour), st.lists(readings, unique_by=lambda r: r.behaviour))
@example([Reading("cap", ("f",), "AB"), Reading("pairing", ("g",), "AB")], [Reading("cap", ("h",), "AB-H")])
@example([], [Reading("cap", ("h",), "AB-H")])
@example([Reading("cap", ("f",), "AB")], [])
def test_replacing_swaps_a_reading_in_place_and_appends_a_new_behaviour(old: list[Reading], new: list[Reading]) -> None:
    """A newer line's readings: each old reading whose behaviour a new one names gives way to it at the same place;
    the new behaviours the old readings lack follow, in the order given."""
    out = _replacing(tuple(old), *new)
    newer = {r.behaviour: r for r in new}
    assert len(out) == len(old) + sum(r.behaviour not in {o.behaviour for o in old} for r in new)
    for k, r in enumerate(old):
        assert out[k] == newer.get(r.behaviour, r)
    assert list(out[len(old) :]) == [r for r in new if r.behaviour not in {o.behaviour for o in old}]


def test_replacing_a_pinned_case() -> None:
    a, b, b2, c = (
        Reading("a", ("fa",), "AB"),
        Reading("b", ("fb",), "AB"),
        Reading("b", ("fb2",), "AB-R"),
        Reading("c", ("fc",), "AB-H"),
    )
    assert _replacing((a, b), c, b2) == (a, b2, c)


@pytest.mark.parametrize("make", [lambda v: Reading("cap", ("f",), v), lambda v: Presence(v, "truncateContent")])
def test_an_unknown_version_is_refused_with_its_name_and_a_known_one_is_taken(make) -> None:
    """A reading or a presence must cite a stored version (a key of ``VERSIONS``)."""
    assert make("AB-R").version == "AB-R"
    with pytest.raises(ValueError, match=r"unknown version 'AB-Z'") as info:
        make("AB-Z")
    assert ("'cap'" if "reading" in str(info.value) else "truncateContent") in str(info.value)


def test_at_and_read_say_where_and_whether_it_was_read() -> None:
    assert _at("AB-H", "f") == Presence("AB-H", "f", "", False)
    assert _at("AB-H", "f").at == "" and _at("AB-H", "f").read is False
    assert _at("AB-R", "g", "~1k", True) == Presence("AB-R", "g", "~1k", True)
    assert _at("AB-R", "g", "~1k") == Presence("AB-R", "g", "~1k", False)
    assert _read("AB-B", "h", "~2k") == Presence("AB-B", "h", "~2k", True)
    assert _read("AB-B", "h", "~2k").read is True


@given(read_at=st.dictionaries(st.sampled_from(TIPS), st.sampled_from(("~1k", "~3k", "~474.3k")), max_size=len(TIPS)))
@example(read_at={"AB-H": "~1k", "AB-BODY": "~3k"})
@example(read_at={})
def test_all_tips_is_every_tip_read_where_an_offset_is_named(read_at: dict[str, str]) -> None:
    """``_all_tips(function, read_at)``: one presence per tip in ``TIPS`` order; a tip ``read_at`` names was read at
    that offset, one it leaves out is taken from the research notes."""
    assert TIPS == ("AB-H", "AB-R", "AB-BODY", "AB-B", "AB")
    found = _all_tips("f", read_at)
    assert [p.version for p in found] == list(TIPS) and {p.function for p in found} == {"f"}
    for p in found:
        assert (p.at, p.read) == (read_at.get(p.version, ""), p.version in read_at), (p, read_at)


def test_a_presence_names_the_part_it_is_given_and_none_by_default() -> None:
    """The part of the function a report's Where row names: given, it is kept at every tip; left out, it is empty
    (the whole function)."""
    assert _at("AB-H", "f").part == "" and _at("AB-H", "f", part="its end").part == "its end"
    assert _read("AB-B", "h", "~2k").part == "" and _read("AB-B", "h", "~2k", part="its end").part == "its end"
    assert {p.part for p in _all_tips("f")} == {""}
    assert {p.part for p in _all_tips("f", {"AB-H": "~1k"}, part="its end")} == {"its end"}


def test_the_positioned_pairs_are_present_in_the_select_and_in_recall_pair_cost_at_every_tip() -> None:
    """The positioned pairs' pricing: the positioned emission of ``selectHierarchical`` (read where ``read_at`` says)
    and ``recallPairCost`` (read at the same offsets), one presence per tip each, in ``TIPS`` order."""
    read_at = {"AB-H": "~466.9k", "AB-B": "~467.3k"}
    found = _positioned(read_at)
    assert [(p.function, p.version) for p in found] == [
        *(("selectHierarchical", t) for t in TIPS),
        *(("recallPairCost", t) for t in TIPS),
    ]
    assert {p.part for p in found[: len(TIPS)]} == {"the positioned recall pairs' emission"}
    assert {p.part for p in found[len(TIPS) :]} == {""}
    assert [(p.at, p.read) for p in found] == 2 * [(read_at.get(t, ""), t in read_at) for t in TIPS]


def test_an_offset_keyed_by_a_name_that_is_no_tip_is_refused() -> None:
    """Offsets are keyed by tip, so a tip added to ``TIPS`` cannot shift another tip's offsets onto it; a key that
    names no tip (a typo, a tip renamed) fails at import, not in a report."""
    with pytest.raises(
        ValueError, match=r"^presence in f: 'AB-X' is not a tip \(TIPS: AB-H, AB-R, AB-BODY, AB-B, AB\)$"
    ):
        _all_tips("f", {"AB-H": "~1k", "AB-X": "~2k"})


def test_typescript_bugs_lists_every_report_once_in_the_order_of_defect() -> None:
    bugs = typescript_bugs()
    assert len(bugs) == len(BUGS) > 0
    assert {b.defect for b in bugs} == set(BUGS)
    assert all(BUGS[b.defect] is b for b in bugs)
    order = list(Defect)
    assert [order.index(b.defect) for b in bugs] == sorted(order.index(d) for d in BUGS)


@given(
    st.none() | st.sampled_from(["1c779181", "a95eb55b"]), st.none() | st.sampled_from(["71410013736", "57629941722"])
)
def test_a_version_is_shown_by_what_it_has_and_nothing_it_lacks(commit: str | None, stored_id: str | None) -> None:
    """A reader finds a version by its commit when it has one and by its stored id when it has one; a version with
    neither is known from its description only; nothing missing is shown (no "None")."""
    where = Version("X", "src/x.ts", "main", commit=commit, stored_id=stored_id).where
    assert ("None" in where) is False
    assert (f"commit {commit}" in where) == (commit is not None) and where.count("commit") == (commit is not None)
    assert (f"stored id {stored_id}" in where) == (stored_id is not None)
    assert where.count("stored id") == (stored_id is not None)
    assert (where == "its description only") == (commit is None and stored_id is None)
