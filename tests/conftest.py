"""Load the cmharness pytest plugin when it is not installed as an entry point (never twice), and pytester."""

from __future__ import annotations

import os
from importlib.metadata import entry_points


def _installed() -> bool:
    if os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD"):
        return False
    return any(ep.value == "invariants.plugin" for ep in entry_points(group="pytest11"))


pytest_plugins = ["pytester"] + ([] if _installed() else ["invariants.plugin"])
