"""The mutation campaign behind ``cmharness report``: ``pipeline`` composes its phases (``phases/``), in order:

1. ``phases.baseline``: every selected test once on the unmutated code, each test's outcome and calls.
2. ``phases.named``: the named mutants in parallel (``named_mutants`` defines them; ``named_warm`` runs them from one
   warm session, ``runs`` a process each; ``extra_mutants`` adds patch files).
3. ``phases.mutmut``: mutmut's operator mutants (``mutmut/``: a work copy, generation, execution from a warm session,
   results).
4. ``phases.witness``: the red-first witness search (``witness_search``), a failing run for every test the main pass
   never saw fail.

Around them: ``settings`` (where and how a campaign runs), ``run_context`` (what one run's phases share: fingerprint,
shard, journal, deadline), ``options`` (the command-line options), ``journal`` (finished runs keyed by a fingerprint
of the code), ``dependency_keys`` (what a result depends on), ``processes`` (the pytest subprocesses), ``progress``
(the progress line), ``hints`` and ``suite_order`` (what a complete report learnt). ``plugins/`` holds the pytest
plugins loaded inside the child sessions.

The campaign never imports ``reports.cli`` nor ``reports.render`` (docs/architecture.md).
"""
