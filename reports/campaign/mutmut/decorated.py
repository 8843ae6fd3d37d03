"""mutmut mutates decorated functions too: a property, a cached function, a judge registered by its decorator.

mutmut leaves every decorated function unmutated (but one decorated only ``@staticmethod`` or ``@classmethod``):
copying a function with its decorators would run them once per copy (a registration made twice, a ``property``
where its trampoline needs a function), and a decorator's arguments run when the module is imported. Here the
decorators stay on the trampoline alone, which they wrap as they wrapped the function, and the original's copy and
each mutant's are plain functions the trampoline calls; a decorator's own arguments are still never mutated. A
memo (``functools.cache``, ``lru_cache``) goes on each copy instead: on the trampoline it would answer a call with a
value the original computed before a mutant was switched on (mutmut's own engine runs its forced failure after the
stats run in one process), so each copy keeps its own. A function whose name its class defines twice (an accessor's
``.setter``, ``@overload``, a ``.register``) is left as mutmut leaves it, since its copies would share one name.
:func:`install` patches mutmut's generation in the process that runs it and in each worker it starts.
"""

from __future__ import annotations

import functools
import multiprocessing
from collections.abc import Iterable, Sequence
from typing import Any

try:  # the mutation extra; without it there is nothing to patch, and the module still imports
    import libcst as cst
    import mutmut.__main__ as mutmut_main
    from mutmut.mutation import file_mutation
except ImportError:  # pragma: no cover - exercised where the mutation extra is not installed
    file_mutation = None

#: Decorators that mutmut itself sets a trampoline under, when one of them is the function's only decorator.
MUTMUT_OWN = frozenset({"staticmethod", "classmethod"})
#: Decorators whose function shares its name with another of its scope: its copies' names would collide.
SHARED_NAME = frozenset({"overload", "typing.overload", "setter", "getter", "deleter", "register"})
#: Memos: each copy keeps its own, beneath the trampoline.
MEMOS = frozenset({"cache", "lru_cache", "functools.cache", "functools.lru_cache"})

#: mutmut's own rule and arrangement, which the patched ones defer to.
_SKIP = file_mutation.MutationVisitor._skip_node_and_children if file_mutation else None
_ARRANGE = file_mutation.function_trampoline_arrangement if file_mutation else None


def dotted(node: cst.BaseExpression) -> str:
    """A decorator's dotted name without its call (``functools.lru_cache`` for ``@functools.lru_cache(64)``)."""
    if isinstance(node, cst.Call):
        return dotted(node.func)
    if isinstance(node, cst.Attribute):
        return f"{dotted(node.value)}.{node.attr.value}"
    return node.value if isinstance(node, cst.Name) else ""


def decorator_names(function: cst.FunctionDef) -> list[str]:
    return [dotted(d.decorator) for d in function.decorators]


def mutable(function: cst.FunctionDef) -> bool:
    """Whether ``function`` is decorated, mutmut leaves it, and its decorators can move to the trampoline alone."""
    names = decorator_names(function)
    if not names or (len(names) == 1 and names[0] in MUTMUT_OWN):
        return False
    return not any(n in SHARED_NAME or n.rpartition(".")[2] in SHARED_NAME for n in names)


def _skip_node_and_children(self: file_mutation.MutationVisitor, node: cst.CSTNode) -> bool:
    """mutmut's rule, but a function :func:`mutable` holds is skipped only for mutmut's other reasons (a pragma, an
    enum's hook, a name it never mutates)."""
    skip = _SKIP(self, node)
    if skip and isinstance(node, cst.FunctionDef) and mutable(node):
        return (
            node.name.value in self.ignored_functions
            or node in self._enum_creation_hooks
            or node.name.value in file_mutation.NEVER_MUTATE_FUNCTION_NAMES
        )
    return skip


def _arrangement(
    function: cst.FunctionDef, mutants: Iterable[Any], class_name: str | None
) -> tuple[Sequence[Any], Sequence[Any], Sequence[Any], Sequence[str]]:
    """mutmut's trampoline and copies of the function, its memos on each copy and its other decorators on the
    trampoline alone."""
    if not mutable(function):
        return _ARRANGE(function, mutants, class_name)
    memos = [d for d in function.decorators if dotted(d.decorator) in MEMOS]
    others = [d for d in function.decorators if dotted(d.decorator) not in MEMOS]
    declarations, nodes, assignments, names = _ARRANGE(function.with_changes(decorators=memos), mutants, class_name)
    trampoline = nodes[0]
    nodes = [trampoline.with_changes(decorators=[*others, *trampoline.decorators[len(memos) :]]), *nodes[1:]]
    return declarations, nodes, assignments, names


def install() -> None:
    """Patch mutmut's generation in this process, and make the workers its ``create_mutants`` starts patch theirs."""
    file_mutation.MutationVisitor._skip_node_and_children = _skip_node_and_children  # type: ignore[method-assign]
    file_mutation.function_trampoline_arrangement = _arrangement
    mutmut_main.Pool = functools.partial(multiprocessing.Pool, initializer=install)  # type: ignore[attr-defined]


if __name__ == "__main__":  # mutmut's own command line, generating as the warm engine's preparation does
    install()
    mutmut_main.cli()
