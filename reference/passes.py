"""The structural passes as the contract states them (docs/model.md, "Structural passes"), in the TypeScript's order.

Written from the contract, sharing no code with ``strategies/``: over the planned entries, each tagged with
the index of the item that owns it, ``trimOrphanedToolUse`` (a switch: ``TRIM_DROPS_TRAILING_TOOL_USE``),
``enforceToolPairing``, ``pruneToolEntries``, then ``applyImageStripping`` counting over the entries sent.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from reference import raw_forms
from reference.images import ImageRules, live_flags, stripped
from reference.model import Block, Config, Content, Entry, Store, Text, ToolResult, ToolUse
from reference.numerics import Number, js_ceil, json_stringify, len16

STUB_TEXT = "[tool result unavailable — omitted during context compression]"
CALL_OMITTED_TEXT = "[tool call omitted]"
MOVED_TEXT = "[tool result moved during context repair]"
LOOKAHEAD = 6
KEYS_KEPT = 5


@dataclass(frozen=True)
class Piece:
    """One entry on its way through the passes: the item owning it, and which of its blocks are stubs."""

    owner: int
    entry: Entry
    stubs: tuple[bool, ...]

    @staticmethod
    def of(owner: int, entry: Entry) -> Piece:
        return Piece(owner, entry, (False,) * len(entry.content))

    def blocks(self) -> list[tuple[Block, bool]]:
        return list(zip(self.entry.content, self.stubs, strict=True))

    def with_blocks(self, blocks: Sequence[tuple[Block, bool]]) -> Piece:
        return Piece(self.owner, replace(self.entry, content=tuple(b for b, _ in blocks)), tuple(s for _, s in blocks))


def _calls(piece: Piece) -> list[str]:
    """The ids of the entry's top-level tool_use blocks, each once, in order."""
    out: list[str] = []
    for b in piece.entry.content:
        if isinstance(b, ToolUse) and b.id not in out:
            out.append(b.id)
    return out


def _results(piece: Piece) -> list[str]:
    return [b.tool_use_id for b in piece.entry.content if isinstance(b, ToolResult)]


# ----------------------------------------------------------------------------- tool pairing


def trim(pieces: Sequence[Piece]) -> list[Piece]:
    """``trimOrphanedToolUse``: while the last entry holds a call and no result, it is popped."""
    out = list(pieces)
    while out and _calls(out[-1]) and not _results(out[-1]):
        out.pop()
    return out


def _released(before: Content, blocks: list[tuple[Block, bool]], release: bool) -> list[tuple[Block, bool]]:
    """``blocks`` (an edit of ``before``) with the raw forms the edit made untrue given up, when ``release``."""
    if not release or not blocks:
        return blocks
    edited = raw_forms.after_edit(before, tuple(b for b, _ in blocks))
    return [(b, s) for b, (_, s) in zip(edited, blocks, strict=True)]


def _fetch(pieces: list[Piece], at: int, call: str, release: bool = False) -> tuple[ToolResult, bool]:
    """The genuine result of ``call`` taken from one of the 6 entries after ``at`` (its entry, left empty, says
    so), or a stub."""
    for j in range(at + 1, min(len(pieces), at + 1 + LOOKAHEAD)):
        blocks = pieces[j].blocks()
        for k, (b, _) in enumerate(blocks):
            if isinstance(b, ToolResult) and b.tool_use_id == call:
                rest = _released(pieces[j].entry.content, blocks[:k] + blocks[k + 1 :], release)
                pieces[j] = pieces[j].with_blocks(rest or [(Text(MOVED_TEXT), False)])
                source = tuple(x for x, _ in blocks)
                return (raw_forms.moved(b, source) if release else b), False  # type: ignore[return-value]
    return ToolResult(call, STUB_TEXT), True


def pair(pieces: Sequence[Piece], release: bool = False) -> list[Piece]:
    """``enforceToolPairing``: each result answers a call of the entry just before, once (Rule A); each call of
    an entry is answered in the next one (Rule B); calls open at the end get a stub entry."""
    out = list(pieces)
    open_calls: list[str] = []
    i = 0
    while i < len(out):
        if _results(out[i]):
            seen: set[str] = set()
            kept = []
            for b, stub in out[i].blocks():
                if isinstance(b, ToolResult):
                    if b.tool_use_id not in open_calls or b.tool_use_id in seen:
                        continue
                    seen.add(b.tool_use_id)
                kept.append((b, stub))
            if len(kept) != len(out[i].entry.content):
                kept = _released(out[i].entry.content, kept, release)
                out[i] = out[i].with_blocks(kept or [(Text(CALL_OMITTED_TEXT), False)])
        answered = set(_results(out[i]))
        missing = [c for c in open_calls if c not in answered]
        if missing:
            found = [_fetch(out, i, c, release) for c in missing]
            if answered:
                out[i] = out[i].with_blocks([*found, *out[i].blocks()])
            else:
                repair = Entry("user", tuple(b for b, _ in found), "repair")
                out.insert(i, Piece(out[i - 1].owner, repair, tuple(s for _, s in found)))
                open_calls = []
                i += 1
                continue
        open_calls = _calls(out[i])
        i += 1
    if open_calls and out:
        stubs = tuple(ToolResult(c, STUB_TEXT) for c in open_calls)
        out.append(Piece(out[-1].owner, Entry("user", stubs, "repair"), (True,) * len(stubs)))
    return out


