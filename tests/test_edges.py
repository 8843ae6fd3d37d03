"""The Z3 rounding edges (invariants/edges/) and their witness corpus (invariants/witnesses.json).

(a) every corpus witness checked again in plain Python (math, fractions), never through Z3;
(b) every witness scenario compiled on every variant, with the sound invariants checked locally;
(c) the searches rerun and reproduce the corpus;
(d) the witnesses that break a faithful variant, red there and green on ``sound``.
"""

from __future__ import annotations

import argparse
import io
import math
from fractions import Fraction

import pytest

from invariants import edges
from invariants.edges import EDGES, load_corpus, witness_scenarios
from reference.model import Budget
from reference.price import reference_price
from reports import cli
from strategies import VARIANTS, HierarchicalStrategy, InvalidConfigError, OverBudgetError, UncoveredDropError

CORPUS = load_corpus()
WITNESSES = {edge: CORPUS.edges[edge].witnesses for edge in EDGES}
SCENARIOS = {name: (store, config, budget) for name, store, config, budget in witness_scenarios(CORPUS)}
DENSE = set('{}[]":_/=`')
MARKER = "\n\n[truncated — original was {} tokens]"


def grace_limit(budget: int, g: float) -> float:
    return math.floor(budget * (1 + g))


def js_round(x: float) -> int:
    """Math.round for finite x: halves up (x - floor(x) is exact for doubles)."""
    f = math.floor(x)
    return f + 1 if x - f >= 0.5 else f


