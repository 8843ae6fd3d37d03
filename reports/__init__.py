"""The tooling: the ``cmharness`` command (``cli``), the mutation campaign behind ``cmharness report``
(``campaign``), the report rendered from its records (``render``) and ``cmharness compare``'s computation
(``compare``); docs/architecture.md describes the phases and the dependency rule.

pandas (and so numpy) is imported inside the functions that build tables, never at module level: once numpy
is loaded, Hypothesis saves, reseeds and restores numpy's global random state around every example, which
costs a generated case about a fifth more. Collecting the suite imports these modules; it must not load numpy.
"""
