"""The baseline's per-test calls: every function of the code under test counts once per test that runs it, a nested
function as its outermost one, a cached value's calls count for every test that reads it, and calls whose result
otherwise outlives a test (made outside every test, a cached property's) are shared."""

from __future__ import annotations

import functools
import sys
import traceback

import pytest

from reference.model import Derived, Store
from reports.campaign.plugins import call_recorder as cr

pytestmark = pytest.mark.harness

SOURCE = '''
import functools
import sys


def leaf(x):
    """Returns x."""
    return x


def outer(x):
    def inner(y):
        return leaf(y)

    return inner(x)


class Shape:
    class Part:
        def size(self):
            return leaf(2)

    def area(self):
        return self.Part().size() * 2


@functools.cache
def table():
    return leaf(3)


def boom():
    x = 1
    raise ValueError(x)
'''


def load(source: str = SOURCE, module: str = "strategies.fake") -> dict:
    """``source`` compiled as the recording plugin's import hook compiles a module of the code under test (and a
    test started)."""
    cr.start_test()
    namespace = {"__name__": module, **cr.recording_globals()}
    exec(cr.instrumented(source, "fake.py", module), namespace)
    return namespace


@pytest.fixture
def ns(monkeypatch):
    monkeypatch.setattr(functools, "lru_cache", cr.lru_cache)  # as ``install`` does in the baseline's process
    namespace = load()
    cr._SHARED.clear()
    yield namespace
    cr.end_test()


def test_each_function_counts_under_its_own_dotted_name(ns):
    assert ns["leaf"](1) == 1 and ns["leaf"].__doc__ == "Returns x."  # the docstring stays the docstring
    assert cr.end_test() == ["strategies.fake.leaf"]
    assert ns["Shape"]().area() == 4
    assert cr.end_test() == ["strategies.fake.Shape.Part.size", "strategies.fake.Shape.area", "strategies.fake.leaf"]


def test_a_nested_function_counts_as_its_outermost_one(ns):
    inner_only = ns["outer"]  # a closure built here and called later still names its owner
    assert inner_only(5) == 5
    assert cr.end_test() == ["strategies.fake.leaf", "strategies.fake.outer"]


def test_a_cached_values_calls_count_for_every_test_that_reads_it(ns):
    """Which test fills a cache depends on the order the tests run in; what each test reads does not."""
    assert ns["table"]() == 3
    assert cr.end_test() == ["strategies.fake.leaf", "strategies.fake.table"]  # the test that filled it
    cr.start_test()
    assert ns["table"]() == 3
    assert cr.end_test() == ["strategies.fake.leaf", "strategies.fake.table"]  # and the next, that got its value
    assert ns["table"].cache_info().misses == 1 and cr.shared_names() == []
    cr.start_test()
    ns["leaf"](1)
    assert ns["table"]() == 3 and ns["outer"](2) == 2
    assert cr.end_test() == ["strategies.fake.leaf", "strategies.fake.outer", "strategies.fake.table"]
    ns["table"].cache_clear()
    cr.start_test()
    assert ns["table"]() == 3 and ns["table"].cache_info().misses == 1  # filled again, and credited again
    assert cr.end_test() == ["strategies.fake.leaf", "strategies.fake.table"]


def test_a_stores_derived_values_count_for_every_test_that_reads_them(ns):
    """A store keeps what is derived from it (its message prices) for whichever test asks first, and a store built
    at import is read by many tests: each reader depends on what computing the value called."""
    derived = Store(()).derived
    assert isinstance(derived, Derived)
    assert derived.value("four", lambda: ns["leaf"](4)) == 4
    assert cr.end_test() == ["strategies.fake.leaf"]
    cr.start_test()
    assert derived.value("four", lambda: ns["outer"](5)) == 4  # kept: the second computation never runs
    assert derived.value("six", lambda: 6) == 6  # another key, computed without calls
    assert cr.end_test() == ["strategies.fake.leaf"] and cr.shared_names() == []


def test_calls_outside_a_test_are_shared(ns):
    cr.end_test()
    ns["leaf"](0)  # as at import, or in a module-wide fixture: before the next test starts
    cr.start_test()
    assert cr.end_test() == [] and cr.shared_names() == ["strategies.fake.leaf"]
    ns["leaf"](2)
    with cr.shared():
        ns["outer"](1)
    assert cr.end_test() == ["strategies.fake.leaf"]  # its own call; those of the shared extent are shared only
    assert "strategies.fake.outer" in cr.shared_names()


def test_line_numbers_read_as_the_file():
    namespace = load()
    with pytest.raises(ValueError) as err:
        namespace["boom"]()
    frame = traceback.extract_tb(err.value.__traceback__)[-1]
    assert (frame.name, frame.lineno) == ("boom", SOURCE.splitlines().index("    raise ValueError(x)") + 1)
    cr.end_test()


def test_a_function_without_a_body_beyond_its_docstring_compiles():
    namespace = load('def f():\n    """Only this."""\n', "strategies.empty")
    assert namespace["f"]() is None and namespace["f"].__doc__ == "Only this."
    assert cr.end_test() == ["strategies.empty.f"]


CACHES = """
import functools
import sys


def leaf(x):
    return x


@functools.lru_cache(maxsize=4)
def sized(x):
    return leaf(x)


@functools.lru_cache(typed=True)
def typed(x):
    return leaf(x)


class Box:
    @functools.cached_property
    def content(self):
        return leaf(5)
"""


def test_every_form_of_functools_caching_is_followed(monkeypatch):
    """An ``lru_cache`` of any size, typed or not, credits its readers by the key it caches under; a
    ``cached_property``'s first computation is shared, since later reads call nothing."""
    monkeypatch.setattr(functools, "lru_cache", cr.lru_cache)
    monkeypatch.setattr(functools, "cached_property", cr.cached_property)
    namespace = load(CACHES, "strategies.caches")
    cr._SHARED.clear()
    box = namespace["Box"]()
    assert namespace["sized"](1) == 1 and box.content == 5 and box.content == 5
    assert namespace["sized"].cache_info().misses == 1 and namespace["Box"].content.__doc__ is None
    assert cr.end_test() == ["strategies.caches.leaf", "strategies.caches.sized"]
    assert cr.shared_names() == ["strategies.caches.Box.content", "strategies.caches.leaf"]
    cr.start_test()
    assert namespace["sized"](x=1) == 1 and namespace["sized"](1) == 1 and namespace["sized"].cache_info().hits == 1
    assert cr.end_test() == ["strategies.caches.leaf", "strategies.caches.sized"]
    assert namespace["typed"](1) == 1 and namespace["typed"](1.0) == 1.0 and namespace["typed"](1) == 1
    assert namespace["typed"].cache_info().misses == 2 and namespace["sized"].cache_parameters()["maxsize"] == 4
    assert cr.end_test() == ["strategies.caches.leaf", "strategies.caches.typed"]


def test_a_test_that_starts_a_python_process_is_marked_and_one_that_runs_another_program_is_not():
    cr.start_test()
    cr._audit("subprocess.Popen", ("/bin/true", ["true"], None, None))
    assert not cr.spawned()
    cr._audit("subprocess.Popen", (None, ["/usr/bin/python3.11", "-c", "pass"], None, None))
    assert cr.spawned()
    cr.start_test()  # the next test starts unmarked
    assert not cr.spawned()
    cr._audit("subprocess.Popen", (sys.executable, "-m reports.cli", None, None))
    assert cr.spawned()
    cr.end_test()