def exact_ceil(numerator: int, denominator: int) -> int:
    return -(-numerator // denominator)


def prose_tokens(units: int) -> int:
    """text_tokens of a prose string (no dense units) of ``units`` UTF-16 units, in doubles."""
    return math.ceil(units / 2.9) if units else 0


def text_tokens(text: str) -> int:
    """The estimator's text_tokens (docs/model.md) for BMP strings, written out again (not reference.estimator)."""
    if not text:
        return 0
    probe = text[:2000]
    dense = sum(1 for ch in probe if ord(ch) > 126 or ch in DENSE)
    return math.ceil(len(text) / (2.3 if dense / len(probe) > 0.12 else 2.9))


def smallest_budget(price: int, g: float) -> int:
    b = 0
    while grace_limit(b, g) < price:
        b += 1
    return b


@pytest.mark.harness
def test_the_corpus_is_versioned_and_covers_every_edge():
    assert CORPUS.version == edges.CORPUS_VERSION
    assert list(CORPUS.edges) == list(EDGES)
    for edge in EDGES:
        entry = CORPUS.edges[edge]
        assert entry.status in ("found", "proved-empty")
        assert (entry.status == "found") == bool(entry.witnesses)


# ----------------------------------------------------------------------------- (a) the witnesses, in plain Python


@pytest.mark.harness
def test_ieee_division_witnesses():
    for w in WITNESSES["ieee-division"]:
        length, rate = w["length"], w["rate"]
        assert length / rate == w["quotient"]
        assert math.ceil(length / rate) == w["double_ceil"]
        assert math.ceil(Fraction(length) / Fraction(str(rate))) == w["exact_ceil"] != w["double_ceil"]
    assert math.ceil(69 / 2.3) == 31 and math.ceil(Fraction(69) / Fraction("2.3")) == 30


@pytest.mark.harness
def test_ieee_division_witnesses_are_the_smallest_per_binade_and_2_9_has_none():
    limit = edges.DIVISION_MAX
    for rate, num, den in edges.DIVISION_RATES:
        smallest: dict[int, int] = {}
        for length in range(1, limit + 1):
            exact = exact_ceil(length * den, num)
            if math.ceil(length / rate) != exact:
                smallest.setdefault(exact.bit_length(), length)
        found = [w["length"] for w in WITNESSES["ieee-division"] if w["rate"] == rate]
        assert found == sorted(smallest.values()), rate
    assert not [w for w in WITNESSES["ieee-division"] if w["rate"] == 2.9]


@pytest.mark.harness
def test_js_round_half_witnesses():
    for w in WITNESSES["js-round-half"]:
        c = w["calibration"]
        assert c == float(w["calibration_decimal"]) and 0.25 < c < 4
        if w["kind"].startswith("per-block"):
            a, b = w["raws"]
            assert js_round(a * c) + js_round(b * c) == w["per_block"]
            assert js_round((a + b) * c) == w["summed"]
            assert (w["per_block"] - w["summed"]) * (1 if w["kind"] == "per-block-above-sum" else -1) >= 1
            continue
        product = w["raw"] * c
        assert product == w["product"] and product % 1 == 0.5
        assert js_round(product) == w["js_round"] == math.floor(product) + 1
        assert round(product) == w["python_round"] == math.floor(product)  # ties to even: floor is even
        exact = Fraction(w["raw"]) * Fraction(c)  # the exact product of the two doubles
        assert (exact == Fraction(product)) == (w["kind"] == "exact-tie")


@pytest.mark.harness
def test_js_round_half_witnesses_are_the_smallest_raw_per_calibration():
    smallest = {}
    for d in edges.CALIBRATIONS:
        c = d / edges.CALIBRATION_STEP
        smallest[c] = next(
            (r for r in range(1, edges.RAW_MAX + 1) if (r * c) % 1 == 0.5 and math.floor(r * c) % 2 == 0), None
        )
    found = {w["calibration"]: w["raw"] for w in WITNESSES["js-round-half"] if "raw" in w}
    assert found == {c: r for c, r in smallest.items() if r is not None}
    proved = CORPUS.edges["js-round-half"].proofs
    assert len(proved) == sum(r is None for r in smallest.values())


def thinking_price(t_units: int, s_units: int, epoch: int) -> int:
    t = prose_tokens(t_units)
    if not s_units:
        return t
    if epoch == 0:
        return 600 if t_units == 0 else t
    return max(t, js_round(s_units / 3.3))


@pytest.mark.harness
def test_epoch_predicate_witnesses():
    ws = {w["kind"]: w for w in WITNESSES["epoch-predicate"]}
    for w in ws.values():
        t, sig = w["thinking_units"], w["signature_units"]
        if "price_epoch0" in w:
            assert thinking_price(t, sig, 0) == w["price_epoch0"]
            assert thinking_price(t, sig, 1) == w["price_epoch1"]
    assert ws["signed-empty"]["price_epoch0"] != ws["signed-empty"]["price_epoch1"]
    assert ws["signed-text"]["price_epoch0"] != ws["signed-text"]["price_epoch1"]
    for budget_epoch in (0, 1):
        w = ws[f"store-budget-at-epoch{budget_epoch}-refuses-at-epoch{1 - budget_epoch}"]
        priced, other = w[f"price_epoch{budget_epoch}"], w[f"price_epoch{1 - budget_epoch}"]
        assert w["budget"] == smallest_budget(priced, 0.02) and w["grace_limit"] == grace_limit(w["budget"], 0.02)
        assert other > w["grace_limit"]
        size = w["thinking_units"] + w["signature_units"]
        smaller = [
            (t, s)
            for t in range(size)
            for s in range(1, size - t)
            if thinking_price(t, s, 1 - budget_epoch)
            > grace_limit(smallest_budget(thinking_price(t, s, budget_epoch), 0.02), 0.02)
        ]
        assert smaller == [], f"a smaller store than {size} units refuses after the flip"
    fallback = ws["main-fallback-prices-carriers-at-epoch1"]
    assert fallback["main_charged"] <= fallback["grace_limit"] < fallback["reference_price"]


@pytest.mark.harness
def test_epoch_predicate_proofs_hold_exhaustively():
    # The integer forms the search relies on (and the stamped / unsigned rows, which never differ).
    assert all(js_round(s / 3.3) == (20 * s + 33) // 66 for s in range(edges.SIGNATURE_MAX + 1))
    assert all(thinking_price(t, 0, 0) == thinking_price(t, 0, 1) for t in range(2000))


@pytest.mark.harness
def test_grace_limit_witnesses():
    for w in WITNESSES["grace-limit"]:
        g, b = w["grace"], w["budget"]
        assert g == float(w["grace_decimal"])
        assert b * (1 + g) == w["product"]
        assert math.floor(b * (1 + g)) == w["double_limit"]
        assert math.floor(b * (1 + Fraction(w["grace_decimal"]))) == w["exact_limit"] != w["double_limit"]
        assert w["direction"] == (
            "refuses-a-total-expected-to-pass"
            if w["double_limit"] < w["exact_limit"]
            else "passes-a-total-expected-to-refuse"
        )
        d = round(g * 100)
        assert all(math.floor(x * (1 + g)) == x * (100 + d) // 100 for x in range(1, b)), "not the smallest budget"
    # The default grace and every ratio proved empty: checked here for budgets up to 20000.
    found = {w["grace"] for w in WITNESSES["grace-limit"]}
    for d in edges.GRACE_PERCENTS:
        g = d / 100
        if g not in found:
            assert all(math.floor(x * (1 + g)) == x * (100 + d) // 100 for x in range(1, 20001)), g


@pytest.mark.harness
def test_cap_units_witnesses():
    for w in WITNESSES["cap-units"]:
        cap = w["cap"]
        if w["kind"].startswith("xml-"):
            first = exact_ceil(w["lengths"][0], 4)
            takes = first if first <= cap else exact_ceil(math.floor(4 * cap) + len(MARKER.format(first)), 4)
            left = cap - takes - 2  # remaining - sep at the second summary
            assert takes == w["first_takes"] and left == w["left_for_second"]
            assert w["held"] == (["L1-0"] if left <= 0 else ["L1-0", "L1-1"])
            continue
        length = w["length"]
        assert exact_ceil(length, 4) > cap  # the cap cuts
        sent = "a" * (4 * cap) + MARKER.format(exact_ceil(length, 4))
        assert w["original_tokens"] == prose_tokens(length) and w["sent_tokens"] == text_tokens(sent)
        assert w["faithful_price"] == min(w["original_tokens"], cap + 50) < w["sent_tokens"]
        assert (w["kind"] == "cap-plus-50") == (w["original_tokens"] > cap + 50)
        assert w["budget"] == smallest_budget(w["faithful_price"], 0.02)
        assert w["faithful_price"] <= w["grace_limit"] == grace_limit(w["budget"], 0.02) < w["sent_tokens"]


@pytest.mark.harness
def test_density_threshold_witnesses():
    for w in WITNESSES["density-threshold"]:
        text = edges.density_string(w["length"], w["probe_dense"], w["tail_dense"])
        assert len(text) == w["length"]
        assert sum(ch in DENSE for ch in text[:2000]) == w["probe_dense"]
        assert sum(ch in DENSE for ch in text[2000:]) == w["tail_dense"]
        assert text_tokens(text) == w["tokens"] == math.ceil(w["length"] / w["rate"])
        whole = (w["probe_dense"] + w["tail_dense"]) / w["length"] > 0.12
        if w["kind"] == "exact-threshold":
            assert Fraction(w["probe_dense"], w["length"]) == Fraction(12, 100) and w["rate"] == 2.9
        if "tokens_one_more_dense" in w:
            assert math.ceil(w["length"] / 2.3) == w["tokens_one_more_dense"] != w["tokens"]
        else:
            assert whole != (w["rate"] == 2.3)  # the probe decides, against the whole string
            assert math.ceil(w["length"] / (2.3 if whole else 2.9)) == w["tokens_if_whole_probed"]


@pytest.mark.harness
def test_density_comparison_is_exact_for_every_probe_length():
    assert all((d / n > 0.12) == (25 * d > 3 * n) for n in range(1, 2001) for d in range(n + 1))


# ----------------------------------------------------------------------------- (b) every scenario on every variant

#: What ``sound`` does with each scenario at its budget.
SOUND_OUTCOME = {
    "ieee-division": "sends",
    "js-round-half": "sends",
    "density-threshold": "sends",
    "grace-limit": OverBudgetError,
    "cap-units/marker": OverBudgetError,
    "cap-units/cap-plus-50": OverBudgetError,
    "cap-units/xml-drop-at-boundary": UncoveredDropError,
    "cap-units/xml-admit": "sends",
    "epoch-predicate/main-fallback": OverBudgetError,
}


def expected_sound_outcome(name: str):
    if name.startswith("epoch-predicate/store-"):
        return "sends" if name.endswith("-sends") else OverBudgetError
    return next(v for k, v in SOUND_OUTCOME.items() if name.startswith(k))


def compile_once(name: str, variant: str):
    store, config, budget = SCENARIOS[name]
    strategy = HierarchicalStrategy(config, variant)
    strategy.initialize(store)
    try:
        return strategy.compile(budget)
    except (OverBudgetError, UncoveredDropError, InvalidConfigError) as err:
        return err


@pytest.mark.harness
def test_every_edge_gives_scenarios():
    assert {name.split("/")[0] for name in SCENARIOS} == set(EDGES)


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("name", list(SCENARIOS))
def test_witness_scenario_on_every_variant(name, variant):
    store, config, budget = SCENARIOS[name]
    outcome = compile_once(name, variant)
    again = compile_once(name, variant)
    if isinstance(outcome, Exception):
        assert type(again) is type(outcome) and str(again) == str(outcome)
    else:
        assert again.entries == outcome.entries and again.stats == outcome.stats
    if variant != "sound":
        return
    expected = expected_sound_outcome(name)
    if expected != "sends":
        assert isinstance(outcome, expected), f"sound: {outcome!r}"
        return
    assert not isinstance(outcome, Exception), f"sound refuses: {outcome}"
    price = reference_price(outcome.entries, store, config)
    assert outcome.stats.total.tokens == price
    assert price <= grace_limit(budget.input_budget, config.over_budget_grace_ratio)


def test_witness_scenarios_sit_at_the_exact_budget_where_sound_sends():
    # One token less and the sound compile refuses: the witness is on the edge, not near it.
    for name, (store, config, budget) in SCENARIOS.items():
        if expected_sound_outcome(name) != "sends" or name.startswith("cap-units/xml"):
            continue
        strategy = HierarchicalStrategy(config, "sound")
        strategy.initialize(store)
        if budget.max_tokens == 0:
            continue
        with pytest.raises(OverBudgetError):
            strategy.compile(Budget(max_tokens=budget.max_tokens - 1))


# ----------------------------------------------------------------------------- (c) the searches reproduce the corpus


@pytest.mark.harness
@pytest.mark.parametrize("edge", EDGES)
def test_search_reproduces_the_corpus(edge):
    [result] = edges.run_edges([edge])
    assert result.edge == edge
    assert result.corpus_entry() == CORPUS.edges[edge]


@pytest.mark.harness
def test_edges_command_prints_the_table_and_checks_the_corpus(capsys):
    assert cli.main(["edges", "--only", "density-threshold"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].split() == ["edge", "result", "witness", "seconds"]
    assert "density-threshold  found" in out and "witnesses.json: matches" in out


@pytest.mark.harness
def test_edges_command_writes_the_corpus(tmp_path, monkeypatch):
    path = tmp_path / "witnesses.json"
    monkeypatch.setattr(edges.witness_corpus, "CORPUS_PATH", path)
    parser = argparse.ArgumentParser()
    edges.add_edges_arguments(parser)
    out = io.StringIO()
    assert edges.edges_command(parser.parse_args(["--write", "--only", "density-threshold"]), out) == 0
    written = load_corpus(path)
    assert written.version == edges.CORPUS_VERSION
    assert written.edges == {"density-threshold": CORPUS.edges["density-threshold"]}
    assert "wrote 1 edge(s)" in out.getvalue()


@pytest.mark.harness
def test_an_unknown_corpus_version_is_refused(tmp_path):
    path = tmp_path / "witnesses.json"
    path.write_text('{"version": 999, "edges": {}}')
    with pytest.raises(ValueError, match="version 999"):
        load_corpus(path)


# ----------------------------------------------------------------------------- (d) faithful-variant breaks


def sent_over_the_grace_limit(name: str, variant: str) -> None:
    """Compile the witness at its budget: a refusal is fine; a send must be priced within the grace limit."""
    store, config, budget = SCENARIOS[name]
    strategy = HierarchicalStrategy(config, variant)
    strategy.initialize(store)
    try:
        result = strategy.compile(budget)
    except OverBudgetError:
        return
    price = reference_price(result.entries, store, config)
    limit = grace_limit(budget.max_tokens, config.over_budget_grace_ratio)
    assert price <= limit, f"{variant} sends a context the reference prices {price}, over the grace limit {limit}"


@pytest.mark.red_on("main-48bb87a1", "pr-8bb01ab8")
def test_raw_cap_plus_50_sends_over_the_grace_limit(variant):
    # cap 97, 427 prose units: priced min(148, 97 + 50) = 147 at budget 145 (limit 147); truncate sends 148.
    sent_over_the_grace_limit("cap-units/cap-plus-50", variant)


@pytest.mark.red_on("main-48bb87a1", "pr-8bb01ab8")
def test_raw_cap_marker_sends_over_the_grace_limit(variant):
    # cap 1, 5 prose units: priced E = 2; truncate sends 4 units and the marker, 15 tokens.
    sent_over_the_grace_limit("cap-units/marker", variant)


@pytest.mark.red_on("main-48bb87a1")
def test_main_prices_an_epoch0_carrier_at_epoch1(variant):
    # Thinking("", signature "s") as a summary's carrier at epoch 0: E says 600, main's fallback 0.
    sent_over_the_grace_limit("epoch-predicate/main-fallback-prices-carriers-at-epoch1", variant)


@pytest.mark.red_on("main-48bb87a1", "pr-8bb01ab8")
def test_xml_cap_drops_a_summary_at_the_boundary_silently(variant):
    # cap 3: the first summary takes 1, remaining - sep == 0 leaves the second out; its messages are lost.
    store, config, budget = SCENARIOS["cap-units/xml-drop-at-boundary"]
    strategy = HierarchicalStrategy(config, variant)
    strategy.initialize(store)
    try:
        result = strategy.compile(budget)
    except UncoveredDropError as err:
        assert set(err.dropped) == {"m3", "m4"}
        return
    sent = {e.message_id for e in result.entries if e.kind == "raw"}
    held = {m for e in result.entries for s in e.summary_ids for m in store.leaves(s)}
    assert {m.id for m in store.messages} <= sent | held, "a message is neither sent nor held"


@pytest.mark.harness
@pytest.mark.parametrize(
    "text, says",
    [
        ('{"version": 1, "edges": {"grace-limit": {"status": "maybe"}}}', "edges.grace-limit.status: input should be"),
        ('{"version": 1, "edges": {"grace-limit": []}}', "edges.grace-limit: input should be"),
        ('{"version": 1, "edges": ', "the file: invalid json"),
    ],
    ids=["status", "entry", "syntax"],
)
def test_a_damaged_corpus_is_one_line_naming_the_file_and_field(tmp_path, monkeypatch, capsys, text, says):
    """``cmharness edges`` compares its searches with the corpus: a damaged one is a bad input, exit 2."""
    path = tmp_path / "witnesses.json"
    path.write_text(text, encoding="utf-8")
    monkeypatch.setattr(edges.witness_corpus, "CORPUS_PATH", path)
    assert cli.main(["edges", "--only", "density-threshold"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert f"error: {path}: " in err and says in err.lower()
