"""Load the cmharness pytest plugin (profiles, ``variant``, ``red_on``, ``slow``) for this suite.

It is deliberately not a ``pytest11`` entry point: installed, it would load into every pytest run in
the environment, the mutation campaign's scratch projects included. It also holds the ``campaign``
fixture the ``test_campaign_*`` modules share.

The suite keeps bytecode caches even where ``PYTHONDONTWRITEBYTECODE`` is set: without them every run
recompiles the project and has pytest rewrite its 3,000 assertions again, about 6 of the 10 seconds before
the first test on a 2-core machine (``benchmarks/README.md``). The caches are git-ignored ``__pycache__``
folders, checked against each source's time and size as Python always does.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from reports.campaign.settings import Settings

sys.dont_write_bytecode = False

pytest_plugins = ["pytester", "invariants.plugin"]


@pytest.fixture(scope="session")
def campaign(tmp_path_factory: pytest.TempPathFactory) -> tuple[Settings, str, dict[str, dict[str, Any]]]:
    """One campaign over the fake project: (settings, fingerprint, records); run once (about 20 s) for every
    ``test_campaign_*`` module, its imports here so that no other session pays for them."""
    from campaign_helpers import MUTANTS, make_project, run_named_mutants, settings_for

    from reports.campaign.fingerprint import fingerprint

    root = make_project(tmp_path_factory.mktemp("fake"))
    settings = settings_for(root)
    fp = fingerprint(settings)
    records = run_named_mutants(settings, MUTANTS, fp=fp)
    return settings, fp, records
