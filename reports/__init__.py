"""Reports and the ``cmharness`` command line (pricing scenarios now; reports on findings later)."""
