"""The stores of a scope, enumerated smallest first: contents from a small catalogue that reaches each branch of the
estimator and of the structural passes, and every valid summary tree up to the scope's size and level.

Each store is built valid by construction (disjoint L1 runs, an L2 over adjacent L1s that it merges); a store the
constructor refuses anyway is skipped and counted (``Shapes.refused``), never silently.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from invariants.prove.scope import Scope
from reference.model import (
    Block,
    Document,
    Image,
    InvalidStoreError,
    Message,
    RedactedThinking,
    Store,
    Summary,
    Text,
    Thinking,
    ToolResult,
    ToolUse,
    Work,
)

LONG = " ".join(
    ("the", "agent", "read", "a", "file", "and", "wrote", "tests", "then", "fixed", "it")[k % 11] for k in range(60)
)

#: Each content by name: its blocks for the message at index ``i`` (tool ids follow the index), and the
#: participant it comes from (None: alternating, user first).
CONTENTS: dict[str, tuple[Callable[[int], tuple[Block, ...]], str | None]] = {
    "prose": (lambda i: (Text("the agent read a file"),), None),
    "long": (lambda i: (Text(LONG),), None),
    "dense": (lambda i: (Text('{"path":"/a/b_c","q":[1,2,3]}'),), None),
    "astral": (lambda i: (Text("the agent \U0001f600 wrote \U0001f680\U0001f680 tests"),), None),
    "empty": (lambda i: (Text(""),), None),
    "thinking": (lambda i: (Thinking("plan the fix", "S" * 40, None), Text("done")), "assistant"),
    "stamp-nan": (lambda i: (Thinking("plan", None, math.nan), Text("ok")), "assistant"),
    "redacted": (lambda i: (RedactedThinking("Q" * 60, None), Text("ok")), "assistant"),
    "image": (lambda i: (Text("see"), Image(None)), None),
    "image-stamped": (lambda i: (Image(40),), None),
    "call": (lambda i: (Text("reading"), ToolUse(f"t{i}", "read", {"path": "a/b", "n": 12})), "assistant"),
    "result": (lambda i: (ToolResult(f"t{i - 1}", "file text of the answer"),), "user"),
    "document": (lambda i: (Document(),), None),
    # for the newer lines' behaviours: an image with a base64 payload (the byte wall counts it), two images in one
    # message (which of them the live count keeps), two texts sharing one raw replay item (what an edit releases)
    "image-data": (lambda i: (Text("see"), Image(None, "iVBORw0KGgo=")), None),
    "two-images": (lambda i: (Image(40), Image(None)), None),
    "raw-parts": (lambda i: tuple(Text(t, raw_item={"type": "message", "id": f"m_{i}"}) for t in (LONG, "and")), None),
}
PLAIN_CONTENT = "prose"

_CARRIERS = (Thinking("why it matters", None, None), Text("recap"))
#: Each summary kind: content, measured tokens (None reads as NaN), carriers, and what it adds to the summary's id
#: (``dollar-id``: a JavaScript replacement pattern, ``$&`` the matched text, which a header filled by a replacement
#: string expands where a literal fill copies it).
SUMMARY_KINDS: dict[str, tuple[str, float | None, tuple[Block, ...] | None, str]] = {
    "plain": ("recap of the talk so far", 8, None, ""),
    "floored": ("recap", 400, _CARRIERS, ""),
    "blank": ("", 8, None, ""),
    "nan": ("recap of the talk so far", None, None, ""),
    "empty-carriers": ("recap", 400, (), ""),
    "dollar-id": ("recap of the talk so far", 8, None, "$&"),
}
PLAIN_KIND = "plain"


@dataclass(frozen=True)
class Shape:
    """One store of the scope, with the names it was built from and its size (messages, summaries, blocks)."""

    store: Store
    contents: tuple[str, ...]
    tree: tuple[str, ...]
    store_kind: str

    @property
    def size(self) -> tuple[int, int, int]:
        return (len(self.store.messages), len(self.store.summaries), sum(len(m.content) for m in self.store.messages))

    @property
    def label(self) -> str:
        tree = "; ".join(self.tree) or "no summary"
        return f"[{', '.join(self.contents)}] {tree} ({self.store_kind})"

    @property
    def has_passes(self) -> bool:
        """Whether a structural pass has anything to act on (a tool or image block)."""
        kinds = (ToolUse, ToolResult, Image)
        return any(isinstance(b, kinds) for m in self.store.messages for b in m.content)


Run = tuple[int, int]  # first and last message index of an L1, inclusive


def l1_sets(n: int, most: int) -> list[tuple[Run, ...]]:
    """Every set of disjoint runs of ``n`` messages, at most ``most`` runs, in position order."""
    out: list[tuple[Run, ...]] = [()]

    def grow(start: int, acc: tuple[Run, ...]) -> None:
        if len(acc) == most:
            return
        for a in range(start, n):
            for b in range(a, n):
                new = (*acc, (a, b))
                out.append(new)
                grow(b + 1, new)

    grow(0, ())
    return out


Tree = tuple[tuple[Run, ...], tuple[int, int] | None]  # the L1 runs, and the L1s an L2 merges (first, last) or None


def trees(n: int, most: int, levels: int) -> list[Tree]:
    """Every summary tree over ``n`` messages with at most ``most`` summaries and ``levels`` levels."""
    out: list[Tree] = []
    for runs in l1_sets(n, most):
        out.append((runs, None))
        if levels >= 2 and runs and len(runs) + 1 <= most:
            for i in range(len(runs)):
                for j in range(i, len(runs)):
                    out.append((runs, (i, j)))
    return out


def _message(i: int, name: str) -> Message:
    build, who = CONTENTS[name]
    return Message(f"m{i}", who or ("user" if i % 2 == 0 else "assistant"), build(i))


def _summary(sid: str, level: int, kind: str, sources: tuple[str, ...], first: str, last: str) -> Summary:
    content, tokens, carriers, id_suffix = SUMMARY_KINDS[kind]
    return Summary(
        sid + id_suffix,
        level,
        content,
        tokens,
        level - 1,
        sources,
        (first, last),
        response_content=carriers,
    )


def build_store(contents: tuple[str, ...], tree: Tree, kinds: tuple[str, ...], store_kind: str) -> Store:
    """The store of these contents, summary tree (kinds in creation order: the L1s, then the L2) and settings."""
    messages = tuple(_message(i, name) for i, name in enumerate(contents))
    runs, merged = tree
    ids = [m.id for m in messages]
    summaries: list[Summary] = []
    for k, (a, b) in enumerate(runs):
        summaries.append(_summary(f"L1-{k}", 1, kinds[k], tuple(ids[a : b + 1]), ids[a], ids[b]))
    if merged is not None:
        i, j = merged
        children = summaries[i : j + 1]
        summaries[i : j + 1] = [Summary(**{**c.__dict__, "parent_id": "L2-0"}) for c in children]
        summaries.append(
            _summary(
                "L2-0",
                2,
                kinds[len(runs)],
                tuple(c.id for c in children),
                children[0].source_range[0],
                children[-1].source_range[1],
            )
        )
    calibration = 1.3 if store_kind == "calibrated" else 1.0
    work = {
        "work": (Work("chunk", "queued", frozenset({ids[0]})),),
        "work-last": (Work("chunk", "queued", frozenset({ids[-1]})),),
        "merge": (Work("merge", "queued", frozenset({summaries[0].id})),) if summaries else (),
    }.get(store_kind, ())
    return Store(messages, tuple(summaries), calibration=calibration, work=work)


def _tree_label(tree: Tree, kinds: tuple[str, ...]) -> tuple[str, ...]:
    runs, merged = tree
    labels = [f"L1-{k} m{a}..m{b} {kinds[k]}" for k, (a, b) in enumerate(runs)]
    if merged is not None:
        labels.append(f"L2-0 over L1-{merged[0]}..L1-{merged[1]} {kinds[len(runs)]}")
    return tuple(labels)


def content_sequences(n: int, scope: Scope) -> Iterator[tuple[str, ...]]:
    """Every sequence of ``n`` contents with at most ``scope.rich`` messages other than the plain one."""
    return _at_most(n, PLAIN_CONTENT, [c for c in scope.contents if c != PLAIN_CONTENT], scope.rich)


def kind_sequences(count: int, scope: Scope) -> Iterator[tuple[str, ...]]:
    """Every assignment of kinds to ``count`` summaries with at most ``scope.odd`` of them not plain."""
    return _at_most(count, PLAIN_KIND, [k for k in scope.kinds if k != PLAIN_KIND], scope.odd)


def _at_most(n: int, plain: str, others: list[str], most: int) -> Iterator[tuple[str, ...]]:
    """Every sequence of ``n`` names, ``plain`` but for at most ``most`` places holding one of ``others``."""
    for k in range(min(most, n) + 1):
        for where in itertools.combinations(range(n), k):
            for picks in itertools.product(others, repeat=k):
                seq = [plain] * n
                for i, name in zip(where, picks, strict=True):
                    seq[i] = name
                yield tuple(seq)


@dataclass(frozen=True)
class Shapes:
    """The scope's stores, smallest first (messages, then summaries, then blocks), and those refused."""

    shapes: tuple[Shape, ...]
    refused: int


def enumerate_shapes(scope: Scope) -> Shapes:
    """Every store of the scope, smallest first (a stable order: the same scope gives the same list)."""
    found: list[tuple[tuple[int, int, int], int, Shape]] = []
    refused = 0
    for n in range(1, scope.messages + 1):
        for tree in trees(n, scope.summaries, scope.levels):
            count = len(tree[0]) + (tree[1] is not None)
            for kinds in kind_sequences(count, scope):
                for contents in content_sequences(n, scope):
                    for store_kind in scope.stores:
                        if store_kind == "merge" and count == 0:
                            continue  # merge work folds a summary: none to fold
                        if store_kind != "plain" and any(c != PLAIN_CONTENT for c in contents):
                            continue  # the store settings are crossed with the plain contents only
                        try:
                            store = build_store(contents, tree, kinds, store_kind)
                        except InvalidStoreError:
                            refused += 1
                            continue
                        shape = Shape(store, contents, _tree_label(tree, kinds), store_kind)
                        found.append((shape.size, len(found), shape))
    found.sort(key=lambda t: (t[0], t[1]))
    return Shapes(tuple(s for _, _, s in found), refused)
