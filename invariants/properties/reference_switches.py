"""The reference model's switches for a variant's named defects: the ones that change the windows,
the selection or the bytes sent, so that the reference judges a faithful variant by its own rules."""

from __future__ import annotations

from invariants.properties.running import Variant
from reference.model import Config, Store
from reference.rendering import Switches
from reference.selection import Rules, bounds
from strategies.defects import Defect, resolve_variant


def defects_of(variant: Variant) -> frozenset[Defect]:
    return resolve_variant(variant).active


def switches_for(variant: Variant) -> Switches:
    """The reference rendering's switches for the named defects that change the bytes sent."""
    d = defects_of(variant)
    return Switches(
        combined_selection_order=Defect.COMBINED_SELECTION_ORDER in d,
        verbatim_stamps=Defect.STAMPS_VERBATIM in d,
        header_replace_chained=Defect.HEADER_REPLACE_CHAINED in d,
        trim_trailing_calls=Defect.TRIM_DROPS_TRAILING_TOOL_USE in d,
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
    )


def bounds_of(store: Store, config: Config, variant: Variant) -> tuple[int, int]:
    return bounds(store, config, rules_for(variant))
