"""The variants' names, spelt here only: the contract's vocabulary (a scenario's expectations are keyed by them) and
the keys of ``strategies.defects.VARIANTS`` (a test keeps the two the same)."""

from __future__ import annotations

MAIN = "main-48bb87a1"  # the TypeScript main before the seed's change
PR = "pr-8bb01ab8"  # main with the seed's change (the combined-pair grace pull request)
SOUND = "sound"  # no known defect
HYSTERESIS = "hysteresis-a95eb55b"  # the image-strip hysteresis line's tip
RAW_FORMS = "raw-forms-cbe7032a"  # the raw-forms line's tip
VARIANT_NAMES: tuple[str, ...] = (MAIN, PR, SOUND, HYSTERESIS, RAW_FORMS)
FAITHFUL: tuple[str, ...] = (MAIN, PR)
#: The seed's variants, which ``all`` names: a newer line's variant is named by its own key.
SEED_VARIANTS: tuple[str, ...] = (MAIN, PR, SOUND)
