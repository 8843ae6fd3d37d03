"""The cap-units edge: caps where the cap's chars/4 arithmetic and the estimator disagree at a boundary
(a capped raw message priced below what is sent, the xml combined answer's second summary at the edge)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from fractions import Fraction

import z3

from invariants.edges.compile_checks import VARIANT_NAMES, compile_outcome, exact_budget
from invariants.edges.division import division_witnesses
from invariants.edges.results import EdgeResult, Witness, confirm, edge_result
from invariants.edges.solver import int_value, ints, minimize_lex
from reference.estimator import content_tokens
from reference.model import Budget, Config, Message, Store, Summary, Text
from reference.variant_names import PR, SOUND
from strategies.cap import truncate
from strategies.pricing import grace_limit
from strategies.recall import combined_answer

CAP_MAX = 10_000
PROSE_MAX = 100_000  # lengths where ceil(L / 2.9) is exact (proved by ieee-division)
MARKER_FIXED = len("\n\n[truncated — original was ") + len(" tokens]")  # plus the digits of N (all BMP)
XML_HALF_CAP_MAX = 400  # xml caps 0.5 .. 200 in halves
XML_LENGTH_MAX = 4_000
SEPARATOR_TOKENS = 2  # text_only of "\n\n---\n\n"


def search_cap_units(cap_max: int = CAP_MAX) -> EdgeResult:
    """Caps where the cap's chars/4 arithmetic and the estimator disagree at a boundary.

    Raw messages (one prose Text of ``L`` units, integer cap ``c``): the faithful price
    ``min(E, c + 50)`` below ``E`` of what ``truncate`` sends, the smallest cap where the marker alone
    does it (``E <= c + 50``), and the smallest where ``c + 50`` binds. The xml combined answer (two
    prose summaries, caps in halves): the smallest caps where the second summary is left out exactly at
    ``remaining - sep == 0``, and admitted at ``remaining - sep == 1`` (an integer cap) and ``== 0.5``.
    Each is confirmed by ``strategies.cap.truncate`` / ``strategies.recall.combined_answer``.
    """
    start = time.perf_counter()
    confirm(not division_witnesses(2.9, 29, 10, PROSE_MAX), "ceil(L / 2.9) is not exact")
    witnesses = [_raw_cap_witness(kind, cap_max) for kind in ("marker", "cap-plus-50")]
    witnesses += [_xml_witness(kind) for kind in ("xml-drop-at-boundary", "xml-admit-at-boundary", "xml-admit-at-half")]
    return edge_result(
        "cap-units",
        start,
        witnesses,
        f"raw: one prose Text, L in 1..{PROSE_MAX}, integer cap 1..{cap_max}; xml: two prose summaries "
        f"of 1..{XML_LENGTH_MAX} units, cap 0.5..{XML_HALF_CAP_MAX // 2} in halves",
        [f"ceil(L / 2.9) is exact for L <= {PROSE_MAX}"],
    )


def _digits(s: z3.Solver, n: z3.ArithRef, name: str) -> z3.ArithRef:
    """The number of decimal digits of ``n`` (1 <= n < 10**6)."""
    digits: z3.ArithRef = z3.IntVal(6)
    for k in range(5, 0, -1):
        digits = z3.If(n < 10**k, k, digits)
    named = z3.Int(name)
    s.add(named == digits)
    return named


def _ceil_div(s: z3.Solver, numerator: z3.ArithRef, divisor: int, name: str, scale: int = 1) -> z3.ArithRef:
    """``ceil(numerator * scale / divisor)`` as a new integer variable."""
    q = z3.Int(name)
    s.add(divisor * (q - 1) < scale * numerator, scale * numerator <= divisor * q)
    return q


def _raw_cap_witness(kind: str, cap_max: int) -> Witness:
    s = z3.Solver()
    cap, length = ints("cap", "L")
    s.add(cap >= 1, cap <= cap_max, length >= 1, length <= PROSE_MAX)
    n = _ceil_div(s, length, 4, "N")  # the marker's "original was N tokens", and text_only of the message
    s.add(n > cap)  # the cap cuts
    sent_length = 4 * cap + MARKER_FIXED + _digits(s, n, "digits")
    original = _ceil_div(s, length, 29, "E_original", 10)
    sent = _ceil_div(s, sent_length, 29, "E_sent", 10)  # prose: the marker's 3 dense units are < 12%
    if kind == "marker":
        s.add(original <= cap + 50, original < sent)
    else:
        s.add(original > cap + 50, cap + 50 < sent)
    model = minimize_lex(s, (length, cap))  # the smallest store, then the smallest cap
    confirm(model is not None, f"no {kind} cap")
    c, size = int_value(model, cap), int_value(model, length)
    store, config = raw_cap_store(size), Config(max_message_tokens=c)
    content = store.messages[0].content
    e_original, e_sent = content_tokens(content, store), content_tokens(truncate(content, c), store)
    faithful = min(e_original, c + 50)
    confirm(faithful < e_sent and e_sent == int_value(model, sent), f"cap {c}, L {size}: {faithful} vs {e_sent}")
    budget = exact_budget(faithful, config)
    outcomes = {name: compile_outcome(store, config, Budget(max_tokens=budget), name) for name in VARIANT_NAMES}
    confirm(outcomes[PR] == "sends" and outcomes[SOUND] == "OverBudgetError", f"{kind}: {outcomes}")
    return {
        "kind": kind,
        "cap": c,
        "length": size,
        "original_tokens": e_original,
        "faithful_price": faithful,
        "sent_tokens": e_sent,
        "budget": budget,
        "grace_limit": grace_limit(budget, config),
        "outcomes": outcomes,
    }


def raw_cap_store(length: int) -> Store:
    """One message holding one prose Text of ``length`` units."""
    return Store(messages=(Message(id="m1", participant="User", content=(Text("a" * length),)),))


def _xml_witness(kind: str) -> Witness:
    s = z3.Solver()
    half_cap, l1, l2 = ints("C", "L1", "L2")  # cap = C / 2
    s.add(half_cap >= 1, half_cap <= XML_HALF_CAP_MAX, l1 >= 1, l1 <= XML_LENGTH_MAX, l2 >= 1, l2 <= XML_LENGTH_MAX)
    n1 = _ceil_div(s, l1, 4, "N1")
    fits = 2 * n1 <= half_cap  # text_only(prose) <= cap: sent whole
    cut = _ceil_div(s, 2 * half_cap + MARKER_FIXED + _digits(s, n1, "digits1"), 4, "cut1")  # floor(4 cap) = 2C
    taken = z3.If(fits, n1, cut)  # text_only of the first summary as capped
    twice_left = half_cap - 2 * taken - 2 * SEPARATOR_TOKENS  # 2 * (remaining - sep) at the second summary
    s.add(twice_left == {"xml-drop-at-boundary": 0, "xml-admit-at-boundary": 2, "xml-admit-at-half": 1}[kind])
    if kind == "xml-admit-at-boundary":
        s.add(half_cap % 2 == 0)
    model = minimize_lex(s, (half_cap, l1, l2))
    confirm(model is not None, f"no {kind} cap")
    cap = int_value(model, half_cap) / 2
    cap = int(cap) if cap == int(cap) else cap
    lengths = [int_value(model, l1), int_value(model, l2)]
    summaries = xml_summaries(lengths)
    answer = combined_answer(summaries, Config(recall_envelope="xml", max_message_tokens=cap))
    held = [x.id for x in answer.held]
    confirm(held == (["L1-0"] if kind == "xml-drop-at-boundary" else ["L1-0", "L1-1"]), f"{kind}: held {held}")
    left = Fraction(int_value(model, twice_left), 2)
    return {
        "kind": kind,
        "cap": cap,
        "lengths": lengths,
        "first_takes": int_value(model, taken),
        "left_for_second": int(left) if left.denominator == 1 else float(left),
        "held": held,
    }


def xml_summaries(lengths: Sequence[int]) -> tuple[Summary, ...]:
    """Prose summaries ``L1-k`` of ``lengths[k]`` units, each over two messages ``m{2k+1}``, ``m{2k+2}``."""
    out = []
    for k, size in enumerate(lengths):
        ids = (f"m{2 * k + 1}", f"m{2 * k + 2}")
        out.append(
            Summary(
                id=f"L1-{k}", level=1, content="a" * size, tokens=1, source_level=0, source_ids=ids, source_range=ids
            )
        )
    return tuple(out)
