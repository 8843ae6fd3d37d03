"""The reference model's switches for a variant's named defects: the ones that change the windows,
the selection or the bytes sent, so that the reference judges a faithful variant by its own rules."""

from __future__ import annotations

from invariants.properties.running import Variant
from reference.images import DROPPED, PLACEHOLDER, ImageRules
from reference.model import Config, Store
from reference.rendering import Switches
from reference.selection import Rules, bounds
from strategies.defects import Behaviour, Defect, Defects, resolve_variant


def defects_of(variant: Variant) -> frozenset[Defect]:
    return resolve_variant(variant).active


def image_rules_for(variant: Variant) -> ImageRules:
    """The reference's image rules for a variant's line behaviours (``DEPTH_RULE_OFF_BY_ONE`` is not one: the
    reference keeps the contract's depth rule, so the invariants see that defect)."""
    d: Defects = resolve_variant(variant)
    return ImageRules(
        placeholder=DROPPED if d.on(Behaviour.IMAGE_PLACEHOLDER_DROPPED) else PLACEHOLDER,
        byte_wall=d.on(Behaviour.LIVE_IMAGE_BYTE_WALL),
        first_block_first=d.on(Behaviour.IMAGES_FIRST_BLOCK_FIRST),
        hysteresis=d.on(Behaviour.IMAGE_STRIP_HYSTERESIS),
    )


def switches_for(variant: Variant) -> Switches:
    """The reference rendering's switches for the named defects that change the bytes sent."""
    d = defects_of(variant)
    return Switches(
        combined_selection_order=Defect.COMBINED_SELECTION_ORDER in d,
        verbatim_stamps=Defect.STAMPS_VERBATIM in d,
        header_replace_chained=Defect.HEADER_REPLACE_CHAINED in d,
        trim_trailing_calls=Defect.TRIM_DROPS_TRAILING_TOOL_USE in d,
        images=image_rules_for(variant),
        release_raw_forms=resolve_variant(variant).on(Behaviour.RAW_FORMS_RELEASED),
    )


def rules_for(variant: Variant) -> Rules:
    """The reference selection's switches for the named defects that change windows or selection."""
    d = defects_of(variant)
    return Rules(
        verbatim_stamps=Defect.STAMPS_VERBATIM in d,
        deep_window_candidates=Defect.DEEP_WINDOW_CANDIDATES in d,
        verbatim_tokens=Defect.UNCHECKED_BAD_VALUES in d,
        raw_cap_plus_50=Defect.RAW_CAP_PLUS_50 in d,
        blank_candidates=Defect.BLANK_SUMMARIES_SELECTED in d,
        store_wide_images=Defect.IMAGE_COUNT_STORE_WIDE in d,
        images=image_rules_for(variant),
    )


def bounds_of(store: Store, config: Config, variant: Variant) -> tuple[int, int]:
    return bounds(store, config, rules_for(variant))
