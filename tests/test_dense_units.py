"""The estimator's rules the compile shares with the reference, pinned from the TypeScript's description
(docs/model.md, The estimator and the fallback): no invariant sees a change to them, since both sides move.

A UTF-16 unit is dense when its code is above 126 or it is one of ten ASCII characters (``DENSE_ASCII``); a
text whose first 2,000 units are more than 12% dense is priced at 2.3 characters a token, else 2.9. An Image's
stamp is read with ``??``: any finite stamp >= 0, 0 included, is its price.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from reference.estimator import DENSE_RATE, PROSE_RATE, content_tokens, text_rate
from reference.model import Image, Store
from reference.numerics import js_round

#: The ten dense ASCII characters, as the TypeScript lists them.
DENSE_ASCII = frozenset('{}[]":_/=`')
#: Seven prose units beside one probed unit: one dense unit in eight is 12.5%, over the 12% threshold.
PROSE = "a" * 7


def typescript_rate(text: str) -> float:
    """The rate as the TypeScript describes it, unit by unit (for texts under the 2,000-unit probe)."""
    units = [u for ch in text for u in ((ch,) if ord(ch) <= 0xFFFF else ("\ud800", "\udc00"))]
    dense = sum(1 for u in units if ord(u) > 126 or u in DENSE_ASCII)
    return DENSE_RATE if dense / len(units) > 0.12 else PROSE_RATE


def test_each_ascii_unit_is_dense_exactly_when_the_typescript_says():
    wrong = [
        (hex(code), text_rate(chr(code) + PROSE))
        for code in range(128)
        if text_rate(chr(code) + PROSE) != typescript_rate(chr(code) + PROSE)
    ]
    assert not wrong, f"ASCII units priced at the wrong rate: {wrong}"


@given(ch=st.characters(min_codepoint=127), prose=st.integers(5, 20))
def test_a_unit_above_126_is_dense_and_an_astral_character_is_two(ch, prose):
    text = ch + "a" * prose
    assert text_rate(text) == typescript_rate(text)


@given(stamp=st.one_of(st.just(0), st.integers(0, 10**6), st.floats(0, 10**6)), calibration=st.sampled_from([1, 0.5]))
def test_an_image_stamp_of_any_finite_number_from_0_is_its_price(stamp, calibration):
    store = Store(messages=(), calibration=calibration)
    assert content_tokens((Image(stamp),), store) == js_round(stamp * calibration)
