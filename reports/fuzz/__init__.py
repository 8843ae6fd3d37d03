"""``cmharness fuzz``: the project's property tests under HypoFuzz on worker processes, findings in an example
database that the ordinary test run replays (``engine``), and the subcommand around it (``command``)."""
