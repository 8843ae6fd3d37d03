"""Image stripping as the contract states it (docs/model.md, "Image stripping"), image by image.

Written from the contract, sharing no code with ``strategies/``: an image is live when its message
lies within ``image_strip_depth_tokens`` of the newest message and it is among the ``max_live_images``
newest live images (newest message first, within a message last block first); every other top-level
image is sent as ``[image omitted]``. 0 turns either rule off.
"""

from __future__ import annotations

from collections.abc import Sequence

from reference.model import Config, Content, Image, Text
from reference.numerics import Number

PLACEHOLDER = "[image omitted]"


def depth_start(prices: Sequence[Number], depth: Number) -> int:
    """The oldest index within ``depth`` tokens of the newest message: the running sum from the newest
    first exceeds ``depth`` at index ``i``, so ``i + 1``; 0 when it never does or the rule is off."""
    if not depth > 0:
        return 0
    total: Number = 0
    for i in reversed(range(len(prices))):
        total += prices[i]
        if total > depth:
            return i + 1
    return 0


def live_flags(
    contents: Sequence[Content], positions: Sequence[int | None], start: int, config: Config
) -> list[tuple[bool, ...]]:
    """Per content, per top-level image in block order: whether it stays live.

    ``positions`` are store indices (``None``: no message, which lies before every message, so deep). The
    count runs over the contents from the newest position back and, within one, from its last image.
    """
    flags: list[list[bool]] = [[False] * sum(isinstance(b, Image) for b in c) for c in contents]
    order = sorted(range(len(contents)), key=lambda k: -1 if positions[k] is None else positions[k], reverse=True)
    live = 0
    for k in order:
        position = positions[k]
        if position is None or position < start:
            continue
        for j in reversed(range(len(flags[k]))):
            if config.max_live_images > 0 and live >= config.max_live_images:
                break
            flags[k][j] = True
            live += 1
    return [tuple(f) for f in flags]


def stripped(content: Content, live: Sequence[bool]) -> Content:
    """``content`` with each image that is not live replaced by the placeholder text."""
    out = []
    k = 0
    for b in content:
        if isinstance(b, Image):
            out.append(b if live[k] else Text(PLACEHOLDER))
            k += 1
        else:
            out.append(b)
    return tuple(out)


def store_wide(contents: Sequence[Content], start: int, config: Config) -> list[tuple[bool, ...]]:
    """``postStripEstimates``' reading: which images of every message stay live, counted over the whole store."""
    return live_flags(contents, range(len(contents)), start, config)
