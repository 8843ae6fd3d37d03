"""Every exit code of ``cmharness``, in one place; the README's table is kept in step by a test.

A code means the same kind of thing in every subcommand: 0 nothing to report, 1 something found, 2 the input or
the options are wrong (one line on stderr, no traceback), 3 something worse than found, or not finished.
"""

from __future__ import annotations

from enum import IntEnum


class Exit(IntEnum):
    """``cmharness``'s exit codes (the aliases name what a subcommand means by one)."""

    OK = 0
    FOUND = 1
    USAGE = 2
    SEVERE = 3

    # what a subcommand means by FOUND
    REPRODUCED = 1  # check: breaks only where defects are switched on
    SURVIVORS = 1  # report: survivors, red-first gaps, or a test failing on the unmutated code
    NOT_AS_EXPECTED = 1  # reproduce: a scenario did not do what its expect says
    NEW_BYTES = 1  # compare: a cell sends different bytes on the two sides
    FAILURE_FOUND = 1  # fuzz: a property test failed that should pass
    # what a subcommand means by SEVERE
    SOUND_BROKE = 3  # check: the variant with no defect breaks an invariant
    INCOMPLETE = 3  # report: mutants pending (budget, Ctrl-C, SIGTERM), or the campaign could not go on


#: What each code means for each subcommand (the README's table, "Exit codes").
MEANINGS: dict[str, dict[Exit, str]] = {
    "check": {
        Exit.OK: "no invariant breaks",
        Exit.REPRODUCED: "breaks only where defects are switched on",
        Exit.USAGE: "unreadable input or a bad option",
        Exit.SOUND_BROKE: "a variant with no defect (`sound`, alone or with a line's behaviours) breaks an invariant",
    },
    "reproduce": {
        Exit.OK: "every scenario as expected",
        Exit.NOT_AS_EXPECTED: "a scenario is not as expected",
        Exit.USAGE: "unreadable input or a bad option",
    },
    "compare": {
        Exit.OK: "no cell sends different bytes on the two sides",
        Exit.NEW_BYTES: "a cell sends different bytes on the two sides",
        Exit.USAGE: "unreadable input or a bad option",
    },
    "fuzz": {
        Exit.OK: "no failure beyond the expected reds",
        Exit.FAILURE_FOUND: "a property test failed that should pass (its replay command is printed)",
        Exit.USAGE: "a bad option or database",
    },
    "report": {
        Exit.OK: "complete, nothing survived, every test shown red",
        Exit.SURVIVORS: "survivors, red-first gaps, or a test that fails on the unmutated code",
        Exit.USAGE: "a bad option",
        Exit.INCOMPLETE: "incomplete: mutants pending, or the baseline could not run",
    },
    "prove": {
        Exit.OK: "no invariant breaks within the scope",
        Exit.FOUND: "an invariant breaks on a variant that carries defects (the smallest store written)",
        Exit.USAGE: "a bad option, scope, variant or invariant, or an unreadable shard file",
        Exit.SEVERE: (
            "a variant with no defect (`sound`, alone or with a line's behaviours) breaks an invariant within the scope"
        ),
    },
    "every other command": {
        Exit.OK: "done",
        Exit.USAGE: "unreadable input or a bad option",
    },
}


def markdown_table() -> list[str]:
    """The exit codes as the README's markdown table: a row per subcommand, a column per code."""
    codes = [Exit.OK, Exit.FOUND, Exit.USAGE, Exit.SEVERE]
    rows = ["| command | " + " | ".join(f"exit {int(c)}" for c in codes) + " |", "|---" * (len(codes) + 1) + "|"]
    for command, meaning in MEANINGS.items():
        name = command if " " in command else f"`{command}`"
        rows.append(f"| {name} | " + " | ".join(meaning.get(c, "-") for c in codes) + " |")
    return rows
