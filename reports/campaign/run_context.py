"""What the phases of one campaign run share: the code under test and its fingerprint, the shard, its journal and the
deadline.

``Settings`` say where and how a campaign runs and stay the same from run to run; a ``RunContext`` is made once per
run by ``reports.campaign.pipeline`` and handed to each phase.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from pathlib import Path

from reports.campaign.fingerprint import fingerprint, hashed_files
from reports.campaign.journal import Journal, journal_name
from reports.campaign.settings import Settings


@dataclass(frozen=True)
class RunContext:
    """One run: ``fp`` the code's fingerprint, ``journal`` where its records go, ``code`` the files of the code under
    test (walked once: the harness's files are found from the import graph), ``shard`` (I, N) or None, ``deadline`` a
    ``time.time()`` past which no new run starts (None: no deadline)."""

    fp: str
    journal: Journal
    code: tuple[Path, ...]
    shard: tuple[int, int] | None = None
    deadline: float | None = None

    @classmethod
    def start(
        cls, settings: Settings, shard: tuple[int, int] | None = None, deadline: float | None = None
    ) -> RunContext:
        code = tuple(hashed_files(settings.root, settings.hashed))
        journal = Journal(settings.journal_dir, journal_name(shard))
        return cls(fingerprint(settings, code), journal, code, shard, deadline)

    def seconds_left(self) -> float:
        return math.inf if self.deadline is None else self.deadline - time.time()
