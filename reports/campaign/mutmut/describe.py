"""What each mutmut mutant changed, read off mutmut's mutated module: the exact source span of the AST node that
differs between mutmut's ``__mutmut_orig`` copy and the mutant's copy, that span's new text, a mutator named by the
node that changed, and the original and mutated line with a short diff (mutmut itself names no operators)."""

from __future__ import annotations

import ast
import bisect
import difflib
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from reports.campaign.mutmut.meta import load_meta, name_prefix
from reports.campaign.records import MutantChange

#: AST nodes that are operators: they hold no position of their own.
OPERATORS = (ast.operator, ast.boolop, ast.cmpop, ast.unaryop, ast.expr_context)
Step = tuple[str, int | None]  # a field of a node, and the index in it when the field is a list
Function = ast.FunctionDef | ast.AsyncFunctionDef


def split_name(name: str, module: str) -> tuple[str, str | None, str]:
    """``mod.x_f__mutmut_3`` -> ``("x_f__mutmut", None, "f")``; methods give their class."""
    key = name[len(module) + 1 :]
    stem = key.rsplit("__mutmut_", 1)[0]
    if stem.startswith("xǁ"):
        cls, func = stem[2:].split("ǁ", 1)
        return stem, cls, func
    return stem, None, stem[2:]


def functions(tree: ast.Module) -> dict[tuple[str | None, str], Function]:
    """The module's functions and its classes' methods, by (class, name)."""
    out: dict[tuple[str | None, str], Function] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            out[(None, node.name)] = node
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    out.setdefault((node.name, item.name), item)
    return out


def def_line(tree: ast.Module, cls: str | None, func: str) -> int | None:
    found = functions(tree).get((cls, func))
    return found.lineno if found is not None else None


