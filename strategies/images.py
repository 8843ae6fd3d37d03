"""Image stripping (docs/model.md, "Image stripping"): ``applyImageStripping`` and ``postStripEstimates``.

An image stays live when its message lies within ``image_strip_depth_tokens`` of the newest message
(priced by the store's estimate, newest first) and it is among the ``max_live_images`` newest live
images; any other image is sent as a placeholder. 0 turns either rule off. Counting runs over
messages newest first and, within one message, from its last block back, so a message keeps a
suffix of its images: a decision is the number of its images kept (None: all).
"""

from __future__ import annotations

from collections.abc import Sequence

from reference.model import Config, Content, Image, Text
from reference.numerics import Number

PLACEHOLDER = "[image omitted]"
Kept = int | None


def images_in(content: Content) -> int:
    return sum(1 for b in content if isinstance(b, Image))


def strip_start(prices: Sequence[Number], depth: Number) -> int:
    """The first index within ``depth`` tokens of the newest message (0 when the rule is off)."""
    if not depth > 0:
        return 0
    total: Number = 0
    for i in range(len(prices) - 1, -1, -1):
        total += prices[i]
        if total > depth:
            return i + 1
    return 0


def decide(positions: Sequence[int], counts: Sequence[int], start: int, config: Config) -> list[Kept]:
    """How many images each of a list of messages keeps, given their store positions in sending order (oldest
    first; an entry that is no message's, position -1, holds no image)."""
    limit = config.max_live_images
    live = 0
    kept: list[Kept] = [None] * len(positions)
    for k in reversed(range(len(positions))):
        n = counts[k]
        if n == 0:
            continue
        if positions[k] < start:
            kept[k] = 0
            continue
        if limit > 0:
            room = max(0, min(n, limit - live))
            live += room
            kept[k] = None if room == n else int(room)
    return kept


def strip(content: Content, kept: Kept) -> Content:
    """``content`` with all but its last ``kept`` images replaced by the placeholder."""
    if kept is None:
        return content
    drop = images_in(content) - kept
    if drop <= 0:
        return content
    out = []
    for b in content:
        if isinstance(b, Image) and drop > 0:
            out.append(Text(PLACEHOLDER))
            drop -= 1
        else:
            out.append(b)
    return tuple(out)


def store_wide(contents: Sequence[Content], start: int, config: Config) -> list[Kept]:
    """``postStripEstimates``' decision: the image count runs over every message of the store."""
    return decide(range(len(contents)), [images_in(c) for c in contents], start, config)
