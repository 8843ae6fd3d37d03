"""Load the cmharness pytest plugin (profiles, ``variant``, ``red_on``, ``slow``) for this suite.

It is deliberately not a ``pytest11`` entry point: installed, it would load into every pytest run in
the environment, the mutation campaign's scratch projects included.
"""

pytest_plugins = ["pytester", "invariants.plugin"]