class Text:
    """A source text's positions: AST (line, UTF-8 byte column) to string offsets, and offsets to the viewer's
    (line, column), both 1-based, the column in UTF-16 code units as JavaScript counts them."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0]
        for k, ch in enumerate(text):
            if ch == "\n":
                self.starts.append(k + 1)

    def line(self, n: int) -> str:
        end = self.starts[n] - 1 if n < len(self.starts) else len(self.text)
        return self.text[self.starts[n - 1] : end]

    def offset(self, line: int, byte_col: int) -> int:
        return self.starts[line - 1] + len(self.line(line).encode("utf-8")[:byte_col].decode("utf-8", "replace"))

    def start(self, node: ast.AST) -> int:
        return self.offset(node.lineno, node.col_offset)  # type: ignore[attr-defined]

    def end(self, node: ast.AST) -> int:
        return self.offset(node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]

    def position(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self.starts, offset) - 1
        head = self.text[self.starts[line] : offset]
        return line + 1, len(head.encode("utf-16-le")) // 2 + 1


def _same(a: object, b: object) -> bool:
    """Structural equality of two ASTs (positions aside), stopping at the first difference."""
    if type(a) is not type(b):
        return False
    if isinstance(a, ast.AST):
        return all(_same(getattr(a, f, None), getattr(b, f, None)) for f in a._fields)
    if isinstance(a, list):
        return len(a) == len(b) and all(map(_same, a, b))  # type: ignore[arg-type]
    return a == b


def _located(node: object) -> bool:
    return isinstance(node, ast.AST) and hasattr(node, "lineno") and hasattr(node, "end_col_offset")


def difference(a: ast.AST, b: ast.AST, root: bool = False) -> list[Step] | None:
    """The path to the smallest node where ``b`` differs from ``a`` (None: they are the same); a path may end in
    a field that holds no node with a position (an operator, a value), which the caller resolves to its owner."""
    skip = {"name", "decorator_list", "type_params", "type_comment"} if root else set()
    if type(a) is not type(b):
        return []
    fields = [f for f in a._fields if f not in skip and not _same(getattr(a, f, None), getattr(b, f, None))]
    if not fields:
        return None
    if len(fields) > 1:
        return []
    f = fields[0]
    va, vb = getattr(a, f), getattr(b, f)
    if isinstance(va, list):
        if not isinstance(vb, list) or len(va) != len(vb):
            return []
        idx = [i for i in range(len(va)) if not _same(va[i], vb[i])]
        if len(idx) != 1 or not isinstance(va[idx[0]], ast.AST):
            return [(f, None)]
        sub = difference(va[idx[0]], vb[idx[0]])
        return [(f, idx[0]), *(sub or [])]
    if isinstance(va, ast.AST) and isinstance(vb, ast.AST) and not isinstance(va, OPERATORS):
        sub = difference(va, vb)
        return [(f, None), *(sub or [])]
    return [(f, None)]


def follow(node: ast.AST, path: list[Step]) -> list[ast.AST]:
    """The nodes along ``path`` from ``node`` (itself first), as far as they are nodes."""
    out = [node]
    for f, i in path:
        value = getattr(out[-1], f, None)
        if i is not None and isinstance(value, list) and i < len(value):
            value = value[i]
        if not isinstance(value, ast.AST) or isinstance(value, OPERATORS):
            break
        out.append(value)
    return out


def _significant(text: str, lo: int, hi: int) -> tuple[int, int] | None:
    """The first and last character in ``text[lo:hi]`` that is not blank, a parenthesis, a line continuation or
    a comment: the operator between two operands."""
    first = last = None
    k = lo
    while k < hi:
        ch = text[k]
        if ch == "#":
            while k < hi and text[k] != "\n":
                k += 1
            continue
        if not (ch.isspace() or ch in "()\\"):
            first = k if first is None else first
            last = k + 1
        k += 1
    return None if first is None else (first, last)


def operands(node: ast.AST, field: str, index: int | None) -> tuple[ast.AST, ast.AST] | None:
    """The two nodes around the operator a change of ``field`` touches, if it is one operator token."""
    if isinstance(node, ast.BinOp) and field == "op":
        return node.left, node.right
    if isinstance(node, ast.AugAssign) and field == "op":
        return node.target, node.value
    if isinstance(node, ast.BoolOp) and field == "op" and len(node.values) == 2:
        return node.values[0], node.values[1]
    if isinstance(node, ast.Compare) and field == "ops" and index is not None:
        return ([node.left, *node.comparators][index], node.comparators[index])
    return None


@dataclass(frozen=True)
class Span:
    """A change: ``text[start:end]`` of the source is replaced by ``new``; the mutator names what changed."""

    start: int
    end: int
    new: str
    mutator: str


def _candidates(src: Text, mut: Text, fn: Function, orig_copy: Function, mut_copy: Function, func: str) -> list[Span]:
    """Spans from the smallest differing node outwards to the whole function, the first to try first."""
    path = difference(orig_copy, mut_copy, root=True) or []
    in_copy, in_mut, in_src = follow(orig_copy, path), follow(mut_copy, path), follow(fn, path)
    depth = min(len(in_copy), len(in_mut), len(in_src))
    out: list[Span] = []
    if depth == len(path) and path:  # the path ends in a field holding no positioned node: an operator, a value
        f, i = path[-1]
        a, b, s = in_copy[-1], in_mut[depth - 1], in_src[depth - 1]
        index = _op_index(a, b, f) if f == "ops" else i
        pair_s, pair_m = operands(s, f, index), operands(b, f, index)
        if pair_s and pair_m:
            op_s = _significant(src.text, src.end(pair_s[0]), src.start(pair_s[1]))
            op_m = _significant(mut.text, mut.end(pair_m[0]), mut.start(pair_m[1]))
            if op_s and op_m:
                out.append(Span(op_s[0], op_s[1], mut.text[op_m[0] : op_m[1]], classify(a, b, f)))
    for k in range(depth - 1, 0, -1):
        a, b, s = in_copy[k], in_mut[k], in_src[k]
        if _located(s) and _located(b):
            f = path[k][0] if k < len(path) else ""
            out.append(Span(src.start(s), src.end(s), mut.text[mut.start(b) : mut.end(b)], classify(a, b, f)))
    whole = mut.text[mut.start(mut_copy) : mut.end(mut_copy)].replace(mut_copy.name, func, 1)
    out.append(Span(src.start(fn), src.end(fn), whole, "FunctionReplacement"))
    return out


def _op_index(a: ast.AST, b: ast.AST, f: str) -> int | None:
    ops_a, ops_b = getattr(a, f, []), getattr(b, f, [])
    idx = [k for k, (x, y) in enumerate(zip(ops_a, ops_b, strict=False)) if not _same(x, y)]
    return idx[0] if len(idx) == 1 and len(ops_a) == len(ops_b) else None


def classify(a: ast.AST, b: ast.AST, field: str) -> str:
    """A mutator name from the node that changed (``a`` before, ``b`` after) and the field that differs."""
    if isinstance(b, ast.BoolOp) and not isinstance(a, ast.BoolOp) and b.values and _same(a, b.values[0]):
        return "ConditionalExpression"  # a condition forced: ``(c) and False``, ``(c) or True``
    if isinstance(a, ast.Compare) and field == "ops":
        return "EqualityOperator"
    if isinstance(a, ast.BoolOp):
        return "LogicalOperator"
    if isinstance(a, ast.AugAssign) and (field == "op" or isinstance(b, ast.Assign)):
        return "AssignmentOperator"
    if isinstance(a, ast.BinOp) and field == "op":
        return "ArithmeticOperator"
    if isinstance(a, ast.UnaryOp) or isinstance(b, ast.UnaryOp):
        return "UnaryOperator"
    if isinstance(b, ast.Constant) and b.value is None and not (isinstance(a, ast.Constant) and a.value is None):
        return "NoneReplacement"
    if isinstance(a, ast.Constant) and isinstance(b, ast.Constant):
        if isinstance(a.value, bool) or isinstance(b.value, bool):
            return "BooleanLiteral"
        if isinstance(a.value, str | bytes):
            return "StringLiteral"
        if isinstance(a.value, int | float | complex):
            return "NumberLiteral"
        return "LiteralReplacement"
    if isinstance(a, ast.Break | ast.Continue) or isinstance(b, ast.Break | ast.Continue):
        return "LoopControl"
    if isinstance(a, ast.Call) and field in ("args", "keywords"):
        return "ArgumentRemoval" if len(a.args) + len(a.keywords) != len(b.args) + len(b.keywords) else "ArgumentList"  # type: ignore[attr-defined]
    if isinstance(a, ast.Call):
        return "CallExpression"
    if isinstance(a, ast.Lambda):
        return "LambdaBody"
    if isinstance(a, ast.Assign | ast.AnnAssign):
        return "AssignmentExpression"
    if isinstance(a, ast.Match):
        return "MatchCase"
    if isinstance(a, ast.IfExp):
        return "ConditionalExpression"
    if isinstance(a, ast.Name) and isinstance(b, ast.Name):
        return "NameReplacement"
    return f"{type(a).__name__}Replacement"


def _same_function(a: Function, b: Function) -> bool:
    """Whether two functions are the same but for their names and decorators."""
    return _same(a.args, b.args) and _same(a.body, b.body) and _same(a.returns, b.returns)


def _splices_to(src: Text, fn: Function, span: Span, want: Function) -> bool:
    """Whether the function's source with ``span`` applied parses to the mutant's function."""
    begin = src.starts[fn.lineno - 1]
    end = src.end(fn)
    if not begin <= span.start <= span.end <= end:
        return False
    text = src.text[begin : span.start] + span.new + src.text[span.end : end]
    if fn.col_offset:
        text = "class _:\n" + text
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return False
    node = tree.body[0].body[0] if fn.col_offset else tree.body[0]  # type: ignore[attr-defined]
    return isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _same_function(node, want)


def locate(src: Text, mut: Text, fn: Function, orig_copy: Function, mut_copy: Function, func: str) -> Span | None:
    """The smallest span of the source whose replacement gives the mutant's function exactly."""
    for span in _candidates(src, mut, fn, orig_copy, mut_copy, func):
        if _splices_to(src, fn, span, mut_copy):
            return span
    return None


