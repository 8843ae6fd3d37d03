"""Looking a name up among the known ones, with one wording for every miss (docs/model.md, "Bad input").

``unknown {kind} {name}; did you mean {closest}? (known: {every name})``, the closest names by
``difflib``'s ratio. Variants, defects, invariants, scenario fields and the model's constructor arguments are
all refused this way; a file's messages quote names as JSON does, the command line as Python does.
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import functools
from collections.abc import Callable, Iterable, Mapping
from typing import TypeVar

from reference.errors import UnknownFieldError, UnknownNameError

T = TypeVar("T")


def closest(name: object, known: Iterable[str], n: int = 1, cutoff: float = 0.6) -> list[str]:
    """The (at most ``n``) known names closest to ``name``, best first; none when nothing is close."""
    return difflib.get_close_matches(str(name), list(known), n=n, cutoff=cutoff) if isinstance(name, str) else []


def did_you_mean(close: Iterable[str], quote: Callable[[object], str] = str) -> str:
    """``; did you mean A?`` (``A or B`` for several), or nothing."""
    names = [quote(c) for c in close]
    return f"; did you mean {' or '.join(names)}?" if names else ""


def unknown(
    kind: str,
    name: object,
    known: Iterable[str],
    *,
    quote: Callable[[object], str] = repr,
    context: str = "",
    listed: str = "known",
    n: int = 1,
    cutoff: float = 0.6,
) -> str:
    """The one-line message for ``name`` not among ``known``: ``unknown {kind} {name}{context}; did you mean
    ...? ({listed}: ...)``."""
    known = list(known)
    hint = did_you_mean(closest(name, known, n, cutoff), quote)
    return f"unknown {kind} {quote(name)}{context}{hint} ({listed}: {', '.join(known) or 'none'})"


def lookup(kind: str, name: str, table: Mapping[str, T]) -> T:
    """``table[name]``, or an ``UnknownNameError`` naming the closest key."""
    try:
        return table[name]
    except (KeyError, TypeError):
        raise UnknownNameError(unknown(kind, name, table)) from None


def one_of(kind: str, known: Iterable[str]) -> Callable[[str], str]:
    """An ``argparse`` type for a command-line value among ``known``: a miss is refused in the wording above."""
    names = [str(name) for name in known]

    def parse(text: str) -> str:
        if text not in names:
            raise argparse.ArgumentTypeError(unknown(kind, text, names))
        return text

    parse.__name__ = kind
    return parse


def refuse_unknown_fields(cls: type, kwargs: Mapping[str, object]) -> None:
    """Raise ``UnknownFieldError`` naming the closest field when ``kwargs`` holds a name that is not one of the
    dataclass ``cls``'s fields; return when every name is one (the error was something else)."""
    names = [f.name for f in dataclasses.fields(cls)]
    wrong = [k for k in kwargs if k not in names]
    if wrong:
        raise UnknownFieldError(unknown(f"{cls.__name__} field", wrong[0], names)) from None


# A class decorator runs when its module is imported, before any test: no test can see its mutants, so mutmut
# leaves it alone; what runs at construction time is ``refuse_unknown_fields``, mutated and tested.
def suggest_fields(cls: type[T]) -> type[T]:  # pragma: no mutate block
    """A dataclass whose constructor refuses an unknown keyword with the closest field's name (an
    ``UnknownFieldError``, a ``TypeError``), not Python's bare message; a correct call costs one frame."""
    init = cls.__init__

    @functools.wraps(init)
    def __init__(self: object, *args: object, **kwargs: object) -> None:
        try:
            init(self, *args, **kwargs)
        except TypeError:
            refuse_unknown_fields(cls, kwargs)
            raise

    cls.__init__ = __init__  # type: ignore[method-assign]
    return cls
