"""Where each function a bug report cites is, at each tip's commit, committed as data (``typescript_locations.json``),
so that ``cmharness defects --report`` cites ``file:line`` at a commit without the maintainer's clone.

A function's lines were found by ``typescript_source.find_function`` in the file as stored at each commit, and in a
long function the lines of the part a report names (``Presence.part``) were read there; each copy keeps its length in
characters and its count of lines, which a maintainer can compare with their checkout (``git show COMMIT:FILE | wc
-l``). With ``--source CLONE`` the clone is read instead, and a function whose lines there differ from these is said on
stderr (its row then cites the function's lines in the clone, not the committed part's).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict, TypeAdapter

from invariants.json_files import read_json
from reports.cli.typescript_source import Lines, find_function
from reports.errors import HarnessError

LINES_FILE = Path(__file__).with_name("typescript_locations.json")


class _Copy(BaseModel):
    """One file at one commit: its size, and each function's first and last line."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    commit: str
    file: str
    characters: int
    lines: int
    functions: dict[str, tuple[int, int]]
    #: function -> the part a report names (``Presence.part``) -> the lines of each place it is at.
    parts: dict[str, dict[str, list[tuple[int, int]]]] = {}


class _Table(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    about: str
    copies: list[_Copy]


@dataclass(frozen=True)
class KnownLines:
    """The committed lines: (commit, file, function) to the function's lines there, and (commit, file, function,
    part) to the lines of each place the part is at."""

    table: Mapping[tuple[str, str, str], Lines]
    parts: Mapping[tuple[str, str, str, str], tuple[Lines, ...]] = field(default_factory=dict)

    def lines(self, commit: str, file: str, function: str) -> Lines | None:
        """Where ``function`` is defined in ``file`` at ``commit``, or None when the table does not say."""
        return self.table.get((commit, file, function))

    def part_lines(self, commit: str, file: str, function: str, part: str) -> tuple[Lines, ...]:
        """Where ``part`` of ``function`` is in ``file`` at ``commit`` (nothing when the table does not say)."""
        return self.parts.get((commit, file, function, part), ())


class LocationsError(HarnessError):
    """The committed table does not read (a broken or hand-edited checkout): one line naming the file, exit 3."""


@functools.cache
def known_lines(path: Path = LINES_FILE) -> KnownLines:
    """The table in ``path``; one that does not read is the project's error, not the user's (``LocationsError``)."""
    try:
        table = read_json(TypeAdapter(_Table), path.read_bytes(), strict=True)
    except OSError as err:
        raise LocationsError(f"{path}: cannot read the TypeScript's locations: {err.strerror or err}") from None
    except ValueError as err:
        raise LocationsError(f"{path}: not the table of the TypeScript's locations: {err}") from None
    return KnownLines(
        {(c.commit, c.file, name): Lines(*span) for c in table.copies for name, span in c.functions.items()},
        {
            (c.commit, c.file, name, part): tuple(Lines(*span) for span in spans)
            for c in table.copies
            for name, parts in c.parts.items()
            for part, spans in parts.items()
        },
    )


def locate(commit: str, file: str, text: str, functions: Iterable[str]) -> dict[str, object]:
    """One copy's entry of the table: ``text`` (the file at ``commit``), its size, and the lines of each of
    ``functions`` found in it (one not found is left out)."""
    found = {name: find_function(text, name) for name in sorted(set(functions))}
    return {
        "commit": commit,
        "file": file,
        "characters": len(text),
        "lines": text.count("\n"),
        "functions": {name: [at.start, at.end] for name, at in found.items() if at is not None},
    }
