"""Image stripping as the contract states it (docs/model.md, "Image stripping"), image by image.

Written from the contract, sharing no code with ``strategies/``: an image is live when its message
lies within ``image_strip_depth_tokens`` of the newest message and it is among the ``max_live_images``
newest live images (newest message first, within a message last block first); every other top-level
image is sent as ``[image omitted]``. 0 turns either rule off.

``ImageRules`` states a newer TypeScript line's rules (docs/model.md, Variants; the invariants switch them on
for that line's variant): its placeholder, the live-byte wall, the count from a message's first block, and the
hysteresis watermark (``watermark``). The depth rule is the contract's everywhere: a message is deep when it and
the newer ones pass the depth (``DEPTH_RULE_OFF_BY_ONE`` is a defect the invariants see, not a rule).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from reference.model import Config, Content, Image, Text
from reference.numerics import Number, js_floor

PLACEHOLDER = "[image omitted]"
DROPPED = "[image dropped from live context]"
WALL_DEFAULT = 20 * 1024 * 1024


@dataclass(frozen=True)
class ImageRules:
    """A line's image rules; the defaults are the seed-era lines' (and the contract's)."""

    placeholder: str = PLACEHOLDER
    byte_wall: bool = False  # Behaviour.LIVE_IMAGE_BYTE_WALL
    first_block_first: bool = False  # Behaviour.IMAGES_FIRST_BLOCK_FIRST
    hysteresis: bool = False  # Behaviour.IMAGE_STRIP_HYSTERESIS
    below: int | None = None  # the watermark: images of messages at or before this index stay stripped


def wall(config: Config, rules: ImageRules) -> Number:
    """The byte cap in force: ``max_live_image_bytes`` (20 MiB when None) on a byte-wall line, else none (0)."""
    if not rules.byte_wall:
        return 0
    return WALL_DEFAULT if config.max_live_image_bytes is None else config.max_live_image_bytes


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
    contents: Sequence[Content],
    positions: Sequence[int | None],
    start: int,
    config: Config,
    rules: ImageRules = ImageRules(),
) -> list[tuple[bool, ...]]:
    """Per content, per top-level image in block order: whether it stays live.

    ``positions`` are store indices (``None``: no message, which lies before every message, so deep). The
    count runs over the contents from the newest position back and, within one, from its last image (from its
    first under ``first_block_first``); an image at or below the watermark, or over the byte wall with what is
    kept so far, is not live and counts for nothing.
    """
    flags: list[list[bool]] = [[False] * sum(isinstance(b, Image) for b in c) for c in contents]
    order = sorted(range(len(contents)), key=lambda k: -1 if positions[k] is None else positions[k], reverse=True)
    cap = wall(config, rules)
    live = 0
    kept_bytes = 0
    for k in order:
        position = positions[k]
        if position is None or position < start:
            continue
        if rules.below is not None and position <= rules.below:
            continue
        images = [b for b in contents[k] if isinstance(b, Image)]
        walk = range(len(images)) if rules.first_block_first else reversed(range(len(images)))
        for j in walk:
            if config.max_live_images > 0 and live >= config.max_live_images:
                break
            size = 0 if images[j].data is None else len(images[j].data)
            if cap > 0 and kept_bytes + size > cap:
                continue
            flags[k][j] = True
            live += 1
            kept_bytes += size
    return [tuple(f) for f in flags]


def watermark(prices: Sequence[Number], contents: Sequence[Content], config: Config, rules: ImageRules) -> int | None:
    """Where the hysteresis watermark stands after one compile that starts from ``rules.below`` (None: a fresh
    strategy's): if an image newer than it misfits the limits (depth, count, bytes, newest message first), the newest
    message whose image misfits ratio x each limit, when that is newer; else where it started."""
    start, ratio = rules.below, config.image_strip_hysteresis_ratio
    if not rules.hysteresis or ratio is None or not 0 < ratio < 1:
        return start

    def misfit(depth_cap: Number, count_cap: Number, bytes_cap: Number) -> int | None:
        newer: Number = 0
        seen, size_sum = 0, 0
        for i in reversed(range(len(contents))):
            if start is not None and i <= start:
                return None  # what the watermark strips is not counted again
            depth = newer + prices[i]  # the message and every newer one, as the strip itself counts depth
            for b in contents[i]:
                if not isinstance(b, Image):
                    continue
                size = 0 if b.data is None else len(b.data)
                over = (depth_cap > 0 and depth > depth_cap) or (count_cap > 0 and seen >= count_cap)
                if over or (bytes_cap > 0 and size_sum + size > bytes_cap):
                    return i
                seen += 1
                size_sum += size
            newer += prices[i]
        return None

    depth, count, size = config.image_strip_depth_tokens, config.max_live_images, wall(config, rules)
    if misfit(depth, count, size) is None:
        return start
    scaled = [js_floor(x * ratio) if x > 0 else 0 for x in (depth, count, size)]
    scaled[1] = (max(0, scaled[1]) or 1) if count > 0 else 0
    moved = misfit(*scaled)
    return start if moved is None else moved  # misfit looks only above the start: a move is never back


def resolved(rules: ImageRules, prices: Sequence[Number], contents: Sequence[Content], config: Config) -> ImageRules:
    """The rules with the watermark a compile of these messages sets from the one it starts with (under
    hysteresis)."""
    if not rules.hysteresis:
        return rules
    return replace(rules, below=watermark(prices, contents, config, rules))


def stripped(content: Content, live: Sequence[bool], placeholder: str = PLACEHOLDER) -> Content:
    """``content`` with each image that is not live replaced by the placeholder text."""
    out = []
    k = 0
    for b in content:
        if isinstance(b, Image):
            out.append(b if live[k] else Text(placeholder))
            k += 1
        else:
            out.append(b)
    return tuple(out)


def store_wide(
    contents: Sequence[Content],
    start: int,
    config: Config,
    rules: ImageRules = ImageRules(),
) -> list[tuple[bool, ...]]:
    """``postStripEstimates``' reading: which images of every message stay live, counted over the whole store."""
    return live_flags(contents, range(len(contents)), start, config, rules)
