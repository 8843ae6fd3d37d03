"""The Node oracle (``tests/js_oracle.mjs``) from Python: one process per session, one line per batch.

Requests are ``[op, *args]`` lists sent as one JSON line; the answer is one JSON line of results.
Doubles travel as strings (``double``) or, inside a value, as ``{"$f": "<double>"}`` (``tagged``), so
NaN, the infinities and -0 survive JSON; strings travel as ASCII JSON, lone surrogates as ``\\udXXX``
escapes, which ``JSON.parse`` keeps as lone units.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

NODE = shutil.which("node")
SCRIPT = Path(__file__).with_name("js_oracle.mjs")
SKIP_WITHOUT_NODE = pytest.mark.skipif(NODE is None, reason="node is not installed (.ci/run installs nodejs)")


class Oracle:
    """A running ``node js_oracle.mjs``: one line of requests in, one line of results out."""

    def __init__(self, node: str) -> None:
        self.pid = os.getpid()
        self._proc = subprocess.Popen(
            [node, str(SCRIPT)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            errors="strict",
        )

    def ask(self, requests: Sequence[Sequence[Any]]) -> list[Any]:
        assert self._proc.stdin is not None and self._proc.stdout is not None
        self._proc.stdin.write(json.dumps(list(requests), ensure_ascii=True, allow_nan=False) + "\n")
        self._proc.stdin.flush()
        line = self._proc.stdout.readline()
        answer = json.loads(line)
        if isinstance(answer, dict):
            raise RuntimeError(f"the oracle failed: {answer['error']}")
        return answer

    def close(self) -> None:
        if self._proc.stdin is not None:
            self._proc.stdin.close()
        self._proc.wait(timeout=10)


_running: list[Oracle] = []


def oracle() -> Oracle:
    """The session's oracle, started on first use (again in a forked child, which must not share the pipes)."""
    assert NODE is not None
    if not _running or _running[0].pid != os.getpid():
        _running[:] = [Oracle(NODE)]
    return _running[0]


def close_oracle() -> None:
    if _running and _running[0].pid == os.getpid():
        _running.pop().close()


def double(x: float) -> str:
    """A double as JavaScript's ``Number()`` reads it back exactly."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    return repr(float(x))


def number(x: int | float) -> str:
    """A Python number (an int beyond 2**53 included) as the double JavaScript holds for it."""
    return double(x) if isinstance(x, float) else str(x)


def parse_double(s: str) -> float:
    return float(s)  # "NaN", "Infinity", "-0", "1e+21" all parse


def same(a: float, b: float) -> bool:
    """Equal as JavaScript numbers, NaN equal to itself (0 and -0 equal)."""
    return (math.isnan(a) and math.isnan(b)) or a == b


def units(s: str) -> bytes:
    """A string as JavaScript sees it: its UTF-16 units (a pair written as two halves is the astral character)."""
    return s.encode("utf-16-le", "surrogatepass")


def tagged(value: Any) -> Any:
    """``value`` for the trip to Node: every number as ``{"$f": double}``."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, float)):
        return {"$f": number(value)}
    if isinstance(value, (list, tuple)):
        return [tagged(v) for v in value]
    return {k: tagged(v) for k, v in value.items()}
