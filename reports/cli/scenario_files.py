"""The one scenario reader of the command line: files, directories of ``*.scenario.json`` (and of the ``*.fixture.json``
``cmharness defects --report --out`` writes), ``-`` for stdin.

Every subcommand reads scenarios here, and every read goes through ``reference.json_input``'s limits (nesting
depth, digits of an integer) via the scenario loader. Any problem becomes an ``InputError``: one line naming
the file and the culprit, exit 2 (docs/model.md, "Bad input").
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from reference.json_input import JsonLimitError, scenario_objects
from reference.scenario import Scenario, ScenarioError, load_scenario, loads_scenario
from reports.errors import UsageError

SUFFIX = ".scenario.json"
#: What a directory's scenario files are named: scenario files, and the bug reports' fixtures beside them.
SUFFIXES = (SUFFIX, ".fixture.json")


class InputError(UsageError):
    """A scenario that cannot be read: one line, naming the file."""


def expand(names: Sequence[str]) -> Iterator[str]:
    """Each name as given, a directory as the scenario files under it (sorted); a directory with none is an error."""
    for name in names:
        path = Path(name)
        if name != "-" and path.is_dir():
            found = sorted(str(p) for suffix in SUFFIXES for p in path.rglob(f"*{suffix}"))
            if not found:
                raise InputError(f"{name}: no {' or '.join(SUFFIXES)} files in this directory")
            yield from found
        else:
            yield name


def read_text(name: str) -> str:
    """The text of a file, or of standard input for ``-``, as UTF-8."""
    try:
        if name == "-":
            return sys.stdin.read()
        return Path(name).read_text(encoding="utf-8")
    except (OSError, UnicodeError) as err:
        reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        raise InputError(f"{name}: cannot read: {reason}") from err


def read_scenario(name: str) -> Scenario:
    """Load one scenario file (``-`` reads standard input)."""
    text = read_text(name)
    try:
        return loads_scenario(text)
    except ScenarioError as err:
        raise InputError(f"{name}: {err}") from err


def read_counterexample(name: str) -> Scenario:
    """A scenario file, or the first scenario object inside other text (a failing test's output)."""
    text = read_text(name)
    try:
        return loads_scenario(text)
    except ScenarioError as whole:
        try:
            found = next(scenario_objects(text), None)
        except JsonLimitError as err:
            raise InputError(f"{name}: scenario: {err}") from err
        if found is None:
            if not text.lstrip().startswith("{"):
                raise InputError(
                    f"{name}: no scenario JSON found (expected a scenario file or a failing test's output)"
                ) from whole
            raise InputError(f"{name}: {whole}") from whole
    try:
        return load_scenario(found)
    except ScenarioError as err:
        raise InputError(f"{name}: {err}") from err


def write_text(name: str, text: str) -> None:
    """Write ``text`` to the file ``name`` as UTF-8, its folder made if missing."""
    try:
        Path(name).parent.mkdir(parents=True, exist_ok=True)
        Path(name).write_text(text, encoding="utf-8")
    except (OSError, UnicodeError) as err:
        reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        raise InputError(f"{name}: cannot write: {reason}") from err
