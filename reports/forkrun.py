"""A warm pytest process that forks one child per run: how the named mutants run without paying pytest's start-up.

``python -m reports.forkrun SELECTION...`` imports pytest and collects the selection once (so the
test modules, the plugins, Hypothesis and the code under test are imported), then reads jobs from
stdin, one JSON line each (``{"args": [...], "log": PATH}``). For each job it forks a child in its
own process group that runs ``pytest.main(args)`` with its output in ``log``, answers
``{"pid": PID}`` at once and ``{"exit": CODE}`` when the child ends. The campaign kills a child's
group at its timeout; a child's changes (a mutant switched on in its memory) die with it.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys


def _die_with_parent() -> None:
    with contextlib.suppress(Exception):
        import ctypes

        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG (Linux)


def serve(selection: list[str]) -> None:
    import pytest

    proto = os.fdopen(os.dup(1), "w", buffering=1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    pytest.main(["-q", "--collect-only", "-p", "no:cacheprovider", "-p", "no:randomly",
                 "-p", "reports.mutant_plugin", *selection])
    proto.write(json.dumps({"ready": True}) + "\n")
    for line in sys.stdin:
        job = json.loads(line)
        pid = os.fork()
        if pid == 0:  # the child: one pytest run
            code = 3
            try:
                os.setpgid(0, 0)
                _die_with_parent()
                fd = os.open(job["log"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
                os.dup2(fd, 1)
                os.dup2(fd, 2)
                code = int(pytest.main(job["args"]))
            finally:
                with contextlib.suppress(Exception):
                    sys.stdout.flush()
                    sys.stderr.flush()
                os._exit(code)
        proto.write(json.dumps({"pid": pid}) + "\n")
        _, status = os.waitpid(pid, 0)
        proto.write(json.dumps({"exit": os.waitstatus_to_exitcode(status)}) + "\n")


if __name__ == "__main__":
    _die_with_parent()
    serve(sys.argv[1:])
