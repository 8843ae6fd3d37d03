"""Image stripping (docs/model.md, "Image stripping"): ``applyImageStripping`` and ``postStripEstimates``.

An image stays live when its message lies within ``image_strip_depth_tokens`` of the newest message
(priced by the store's estimate, newest first) and it is among the ``max_live_images`` newest live
images; any other image is sent as a placeholder. 0 turns either rule off. Counting runs over
messages newest first and, within one message, from its last block back, so a message keeps a
suffix of its images: a decision is the number of its images kept (None: all).

The newer lines (``ImagePolicy``; docs/model.md, Variants) add a byte wall, count a message's images
from its first block, send another placeholder, and can hold a hysteresis watermark; under such a
policy a decision is one flag per image of the message (True: live).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from reference.model import Config, Content, Image, Text
from reference.numerics import Number, js_floor

PLACEHOLDER = "[image omitted]"
#: The newer lines' placeholder (``IMAGE_PLACEHOLDER`` at a95eb55b and cbe7032a).
DROPPED_PLACEHOLDER = "[image dropped from live context]"
#: ``DEFAULT_MAX_LIVE_IMAGE_BYTES``: 20 MiB of base64, the byte wall when ``maxLiveImageBytes`` is unset.
DEFAULT_MAX_LIVE_IMAGE_BYTES = 20 * 1024 * 1024
Kept = int | tuple[bool, ...] | None


@dataclass(frozen=True)
class ImagePolicy:
    """How a line strips: its placeholder, whether the byte wall and the first-block-first count apply, and the
    hysteresis watermark (a store index: images of messages at or before it stay stripped; None: none)."""

    placeholder: str = PLACEHOLDER
    byte_wall: bool = False
    first_block_first: bool = False
    watermark: int | None = None

    @property
    def seed_era(self) -> bool:
        """True for the seed-era lines' stripping (``decide``'s suffix count, no bytes, no watermark)."""
        return not self.byte_wall and not self.first_block_first and self.watermark is None


#: The seed-era lines' policy (and ``sound``'s).
SEED_ERA = ImagePolicy()


def byte_cap(config: Config, policy: ImagePolicy) -> Number:
    """The live-image byte cap in force (0: none): ``maxLiveImageBytes``, 20 MiB when unset, on a byte-wall line."""
    if not policy.byte_wall:
        return 0
    cap = config.max_live_image_bytes
    return DEFAULT_MAX_LIVE_IMAGE_BYTES if cap is None else cap


def _images(content: Content) -> list[Image]:
    return [b for b in content if isinstance(b, Image)]


def decide_policy(
    positions: Sequence[int], contents: Sequence[Content], start: int, config: Config, policy: ImagePolicy
) -> list[Kept]:
    """``applyImageStripping`` under a newer line's policy: per content (store positions in sending order, -1 for
    none), a flag per image. Newest position first, within a content in block order (or from its last block);
    an image is stripped when its message is below the watermark or deep, the count is reached, or the bytes
    kept plus its own pass the cap; a stripped image counts for nothing."""
    if policy.seed_era:
        return decide(positions, [images_in(c) for c in contents], start, config)
    limit, cap = config.max_live_images, byte_cap(config, policy)
    depth_on = config.image_strip_depth_tokens > 0
    count: int = 0
    kept_bytes: int = 0
    out: list[Kept] = [None] * len(positions)
    order = sorted(range(len(positions)), key=lambda k: positions[k], reverse=True)
    for k in order:
        images = _images(contents[k])
        if not images:
            continue
        pos = positions[k]
        deep = depth_on and (pos < 0 or pos < start)
        below = pos >= 0 and policy.watermark is not None and pos <= policy.watermark
        flags = [False] * len(images)
        walk = range(len(images)) if policy.first_block_first else reversed(range(len(images)))
        for j in walk:
            size = images[j].byte_size
            if below or deep or (limit > 0 and count >= limit) or (cap > 0 and kept_bytes + size > cap):
                continue
            flags[j] = True
            count += 1
            kept_bytes += size
        out[k] = tuple(flags)
    return out


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


def strip(content: Content, kept: Kept, placeholder: str = PLACEHOLDER) -> Content:
    """``content`` with all but its last ``kept`` images (or each image flagged False) replaced by the placeholder."""
    if kept is None:
        return content
    if isinstance(kept, tuple):
        flags = iter(kept)
        return tuple(Text(placeholder) if isinstance(b, Image) and not next(flags) else b for b in content)
    drop = images_in(content) - kept
    if drop <= 0:
        return content
    out = []
    for b in content:
        if isinstance(b, Image) and drop > 0:
            out.append(Text(placeholder))
            drop -= 1
        else:
            out.append(b)
    return tuple(out)


def store_wide(contents: Sequence[Content], start: int, config: Config, policy: ImagePolicy = SEED_ERA) -> list[Kept]:
    """``postStripEstimates``' decision: the image count runs over every message of the store (unless the seed-era
    policy has both rules off: then it strips nothing, and the store is not read)."""
    if policy.seed_era and not config.max_live_images > 0 and not start > 0:
        return [None] * len(contents)
    return decide_policy(range(len(contents)), contents, start, config, policy)


def newer_start(prices: Sequence[Number], depth: Number) -> int:
    """The first index NOT deep by the sum of the messages newer than it (``postStripEstimates``' depth rule:
    ``DEPTH_RULE_OFF_BY_ONE``): one message older than ``strip_start`` whenever that is past 0."""
    start = strip_start(prices, depth)
    return max(0, start - 1)


def _reduced(cap: Number, ratio: Number, at_least_one: bool = False) -> Number:
    """``floor(cap x ratio)`` for a cap that is on (``|| 1`` for the count), 0 for one that is off."""
    if not cap > 0:
        return 0
    value = js_floor(cap * ratio)
    return (max(0, value) or 1) if at_least_one else value


def advance_watermark(
    prices: Sequence[Number],
    contents: Sequence[Content],
    config: Config,
    policy: ImagePolicy,
    newer_only: bool,
) -> int | None:
    """``maybeAdvanceImageWatermark``: when an image newer than the watermark misfits the live-image limits, the
    watermark moves to the newest message whose image misfits ``ratio`` x each limit (it never moves back).

    ``newer_only``: the depth test sums the messages newer than the one tested (the TypeScript's rule)."""
    ratio = config.image_strip_hysteresis_ratio
    w = policy.watermark
    if ratio is None or not 0 < ratio < 1:
        return w
    depth_cap, count_cap, bytes_cap = config.image_strip_depth_tokens, config.max_live_images, byte_cap(config, policy)

    def first_misfit(depth_limit: Number, count_limit: Number, bytes_limit: Number) -> int | None:
        depth: Number = 0
        count, size_sum = 0, 0
        for i in reversed(range(len(contents))):
            if w is not None and i <= w:
                break
            reach = depth if newer_only else depth + prices[i]
            for b in _images(contents[i]):
                too_deep = depth_limit > 0 and reach > depth_limit
                if (
                    too_deep
                    or (count_limit > 0 and count >= count_limit)
                    or (bytes_limit > 0 and size_sum + b.byte_size > bytes_limit)
                ):
                    return i
                count += 1
                size_sum += b.byte_size
            depth += prices[i]
        return None

    if first_misfit(depth_cap, count_cap, bytes_cap) is None:
        return w
    nxt = first_misfit(
        _reduced(depth_cap, ratio), _reduced(count_cap, ratio, at_least_one=True), _reduced(bytes_cap, ratio)
    )
    if nxt is None or (w is not None and nxt <= w):
        return w
    return nxt