def describe(work: Path, source: str, names: Iterable[str]) -> dict[str, MutantChange]:
    """Each mutant's exact changed span and its new text, mutator, original and mutated line, and diff."""
    module = name_prefix(source)
    text = (work / source).read_text(encoding="utf-8")
    tree = ast.parse(text)
    mutated_path = work / "mutants" / source
    mutated_text = mutated_path.read_text(encoding="utf-8") if mutated_path.exists() else ""
    try:
        copies = functions(ast.parse(mutated_text))
    except SyntaxError:
        copies = {}
    src, mut = Text(text), Text(mutated_text)
    mutated = mutated_text.splitlines()
    originals = functions(tree)
    out: dict[str, MutantChange] = {}
    for name in names:
        stem, cls, func = split_name(name, module)
        key = name[len(module) + 1 :]
        function = f"{cls}.{func}" if cls else func
        fn, orig_copy = originals.get((cls, func)), copies.get((cls, f"{stem}__mutmut_orig"))
        mut_copy = copies.get((cls, key))
        if fn is None or orig_copy is None or mut_copy is None:
            line0 = fn.lineno if fn is not None else 1
            out[name] = MutantChange(source, function, line=line0, end_line=line0, mutator="Unlocated")
            continue
        orig = _from_def(mutated[orig_copy.lineno - 1 : orig_copy.end_lineno])
        mut_lines = _from_def(mutated[mut_copy.lineno - 1 : mut_copy.end_lineno])
        if mut_lines:
            mut_lines[0] = mut_lines[0].replace(key, f"{stem}__mutmut_orig", 1)
        lines = _changed_lines(orig, mut_lines)
        span = locate(src, mut, fn, orig_copy, mut_copy, func)
        if span is None:
            start = end = src.starts[fn.lineno - 1]
            span = Span(start, end, "", "Unlocated")
        (line, column), (end_line, end_column) = src.position(span.start), src.position(span.end)
        out[name] = MutantChange(
            source,
            function,
            line=line,
            column=column,
            end_line=end_line,
            end_column=end_column,
            original=lines[0].replace(f"{stem}__mutmut_orig", func, 1),
            replacement=lines[1].replace(f"{stem}__mutmut_orig", func, 1),
            mutator=span.mutator,
            diff="\n".join(difflib.unified_diff(orig, mut_lines, f"{source} (original)", name, n=1, lineterm="")),
            span_original=src.text[span.start : span.end],
            span_replacement=span.new,
        )
    return out


def _from_def(lines: list[str]) -> list[str]:
    for k, line in enumerate(lines):
        if line.lstrip().startswith(("def ", "async def ")):
            return lines[k:]
    return lines


def _changed_lines(orig: list[str], mut: list[str]) -> tuple[str, str]:
    """The first run of lines that differ, before and after, stripped (what the markdown report shows and a
    reviewed equivalent names)."""
    sm = difflib.SequenceMatcher(a=orig, b=mut, autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag != "equal":
            return "\n".join(orig[i1:i2]).strip(), "\n".join(mut[j1:j2]).strip()
    return "", ""


if __name__ == "__main__":  # pragma: no cover - a debugging aid: describe one work copy's mutants
    w = Path(sys.argv[1])
    for src_name, (_, d) in load_meta(w).items():
        for n, i in describe(w, src_name, list(d["exit_code_by_key"])[:3]).items():
            print(n, i.line, i.column, i.mutator, repr(i.span_original), "->", repr(i.span_replacement))
