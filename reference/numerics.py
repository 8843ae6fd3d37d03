"""JavaScript numerics on IEEE doubles and UTF-16 strings (docs/model.md, Numerics)."""

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
    """True for an int or float that is not a bool (a *number*, docs/model.md, Numerics)."""
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


def js_slice(s: str, end: int) -> str:
    """``s.slice(0, end)`` exactly (``end`` an integer >= 0): a cut inside an astral character keeps its high half."""
    out: list[str] = []
    used = 0
    for ch in s:
        if used >= end:
            break
        if ord(ch) > 0xFFFF and used + 2 > end:
            out.append(chr(units16(ch)[0]))
            break
        out.append(ch)
        used += 2 if ord(ch) > 0xFFFF else 1
    return "".join(out)


def _is_low_surrogate(unit: int) -> bool:
    return 0xDC00 <= unit <= 0xDFFF


def js_safe_slice(s: str, end: Number) -> str:
    """The TypeScript's ``safeSlice(s, 0, end)`` (``end`` > 0): one unit earlier whenever the unit at ``end`` is a
    low surrogate, paired or not, so ``"a\\udc00b"`` cut at 1 keeps ``""`` (docs/model.md, "The message cap")."""
    units = units16(s)
    if end >= len(units):
        return s
    if _is_low_surrogate(units[math.trunc(end)]):
        return js_slice(s, max(0, math.trunc(end - 1)))
    return js_slice(s, math.trunc(end))


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


def _is_nan(x: Number) -> bool:
    return isinstance(x, float) and math.isnan(x)


def _minus(x: Number) -> bool:
    """Whether ``x`` carries the minus sign (its sign bit): -0 does, +0 and an int 0 do not (an integer past any
    double has no float to read it from: ask only of a zero)."""
    return math.copysign(1, x) == -1


def js_max(*xs: Number) -> Number:
    """``Math.max``: NaN when any argument is NaN (Python's ``max`` keeps whichever comes first), -Infinity with
    none, and +0 above -0."""
    if any(_is_nan(x) for x in xs):
        return math.nan
    if not xs:
        return -math.inf
    best = max(xs)
    return next((x for x in xs if x == 0 and not _minus(x)), best) if best == 0 else best


def js_min(*xs: Number) -> Number:
    """``Math.min``: NaN when any argument is NaN, +Infinity with none, and -0 below +0."""
    if any(_is_nan(x) for x in xs):
        return math.nan
    if not xs:
        return math.inf
    best = min(xs)
    return next((x for x in xs if x == 0 and _minus(x)), best) if best == 0 else best


def js_trim(s: str) -> str:
    """``String.prototype.trim``: JavaScript's WhiteSpace and LineTerminator, not Python's ``str.strip`` set."""
    return s.strip(_JS_WHITESPACE)


def js_blank(s: str) -> bool:
    """``!s || !s.trim()``: empty, or JavaScript whitespace only."""
    return js_trim(s) == ""


_SUBSTITUTION = re.compile(r"\$([$&`'])")


def _substitution(replacement: str, subject: str, start: int, end: int) -> str:
    """ECMA-262 GetSubstitution for a match ``subject[start:end]`` with no capture groups (left to right)."""
    parts = {"$": "$", "&": subject[start:end], "`": subject[:start], "'": subject[end:]}
    return _SUBSTITUTION.sub(lambda m: parts[m.group(1)], replacement)


def js_replace_all(subject: str, pattern: str, replacement: str) -> str:
    """``subject.replace(/pattern/g, replacement)`` for a literal, non-empty ``pattern`` and a replacement string.

    Each match (left to right, not overlapping: ``str.split``'s) becomes GetSubstitution of ``replacement``:
    ``$$`` is ``$``, ``$&`` the match, ``$``` what precedes it, ``$'`` what follows it; ``$1``.. and ``$<``
    stay literal (no groups).
    """
    pieces = subject.split(pattern)
    out = [pieces[0]]
    at = len(pieces[0])
    for piece in pieces[1:]:
        out.append(_substitution(replacement, subject, at, at + len(pattern)))
        out.append(piece)
        at += len(pattern) + len(piece)
    return "".join(out)


def _double_string(x: float) -> str:
    """ECMA-262 Number::toString(x) for a finite double: the shortest round-trip digits (``repr``'s), laid out
    as JavaScript does (plain from 1e-6 up to 1e21, else ``d.ddde±n``)."""
    if x == 0:
        return "0"
    if x < 0:
        return "-" + _double_string(-x)
    mantissa, _, exp = repr(x).partition("e")
    whole, _, frac = mantissa.partition(".")
    if whole.strip("0"):  # x = 0.digits * 10**n, n counted from the integer part's digits
        n = len(whole.lstrip("0")) + int(exp or 0)
    else:  # 0.000ddd: n is minus the zeros after the point
        n = int(exp or 0) - (len(frac) - len(frac.lstrip("0")))
    digits = (whole + frac).strip("0")
    k = len(digits)
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return "0." + "0" * -n + digits
    sign = "+" if n - 1 >= 0 else "-"
    return (digits[0] + ("." + digits[1:] if k > 1 else "")) + "e" + sign + str(abs(n - 1))


def js_number_string(x: Number) -> str:
    """``String(x)``: an int is read as the double JavaScript would hold."""
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, int):
        return _double_string(float(x))
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    return _double_string(x)


#: A surrogate that is not half of a high-low pair: a high one not followed by a low one, or a low one not
#: preceded by a high one.
_LONE_SURROGATE = re.compile("[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]")


def _escape_lone_surrogates(s: str) -> str:
    """Escape surrogates that do not form a high-low pair, as well-formed ``JSON.stringify`` does."""
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", s)


_INDEX_LIMIT = 2**32 - 1


def _is_index(key: str) -> bool:
    """An array-index property name, which JavaScript objects enumerate first, in ascending order."""
    return key.isascii() and key.isdigit() and str(int(key)) == key and int(key) < _INDEX_LIMIT


def _json_text(x: Any) -> str:
    if x is None:
        return "null"
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, (int, float)):
        return js_number_string(x) if math.isfinite(x) else "null"
    if isinstance(x, str):
        return json.dumps(x, ensure_ascii=False)
    if isinstance(x, (list, tuple)):
        return "[" + ",".join(_json_text(v) for v in x) + "]"
    if isinstance(x, dict):
        keys = sorted((k for k in x if _is_index(k)), key=int) + [k for k in x if not _is_index(k)]
        return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + _json_text(x[k]) for k in keys) + "}"
    raise TypeError(f"not a JSON value: {x!r}")


def json_stringify(x: Any) -> str:
    """``JSON.stringify``: compact, non-ASCII kept, lone surrogates escaped, NaN/inf as null, numbers as
    ``String(number)``, array-index keys first."""
    return _escape_lone_surrogates(_json_text(x))
