"""``cmharness fuzz``: the project's property tests under HypoFuzz on worker processes, findings in an example
database that the ordinary test run replays (``engine``), and the verdict on what they found (``verdict``: expected
reds, findings, the exit code)."""
