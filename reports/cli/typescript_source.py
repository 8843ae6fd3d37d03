"""Where a function is in the maintainer's own clone of the TypeScript (``cmharness defects --report ... --source``):
its file read at a commit with ``git show`` and the function's first and last lines, so that a bug report cites
``file:line`` at that commit as the maintainer's checkout shows it.

A definition is a line that starts (after modifiers) with ``function NAME(``, a method ``NAME(`` or
``const NAME =``, followed by a body in braces; a call such as ``NAME(x);`` is none. Its last line is where its
opening brace closes, read past strings, template literals, comments and regular expressions.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from reports.errors import UsageError

_MODIFIERS = r"(?:(?:export|default|public|private|protected|static|async|override|readonly|abstract|declare)\s+)*"
#: What a line holding a definition of ``{name}`` starts with (a function, a method or accessor, a bound constant).
_DEFINITION = (
    r"^[ \t]*" + _MODIFIERS + r"(?:function\s*\*?\s*|(?:get|set)\s+)?{name}\s*(?:<[^>{{;]*>)?\s*\("
    r"|^[ \t]*" + _MODIFIERS + r"(?:const|let|var)\s+{name}\b[^=;]*="
)
#: Before a ``/`` that opens a regular expression: an operator, an opening bracket, or one of these words.
_REGEX_AFTER = set("(,=:[!&|?{};+-*%<>~^")
#: Where a type starts in a return type: a ``{`` after one of these opens an object type.
_TYPE_STARTS = frozenset(":|&,<(")
_REGEX_WORDS = {"return", "typeof", "case", "in", "of", "new", "delete", "void", "throw", "yield", "await"}


@dataclass(frozen=True)
class Lines:
    """A function's first and last line in its file (1-based)."""

    start: int
    end: int

    def __str__(self) -> str:
        return str(self.start) if self.end == self.start else f"{self.start}-{self.end}"


def find_function(text: str, name: str) -> Lines | None:
    """The lines of the first definition of ``name`` in the TypeScript ``text`` that has a body, or None."""
    pattern = re.compile(_DEFINITION.format(name=re.escape(name)), re.MULTILINE)
    for match in pattern.finditer(text):
        bound = text[match.end() - 1] == "="  # ``const NAME =``: its value may end at a ``;``
        body = _body_start(text, match.end(), 0 if bound else 1, bound)
        if body is None:
            continue
        end = _closing(text, body) if text[body] == "{" else body
        if end is None:
            continue
        return Lines(text.count("\n", 0, match.start()) + 1, text.count("\n", 0, end) + 1)
    return None


def _body_start(text: str, i: int, depth: int, bound: bool) -> int | None:
    """From ``i`` (inside ``depth`` brackets): the index of the body's ``{`` (or, for a ``bound`` constant, the
    ``;`` that ends its value), or None when a ``;`` comes first (a call, or a declaration without a body). A ``{``
    where a type starts (after ``:``, ``|``, ``&``, ``,``, ``<`` or ``(``, or in a method's return type after
    ``=>``) opens an object type, not the body."""
    prev = ""
    for j, ch in _code(text, i):
        if ch.isspace():
            continue
        arrow = prev == ">" and text[max(0, j - 64) : j].rstrip().endswith("=>")
        if ch in "([" or (ch == "{" and (prev in _TYPE_STARTS or (arrow and not bound))):
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif depth <= 0 and ch == "{":
            return j
        elif depth <= 0 and ch == ";":
            return j if bound else None
        prev = ch
    return None


def _closing(text: str, open_at: int) -> int | None:
    """The index of the ``}`` that closes the brace at ``open_at``."""
    depth = 0
    for j, ch in _code(text, open_at):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return j
    return None


