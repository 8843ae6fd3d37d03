"""One progress line for a long command: rewritten in place on a terminal; in a log (a CI job, a file), a whole
line every ``LOG_EVERY`` seconds and the last, so that no carriage return garbles the log and it still shows life."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TextIO

#: How often a progress line is written where the stream is not a terminal, in seconds.
LOG_EVERY = 10.0


class ProgressLine:
    """Shows the newest state of a run on ``stream`` (nothing where it is None)."""

    def __init__(self, stream: TextIO | None, clock: Callable[[], float] | None = None) -> None:
        self.stream, self.clock = stream, clock or time.monotonic
        self.tty = stream is not None and stream.isatty()
        self.shown = self.clock()
        self.pending = ""

    def show(self, line: str) -> None:
        """The run's state now: on a terminal at once; in a log once ``LOG_EVERY`` seconds passed since the last."""
        if self.stream is None:
            return
        now = self.clock()
        if self.tty:
            self.stream.write(f"\r{line}")
        elif now - self.shown >= LOG_EVERY:
            self.stream.write(line + "\n")
        else:
            self.pending = line
            return
        self.pending, self.shown = "", now
        self.stream.flush()

    def close(self, line: str | None = None) -> None:
        """The run ended: ``line`` (or the last state not yet written to a log) shown, and the line ended."""
        if self.stream is None:
            return
        last = line if line is not None else self.pending
        if self.tty:
            self.stream.write(f"\r{last}\n" if line is not None else "\n")
        elif last:
            self.stream.write(last + "\n")
        self.pending = ""
        self.stream.flush()
