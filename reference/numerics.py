"""JavaScript numerics on IEEE doubles and UTF-16 strings (SPEC section 1)."""

from __future__ import annotations

import json
import math
import re
from typing import Any

Number = int | float

#: Characters JavaScript's ``String.prototype.trim`` removes (WhiteSpace and LineTerminator).
_JS_WHITESPACE = (
    "\u0009\u000a\u000b\u000c\u000d\u0020\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005"
    "\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)


def is_number(x: object) -> bool:
    """True for an int or float that is not a bool (SPEC's *number*)."""
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def is_finite_nonneg(x: object) -> bool:
    """True for a finite number >= 0 (what the reference accepts as a stamp); any int is finite."""
    return is_number(x) and (isinstance(x, int) or math.isfinite(x)) and x >= 0


#: The largest integer a double holds exactly (``Number.MAX_SAFE_INTEGER + 1``).
EXACT_INTEGERS = 2**53


def js_number(x: Number) -> Number:
    """A number as JavaScript holds it: an integer beyond 2**53 becomes the nearest double, and one past
    the largest double (about 1.8e308) +-Infinity, as ``JSON.parse`` reads it; other values unchanged."""
    if isinstance(x, bool) or not isinstance(x, int) or -EXACT_INTEGERS <= x <= EXACT_INTEGERS:
        return x
    try:
        return float(x)
    except OverflowError:
        return math.inf if x > 0 else -math.inf


def len16(s: str) -> int:
    """Length of ``s`` in UTF-16 code units: an astral character counts 2."""
    return len(s.encode("utf-16-le", "surrogatepass")) // 2


def units16(s: str) -> list[int]:
    """The UTF-16 code units of ``s`` (lone surrogates pass through as one unit)."""
    out: list[int] = []
    for ch in s:
        c = ord(ch)
        if c > 0xFFFF:
            c -= 0x10000
            out.append(0xD800 + (c >> 10))
            out.append(0xDC00 + (c & 0x3FF))
        else:
            out.append(c)
    return out


def slice16(s: str, end: int) -> str:
    """``s.slice(0, end)`` in UTF-16 units; a cut inside a surrogate pair moves one unit earlier."""
    out: list[str] = []
    used = 0
    for ch in s:
        width = 2 if ord(ch) > 0xFFFF else 1
        if used + width > end:
            break
        out.append(ch)
        used += width
    return "".join(out)


def js_floor(x: Number) -> Number:
    """``Math.floor``: infinities and NaN pass through unchanged."""
    return x if not math.isfinite(x) else math.floor(x)


def js_ceil(x: Number) -> Number:
    """``Math.ceil``: infinities and NaN pass through unchanged."""
    return x if not math.isfinite(x) else math.ceil(x)


def js_round(x: Number) -> Number:
    """``Math.round``: halves go toward +infinity; NaN and infinities pass through."""
    if not math.isfinite(x):
        return x
    f = math.floor(x)
    # x - f is exact for x >= 0.5 or x >= 0 (Sterbenz); in (-0.5, 0) it may round up to 0.5, which
    # returns f + 1 == 0, the same integer Math.round gives there (-0).
    return f + 1 if x - f >= 0.5 else f


def js_max(*xs: Number) -> Number:
    """``Math.max``: NaN when any argument is NaN."""
    if any(math.isnan(x) for x in xs):
        return math.nan
    return max(xs)


def js_min(*xs: Number) -> Number:
    """``Math.min``: NaN when any argument is NaN."""
    if any(math.isnan(x) for x in xs):
        return math.nan
    return min(xs)


def js_trim(s: str) -> str:
    """``String.prototype.trim``."""
    return s.strip(_JS_WHITESPACE)


def js_number_string(x: Number) -> str:
    """``String(x)`` for the integers and simple values the model renders (levels, stamps in keys)."""
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, int):
        return str(x)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == int(x) and abs(x) < 1e21:
        return str(int(x))
    return repr(x)


_SURROGATE = re.compile("[\ud800-\udfff]")


def _escape_lone_surrogates(s: str) -> str:
    """Escape surrogates that do not form a high-low pair, as well-formed ``JSON.stringify`` does."""
    if not _SURROGATE.search(s):
        return s
    out: list[str] = []
    i = 0
    while i < len(s):
        c = ord(s[i])
        if 0xD800 <= c <= 0xDBFF and i + 1 < len(s) and 0xDC00 <= ord(s[i + 1]) <= 0xDFFF:
            out.append(s[i : i + 2])
            i += 2
            continue
        out.append(f"\\u{c:04x}" if 0xD800 <= c <= 0xDFFF else s[i])
        i += 1
    return "".join(out)


def _js_value(x: Any) -> Any:
    if is_number(x) and isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, float) and x == int(x) and abs(x) < 1e21:
        return int(x)
    if isinstance(x, (list, tuple)):
        return [_js_value(v) for v in x]
    if isinstance(x, dict):
        return {k: _js_value(v) for k, v in x.items()}
    return x


def json_stringify(x: Any) -> str:
    """``JSON.stringify``: compact, non-ASCII kept, lone surrogates escaped, NaN/inf as null."""
    text = json.dumps(_js_value(x), separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return _escape_lone_surrogates(text)
