"""The tooling: the ``cmharness`` command (``cli``), the mutation campaign behind ``cmharness report``
(``campaign``), the report rendered from its records (``render``) and ``cmharness compare``'s computation
(``compare``); docs/architecture.md describes the phases and the dependency rule.

Nothing here loads numpy at import (matplotlib, for ``cmharness compare --plot``, is imported where the plot is
drawn): once numpy is loaded, Hypothesis saves, reseeds and restores numpy's global random state around every
example, which costs a generated case about a fifth more. Collecting the suite imports these modules.
"""
