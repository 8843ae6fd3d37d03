"""What the phases of one campaign run share: the code's fingerprint, the shard, its journal and the deadline.

``Settings`` say where and how a campaign runs and stay the same from run to run; a ``RunContext`` is made once per
run by ``reports.campaign.pipeline`` and handed to each phase.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from reports.campaign.journal import Journal, journal_name
from reports.campaign.settings import Settings


@dataclass(frozen=True)
class RunContext:
    """One run: ``fp`` the code's fingerprint, ``shard`` (I, N) or None, ``journal`` where its records go, ``deadline``
    a ``time.time()`` past which no new run starts (None: no deadline)."""

    fp: str
    journal: Journal
    shard: tuple[int, int] | None = None
    deadline: float | None = None

    @classmethod
    def start(
        cls, settings: Settings, fp: str, shard: tuple[int, int] | None = None, deadline: float | None = None
    ) -> RunContext:
        return cls(fp, Journal(settings.journal_dir, journal_name(shard)), shard, deadline)

    def seconds_left(self) -> float:
        return math.inf if self.deadline is None else self.deadline - time.time()
