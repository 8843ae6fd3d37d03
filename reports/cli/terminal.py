"""What the CLI writes to a terminal: text any encoding can print (docs/model.md, "Bad input"), numbers as
JavaScript writes them, and plain aligned tables.

A string of the model may hold a lone surrogate (JavaScript strings are UTF-16 and may); no encoding
writes one, so every line the CLI prints goes through ``printable``, which shows it as ``\\udc00``.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from typing import TextIO

from reference.numerics import Number, js_number_string

_SURROGATE = re.compile("[\ud800-\udfff]")


def printable(text: str) -> str:
    """``text`` with each surrogate code point written as a ``\\uXXXX`` escape (everything else kept)."""
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


class Terminal(io.TextIOBase):
    """A text stream that writes ``printable`` text to ``stream`` (its other characters unchanged)."""

    def __init__(self, stream: TextIO) -> None:
        super().__init__()
        self.stream = stream

    def write(self, text: str) -> int:
        self.stream.write(printable(text))
        return len(text)

    def flush(self) -> None:
        self.stream.flush()

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        """A terminal where its stream is one (``reproduce`` colours, ``fuzz`` rewrites its progress line)."""
        return self.stream.isatty()


def fmt(x: Number | None) -> str:
    """A number as JavaScript's ``String`` writes it (``NaN``, ``Infinity``); ``-`` for None."""
    return "-" if x is None else js_number_string(x)


def format_table(headers: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[bool]) -> list[str]:
    """Plain aligned columns; ``right[i]`` right-aligns column i (numbers)."""
    widths = [max([len(h), *(len(r[i]) for r in rows)]) for i, h in enumerate(headers)]

    def line(cells: Sequence[str]) -> str:
        parts = [c.rjust(w) if r else c.ljust(w) for c, w, r in zip(cells, widths, right, strict=True)]
        return "  ".join(parts).rstrip()

    return [line(headers), line(["-" * w for w in widths]), *(line(r) for r in rows)]