# ----------------------------------------------------------------------------- tool pruning


def object_keys(value: object) -> list[str]:
    """JavaScript's ``Object.keys``: array-index keys first, ascending, then the rest in insertion order."""
    if isinstance(value, dict):
        keys = [str(k) for k in value]
        index = sorted(
            (k for k in keys if k.isascii() and k.isdigit() and str(int(k)) == k and int(k) < 2**32 - 1), key=int
        )
        return index + [k for k in keys if k not in index]
    if isinstance(value, (list, tuple)):
        return [str(i) for i in range(len(value))]
    if isinstance(value, str):
        return [str(i) for i in range(len16(value))]
    return []


def _capped_call(b: ToolUse, cap: Number) -> ToolUse:
    tokens = js_ceil(len16(json_stringify(b.input)) / 4)
    if tokens > cap:
        keys = object_keys(b.input)[:KEYS_KEPT]
        return replace(b, input={"_truncated": True, "_originalTokens": tokens, "_keys": keys})
    return b


def _limit(config: Config, tool: str) -> Number | None:
    setting = config.tool_result_max_last_n
    return dict(setting).get(tool) if isinstance(setting, tuple) else setting


def prune(pieces: Sequence[Piece], config: Config, release: bool = False) -> list[Piece]:
    """``pruneToolEntries`` (``_prune``), then, when ``release``, each edited entry gives up the raw forms its
    edits made untrue."""
    out = _prune(pieces, config)
    if not release:
        return out
    return [
        b
        if all(x is y for x, y in zip(a.entry.content, b.entry.content, strict=True))
        else b.with_blocks(_released(a.entry.content, b.blocks(), True))
        for a, b in zip(pieces, out, strict=True)
    ]


def _prune(pieces: Sequence[Piece], config: Config) -> list[Piece]:
    """``pruneToolEntries``: calls over the input cap keep a marker; each tool's oldest results beyond its limit
    say how many newer ones follow (stubs and results to calls not in the context neither count nor change)."""
    cap = config.tool_use_input_max_tokens or 0
    tool_of = {b.id: b.name for p in pieces for b in p.entry.content if isinstance(b, ToolUse)}
    out = [
        p.with_blocks([(_capped_call(b, cap) if isinstance(b, ToolUse) and cap > 0 else b, s) for b, s in p.blocks()])
        for p in pieces
    ]
    if config.tool_result_max_last_n is None:
        return out
    by_tool: dict[str, list[tuple[int, int]]] = {}
    for k, p in enumerate(out):
        for j, (b, stub) in enumerate(p.blocks()):
            if isinstance(b, ToolResult) and not stub and b.tool_use_id in tool_of:
                by_tool.setdefault(tool_of[b.tool_use_id], []).append((k, j))
    for tool, places in by_tool.items():
        limit = _limit(config, tool)
        if limit is None or limit < 0:
            continue
        excess = len(places) - limit
        for n, (k, j) in enumerate(places):
            if not n < excess:
                break
            newer = len(places) - n - 1
            text = f"[Result truncated — tool '{tool}' has {newer} more recent result{'' if newer == 1 else 's'} below]"
            blocks = out[k].blocks()
            blocks[j] = (replace(blocks[j][0], content=text), blocks[j][1])
            out[k] = out[k].with_blocks(blocks)
    return out


# ----------------------------------------------------------------------------- all of them


def run(
    store: Store,
    config: Config,
    pieces: Sequence[Piece],
    depth_start: int,
    trim_first: bool,
    images: ImageRules = ImageRules(),  # noqa: B008 (frozen)
    release: bool = False,
) -> list[Piece]:
    """The passes in order: trim (when ``trim_first``), pairing, pruning, image stripping over what is sent
    (under the line's ``images`` rules; ``release``: edits give up the raw forms they made untrue)."""
    out = trim(pieces) if trim_first else list(pieces)
    out = prune(pair(out, release), config, release)
    positions = [None if p.entry.message_id is None else store.index(p.entry.message_id) for p in out]
    flags = live_flags([p.entry.content for p in out], positions, depth_start, config, images)
    return [
        Piece(p.owner, replace(p.entry, content=stripped(p.entry.content, f, images.placeholder)), p.stubs)
        for p, f in zip(out, flags, strict=True)
    ]
