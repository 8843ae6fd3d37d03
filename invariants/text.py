"""``repr`` of the model's data without recursion, for the texts the invariants compare and print.

Content may nest ``reference.model.MAX_NESTING`` deep; the built-in ``repr`` of nested dataclasses
takes several stack frames a level and overflows first. ``data_text(x) == repr(x)`` for dataclasses,
tuples and lists of them with scalar leaves (docs/model.md, "Bad input").
"""

from __future__ import annotations

import dataclasses


def data_text(value: object) -> str:
    """``repr(value)``; when that is too deep for the stack, the same text built without recursion."""
    try:
        return repr(value)
    except RecursionError:
        return iterative_repr(value)


def iterative_repr(value: object) -> str:
    """``repr(value)``, built with an explicit stack (dataclasses, tuples and lists are walked; other values repr'd)."""
    out: list[str] = []
    stack: list[tuple[bool, object]] = [(False, value)]  # (True, text to emit) or (False, a value to write)
    while stack:
        literal, item = stack.pop()
        if literal:
            out.append(item)  # type: ignore[arg-type]
            continue
        if dataclasses.is_dataclass(item) and not isinstance(item, type):
            fields = [f for f in dataclasses.fields(item) if f.repr]
            parts: list[tuple[bool, object]] = [(True, f"{type(item).__qualname__}(")]
            for k, f in enumerate(fields):
                parts += [(True, f"{', ' if k else ''}{f.name}="), (False, getattr(item, f.name))]
            parts.append((True, ")"))
        elif type(item) in (tuple, list):
            seq = item  # type: ignore[assignment]
            opening, closing = ("(", ")") if isinstance(seq, tuple) else ("[", "]")
            parts = [(True, opening)]
            for k, x in enumerate(seq):  # type: ignore[arg-type]
                parts += [(True, ", ")] if k else []
                parts.append((False, x))
            parts.append((True, "," + closing if isinstance(seq, tuple) and len(seq) == 1 else closing))
        else:
            out.append(repr(item))
            continue
        stack.extend(reversed(parts))
    return "".join(out)
