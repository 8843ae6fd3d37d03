"""The phases of ``cmharness report``, one module each, composed in this order by ``reports.campaign.pipeline``:

1. ``baseline``: every selected test on the unmutated code (what each test calls, for the incremental keys);
2. ``named``: the named mutants (each known defect alone in ``sound``, the seed's removals, ``--extra-mutants``);
3. ``mutmut``: mutmut's operator mutants, prepared beside the baseline;
4. ``witness``: the red-first witness search, after a complete main pass.

Each takes the run's settings and ``RunContext`` and what it reads of the earlier phases, journals its records
and returns them.
"""
