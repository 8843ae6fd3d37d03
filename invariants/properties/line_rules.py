"""The contract each variant is judged by: the reference's rules for its TypeScript line's behaviours.

A line behaviour (``strategies.defects.Behaviour``: the byte wall, the dropped-image placeholder, the
hysteresis watermark, raw forms, the budget diagnostics) is what a newer line does by design, so the reference
follows it; a defect never changes the rules, so every invariant sees every defect (docs/model.md, Invariants).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from invariants.properties.running import Variant
from reference.images import DROPPED, PLACEHOLDER, ImageRules
from reference.rendering import Switches
from reference.selection import Rules
from strategies.defects import Behaviour, Defects, Resumed, resolve_variant

#: The variant whose line's rules judge every compile while set (None: each variant by its own). Only the proof's
#: behaviour rows set it (``invariants.prove.engine.prove(judged_as=...)``): a compile with a behaviour judged by the
#: rules without it breaks an invariant where the proof tells the behaviour apart.
JUDGED_AS: ContextVar[Variant | Defects | None] = ContextVar("judged_as", default=None)


@contextmanager
def judged_as(variant: Variant | Defects | None) -> Iterator[None]:
    """Within the block, every compile is judged by ``variant``'s line rules (None: each by its own)."""
    token = JUDGED_AS.set(variant)
    try:
        yield
    finally:
        JUDGED_AS.reset(token)


def _judged(variant: Variant) -> Defects:
    judged = JUDGED_AS.get()
    return resolve_variant(variant if judged is None else judged)


def image_rules_for(variant: Variant) -> ImageRules:
    """The reference's image rules for a variant's line behaviours, from the watermark its compiles start at."""
    d = _judged(variant)
    return ImageRules(
        placeholder=DROPPED if d.on(Behaviour.IMAGE_PLACEHOLDER_DROPPED) else PLACEHOLDER,
        byte_wall=d.on(Behaviour.LIVE_IMAGE_BYTE_WALL),
        first_block_first=d.on(Behaviour.IMAGES_FIRST_BLOCK_FIRST),
        hysteresis=d.on(Behaviour.IMAGE_STRIP_HYSTERESIS),
        below=variant.watermark if isinstance(variant, Resumed) else None,
    )


def rules_for(variant: Variant) -> Rules:
    """The reference selection's rules for a variant: the contract's, with its line's image rules."""
    return Rules(images=image_rules_for(variant))


def switches_for(variant: Variant) -> Switches:
    """The reference rendering's switches for a variant: the contract's, with its line's behaviours."""
    return Switches(
        images=image_rules_for(variant),
        release_raw_forms=_judged(variant).on(Behaviour.RAW_FORMS_RELEASED),
    )


def reports_inventory(variant: Variant) -> bool:
    """Whether the variant's refusals carry the summary inventory and state it, with the budget, in their message
    (``Behaviour.BUDGET_DIAGNOSTICS``)."""
    return _judged(variant).on(Behaviour.BUDGET_DIAGNOSTICS)