def _code(text: str, i: int) -> Iterator[tuple[int, str]]:
    """The characters of code from ``i`` on, with their indices: strings, template literals (their ``${}`` parts
    are code), comments and regular expressions are passed over."""
    templates: list[int] = []  # for each open template literal, the brace depth of code at its ``${``
    braces = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if templates and braces == templates[-1] and ch == "}":  # back into the template literal
            templates.pop()
            i = _template_rest(text, i + 1, templates, braces)
            continue
        if ch in "'\"":
            i = _string_end(text, i) + 1
            continue
        if ch == "`":
            i = _template_rest(text, i + 1, templates, braces)
            continue
        if text.startswith("//", i):
            nl = text.find("\n", i)
            i = n if nl < 0 else nl
            continue
        if text.startswith("/*", i):
            close = text.find("*/", i + 2)
            i = n if close < 0 else close + 2
            continue
        if ch == "/" and _opens_regex(text, i):
            i = _regex_end(text, i) + 1
            continue
        if ch == "{":
            braces += 1
        elif ch == "}":
            braces -= 1
        yield i, ch
        i += 1


def _string_end(text: str, i: int) -> int:
    quote, j = text[i], i + 1
    while j < len(text) and text[j] != quote and text[j] != "\n":
        j += 2 if text[j] == "\\" else 1
    return j


def _template_rest(text: str, i: int, templates: list[int], braces: int) -> int:
    """Past the rest of a template literal from ``i``: to just after its closing backquote, or into the code of a
    ``${`` (whose closing brace ``_code`` then finds at depth ``braces``)."""
    while i < len(text):
        if text[i] == "\\":
            i += 2
        elif text[i] == "`":
            return i + 1
        elif text.startswith("${", i):
            templates.append(braces)
            return i + 2
        else:
            i += 1
    return i


def _opens_regex(text: str, i: int) -> bool:
    j = i - 1
    while j >= 0 and text[j] in " \t\r\n":
        j -= 1
    if j < 0 or text[j] in _REGEX_AFTER:
        return True
    start = j  # the word that ends at ``j``
    while start >= 0 and (text[start].isalnum() or text[start] in "_$"):
        start -= 1
    return text[start + 1 : j + 1] in _REGEX_WORDS


def _regex_end(text: str, i: int) -> int:
    j, in_class = i + 1, False
    while j < len(text) and text[j] != "\n":
        if text[j] == "\\":
            j += 2
            continue
        if text[j] == "[":
            in_class = True
        elif text[j] == "]":
            in_class = False
        elif text[j] == "/" and not in_class:
            return j
        j += 1
    return j


@dataclass
class Checkout:
    """A git clone of the TypeScript; each file read once at each commit asked for."""

    path: Path
    #: What was asked for and not found (``FUNCTION in FILE at COMMIT``), in the order asked.
    missing: list[str] = field(default_factory=list)
    #: Functions found at other lines than the committed table says (``typescript_locations``), in the order asked.
    differing: list[str] = field(default_factory=list)
    _texts: dict[tuple[str, str], str | None] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        try:
            ok = subprocess.run(
                ["git", "-C", str(self.path), "rev-parse", "--git-dir"], capture_output=True, text=True, check=False
            )
        except OSError as err:
            raise UsageError(f"--source {self.path}: cannot run git: {err.strerror or err}") from None
        if not self.path.is_dir() or ok.returncode != 0:
            raise UsageError(f"--source {self.path}: not a git clone of the TypeScript (context-manager)")

    def text(self, commit: str, file: str) -> str | None:
        """``file`` as it is at ``commit`` (None when the clone lacks the commit or the file)."""
        key = (commit, file)
        if key not in self._texts:
            shown = subprocess.run(
                ["git", "-C", str(self.path), "show", f"{commit}:{file}"],
                capture_output=True,
                text=True,
                encoding="utf-8",
                errors="replace",
                check=False,
            )
            self._texts[key] = shown.stdout if shown.returncode == 0 else None
        return self._texts[key]

    def lines(self, commit: str, file: str, function: str) -> Lines | None:
        """Where ``function`` is defined in ``file`` at ``commit``, or None."""
        text = self.text(commit, file)
        return find_function(text, function) if text is not None else None
