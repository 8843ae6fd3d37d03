"""What mutmut mutates, as the project's ``[tool.mutmut]`` says (``source_paths``, ``only_mutate``): the code whose
functions a test's outcome is keyed by (the baseline's keys and call recorder) and the files mutmut's work copy
mutates. It imports nothing of the model: the call recorder reads it before the code under test is imported."""

from __future__ import annotations

import fnmatch
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

#: The model's folders: everything the tests test (a test of ``reference/`` can only be shown red by a mutant there),
#: and the judges (``[tool.mutmut] only_mutate`` names which parts of ``invariants/``).
MODEL_PATHS = ("strategies", "reference", "invariants")
#: The folders mutmut mutates: the model's, and the tool's own, where ``only_mutate`` names the verdict rules alone
#: (``check``'s, ``fuzz``'s, ``compare``'s classes), never the campaign. ``--mutmut-paths`` chooses a run's folders;
#: results of other runs stay in the report.
MUTMUT_PATHS = (*MODEL_PATHS, "reports")


def mutmut_config(root: Path) -> dict[str, Any]:
    """The ``[tool.mutmut]`` table of ``root``'s pyproject.toml (empty without one: mutmut's defaults)."""
    path = root / "pyproject.toml"
    data = tomllib.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    return data.get("tool", {}).get("mutmut", {})


def is_mutated(rel: str, config: Mapping[str, Any]) -> bool:
    """Whether mutmut mutates the Python file ``rel``, as it decides: under one of its ``source_paths`` (the mutated
    folders when none is given) and one of its ``only_mutate`` files (``fnmatch``), or any file without them."""
    roots = [p.rstrip("/") for p in config.get("source_paths", [])] or list(MUTMUT_PATHS)
    patterns = config.get("only_mutate") or ["*"]
    return any(rel == r or rel.startswith(r + "/") for r in roots) and any(fnmatch.fnmatch(rel, p) for p in patterns)


def is_code(rel: str, config: Mapping[str, Any]) -> bool:
    """Whether the Python file ``rel`` is code under test, keyed and traced function by function: a module of the
    model's folders, or one mutmut mutates elsewhere (the tools' verdict rules)."""
    return rel.endswith(".py") and (rel.split("/", 1)[0] in MODEL_PATHS or is_mutated(rel, config))
