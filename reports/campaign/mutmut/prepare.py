"""mutmut's first half, run in its work copy: generate the mutants and collect the per-function test coverage.

``python -m reports.campaign.mutmut.prepare N`` (cwd: mutmut's work copy) does what ``mutmut run`` does before its
mutant loop, through mutmut's own functions: copy the sources into ``mutants/``, mutate the changed
files (keeping the verdicts of unchanged functions), and collect or update its stats (which tests call
each mutated function). The mutants themselves then run in ``reports.campaign.plugins.warm_session``.
"""

from __future__ import annotations

import os
import sys
import time

from reports.campaign.mutmut import decorated


def main(max_children: int) -> int:
    import mutmut.__main__ as mm

    decorated.install()
    started = time.time()
    mm.set_mutant_under_test("mutant_generation")
    os.makedirs("mutants", exist_ok=True)
    with mm.CatchOutput(spinner_title="Generating mutants"):
        mm.copy_src_dir()
        mm.copy_also_copy_files()
        mm.setup_source_paths()
        forget_the_tool()
        mm.store_lines_covered_by_tests()
        generated = mm.create_mutants(max_children)
    print(
        f"prepare: mutants generated in {time.time() - started:.1f}s ({generated.mutated} files mutated, "
        f"{generated.unmodified} unmodified)",
        flush=True,
    )
    started = time.time()
    runner = mm.get_mutant_runner(max_children)
    try:
        mm.collect_or_load_stats(runner, mutants_caught_by_type_checker={}, apply_config_invalidation=True)
    finally:
        runner.shutdown()
    print(f"prepare: stats in {time.time() - started:.1f}s", flush=True)
    return 0


def forget_the_tool() -> None:
    """Forget the ``reports`` modules imported from the work copy to start this one (``python -m``): mutmut mutates the
    tool's verdict rules too, so the stats run must import ``reports`` again from ``mutants/``, first on the path now,
    as every other session of the work copy does; else it records no test calling a verdict rule."""
    for name in [n for n in sys.modules if n == "reports" or n.startswith("reports.")]:
        del sys.modules[name]


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 1))
