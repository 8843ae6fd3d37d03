"""A throwaway pytest plugin for ``bench_unnamed_mutants.py --generated-only``: the ``@given`` tests alone, on
generated cases only.

It deselects every test that is not a Hypothesis ``@given`` test (and the harness's own tests), and loads a
copy of the chosen profile with Hypothesis's explicit phase off, so an ``@example`` never runs: what is
left finds a bug by generation or not at all. Loaded with ``-p generated_only`` (this folder on the path).
"""

from __future__ import annotations

import pytest
from hypothesis import Phase, settings

PROFILE = "cm-generated-only"


def is_generated(item: pytest.Item) -> bool:
    """A Hypothesis ``@given`` test function that is not one of the harness's own tests."""
    return bool(getattr(getattr(item, "obj", None), "is_hypothesis_test", False)) and not item.get_closest_marker(
        "harness"
    )


@pytest.hookimpl(trylast=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    """After the cmharness plugin (a conftest's, configured after this one) loaded its profile, and before
    any test module builds its settings."""
    phases = tuple(p for p in settings.default.phases if p is not Phase.explicit)
    settings.register_profile(PROFILE, settings(settings.default, phases=phases))
    settings.load_profile(PROFILE)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    kept = [it for it in items if is_generated(it)]
    dropped = [it for it in items if not is_generated(it)]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
    items[:] = kept


def pytest_report_header(config: pytest.Config) -> str:
    return "generated_only: the @given tests only, Hypothesis's explicit phase off"
