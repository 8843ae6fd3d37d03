"""The red-first report, the comparisons and the ``cmharness`` command line.

pandas (and so numpy) is imported inside the functions that build tables, never at module level: once numpy
is loaded, Hypothesis saves, reseeds and restores numpy's global random state around every example, which
costs a generated case about a fifth more. Collecting the suite imports these modules; it must not load numpy.
"""
