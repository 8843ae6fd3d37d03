"""An output stream for the command line's tests that is, or is not, a terminal."""

from __future__ import annotations

import io


class Stream(io.StringIO):
    """A ``StringIO`` whose ``isatty`` says ``tty`` (a terminal, or a log and a pipe)."""

    def __init__(self, tty: bool = True) -> None:
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty
