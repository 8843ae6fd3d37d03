"""The mutation campaign behind ``cmharness report``: its phases, in the order they run.

1. The baseline (``runs``): every selected test once on the unmutated code, each test's outcome on each variant.
2. The named mutants (``named_mutants`` defines them; ``named_scheduler`` runs them in parallel, from one warm
   session (``named_warm``) or a process each (``runs``); ``extra_mutants`` adds patch files).
3. mutmut's operator mutants (``mutmut/``: a work copy, generation, execution from a warm session, results).
4. The red-first witness search (``witness``): a failing run for every test the main pass never saw fail.

Around them: ``settings`` (where and how a campaign runs), ``options`` (the command-line options),
``journal`` (finished runs keyed by a fingerprint of the code), ``dependency_keys`` (what a result depends on),
``processes`` (the pytest subprocesses), ``progress`` (the progress line), ``hints`` and ``suite_order`` (what a
complete report learnt). ``plugins/`` holds the pytest plugins loaded inside the child sessions.

The campaign never imports ``reports.cli`` nor ``reports.render`` (docs/architecture.md).
"""
