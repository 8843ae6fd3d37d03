"""The reviewed equivalent mutants (``mutation/equivalent_mutants.toml``): each mutmut mutant that no test can
kill because it changes nothing observable, with the reviewer's one-line reason."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from reports.campaign.settings import COMMITTED

EQUIVALENTS = COMMITTED / "equivalent_mutants.toml"


@dataclass(frozen=True)
class Equivalent:
    id: str
    reason: str
    replacement: str | None = None


def load_equivalents(path: Path = EQUIVALENTS) -> dict[str, Equivalent]:
    if not path.exists():
        return {}
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    out = {}
    for entry in data.get("mutant", []):
        out[entry["id"]] = Equivalent(entry["id"], entry["reason"], entry.get("replacement"))
    return out
