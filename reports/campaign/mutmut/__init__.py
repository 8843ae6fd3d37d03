"""mutmut's operator mutants: the work copy (``work_copy``), generation and coverage (``prepare``), the warm
execution (``execute``, ``test_order``), the run as a campaign phase (``run``) and the results read back
(``results``, ``describe``)."""
