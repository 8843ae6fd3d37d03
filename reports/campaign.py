"""The mutation campaign: the baseline run, each named mutant in its own pytest subprocess, and mutmut.

- The *baseline* runs the selected tests once on the unmutated code, recording each test's outcome
  (``reports.mutant_plugin --cm-results``). Tests are parametrized over variant names, so this one
  run gives every test's outcome on every variant.
- A *named mutant* (``reports.mutants``) runs in its own subprocess with ``--cm-mutant``, over the
  tests that passed on the baseline (only those can kill) and looked its variant up (a mutant changes
  one variant's defect set; ``all_variants=True`` runs every passing test). Example tests run first and
  every one of them that fails is a killing test; the property searches run only while nothing has
  failed (``--cm-quick-killers``). It is *killed* when a test fails, *survived* when none does,
  *timeout* when the run outlives ``timeout_factor * baseline time of those tests + timeout_const``
  seconds with no failure yet. When a property search killed it, that test runs again alone with
  shrinking on (at most ``shrink_timeout`` seconds) for the minimal counterexample.
- mutmut's operator mutants run in a copy of the project (``reports.mutmut_run``).

Results are journaled (JSON lines under ``out/journal/``), each keyed by the mutant's id and the
*fingerprint*: a hash of the code under test, the tests, the plugins, the test selection and the
Hypothesis profile. A campaign run again skips what the journal already holds for the current
fingerprint, so an interrupted one resumes. Named mutants change nothing on disk (the switch lives
in the subprocess's memory); mutmut works in its own copy; the source tree is never written.

``--shard I/N`` runs the mutants a stable hash of their id gives to shard I (each shard also runs
the baseline), journaling to ``shard-I-of-N.jsonl``; the report merges every journal in the folder.

The campaign's parts, one module each: ``campaign_settings`` (where and how it runs), ``campaign_journal``
(the fingerprint and the journal), ``campaign_processes`` (the pytest subprocesses and their killing),
``campaign_runs`` (the baseline and one named mutant), ``campaign_progress`` (the progress line),
``campaign_scheduler`` (the named mutants in parallel, resumed, under a deadline) and ``campaign_options``
(the ``cmharness report`` options). This module is their public face: every name is imported from here.
"""

from __future__ import annotations

from reports.campaign_journal import (
    HARNESS_ONLY,
    SKIP_DIRS,
    Journal,
    fingerprint,
    hashed_files,
    journal_name,
    load_journals,
    reuse_unchanged,
)
from reports.campaign_options import (
    DEFAULT_BUDGET,
    DEFAULT_MUTMUT_PATHS,
    MUTMUT_PATHS,
    add_report_arguments,
    folder_argument,
    seconds_argument,
    shard_argument,
    workers_argument,
)
from reports.campaign_processes import (
    PYTEST_ARGS,
    RunOutcome,
    _die_with_parent,
    _run_process,
    kill_all,
    kill_group,
    read_rows,
    run_pytest,
    terminate_as_interrupt,
)
from reports.campaign_progress import Progress, fmt_time
from reports.campaign_runs import (
    BASELINE,
    RED,
    CampaignError,
    _run_only,
    _shrink_one,
    ensure_baseline,
    red_tests,
    run_baseline,
    run_named,
    tests_for,
    timeout_for,
)
from reports.campaign_scheduler import run_named_mutants
from reports.campaign_settings import DEFAULT_SELECTION, HASHED, ROOT, Settings

#: The underscored names are the harness's own: other ``reports`` modules (the mutmut and warm runners, the
#: witness search, extra mutants) start their runs the same way.
__all__ = [
    "BASELINE",
    "DEFAULT_BUDGET",
    "DEFAULT_MUTMUT_PATHS",
    "DEFAULT_SELECTION",
    "HARNESS_ONLY",
    "HASHED",
    "MUTMUT_PATHS",
    "PYTEST_ARGS",
    "RED",
    "ROOT",
    "SKIP_DIRS",
    "CampaignError",
    "Journal",
    "Progress",
    "RunOutcome",
    "Settings",
    "_die_with_parent",
    "_run_only",
    "_run_process",
    "_shrink_one",
    "add_report_arguments",
    "ensure_baseline",
    "fingerprint",
    "fmt_time",
    "folder_argument",
    "hashed_files",
    "journal_name",
    "kill_all",
    "kill_group",
    "load_journals",
    "read_rows",
    "red_tests",
    "reuse_unchanged",
    "run_baseline",
    "run_named",
    "run_named_mutants",
    "run_pytest",
    "seconds_argument",
    "shard_argument",
    "terminate_as_interrupt",
    "tests_for",
    "timeout_for",
    "workers_argument",
]
