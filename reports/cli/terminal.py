"""What the CLI writes to a terminal: text any encoding can print (docs/model.md, "Bad input").

A string of the model may hold a lone surrogate (JavaScript strings are UTF-16 and may); no encoding
writes one, so every line the CLI prints goes through ``printable``, which shows it as ``\\udc00``.
"""

from __future__ import annotations

import io
import re
from typing import TextIO

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
