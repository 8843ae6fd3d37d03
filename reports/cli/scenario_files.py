"""Scenario files named on the command line: files, directories of ``*.scenario.json``, ``-`` for stdin."""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from reference.model import MAX_NESTING
from reference.scenario import Scenario, ScenarioError, load_scenario, loads_scenario
from reports.errors import UsageError

SUFFIX = ".scenario.json"


class InputError(UsageError):
    """A scenario that cannot be read: one line, naming the file."""


def expand(names: Sequence[str]) -> Iterator[str]:
    """Each name as given, a directory as the scenario files under it (sorted); a directory with none is an error."""
    for name in names:
        path = Path(name)
        if name != "-" and path.is_dir():
            found = sorted(str(p) for p in path.rglob(f"*{SUFFIX}"))
            if not found:
                raise InputError(f"{name}: no {SUFFIX} files in this directory")
            yield from found
        else:
            yield name


def read(name: str) -> Scenario:
    """Load one scenario (``-`` reads standard input); every problem becomes an ``InputError``."""
    try:
        if name == "-":
            return loads_scenario(sys.stdin.read())
        return load_scenario(name)
    except ScenarioError as err:
        raise InputError(f"{name}: {err}") from err
    except (OSError, UnicodeError) as err:
        reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        raise InputError(f"{name}: cannot read: {reason}") from err


def read_scenario(path: str) -> Scenario:
    """Load a scenario file, turning any problem with it into a ``UsageError``."""
    try:
        return load_scenario(path)
    except ScenarioError as err:
        raise InputError(f"{path}: {err}") from err
    except (OSError, UnicodeError) as err:
        reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        raise InputError(f"{path}: cannot read: {reason}") from err
    except RecursionError as err:  # the JSON parser's own limit, past the model's MAX_NESTING
        raise InputError(f"{path}: nested too deep to read (content nests at most {MAX_NESTING} levels)") from err
    except ValueError as err:  # the JSON parser's own limits (an integer of more than 4,300 digits)
        raise InputError(f"{path}: cannot read: {err}") from err
