"""What each mutmut mutant changed, read off mutmut's mutated module: its location in the source, the original
and mutated line, a short diff, and a mutator category (mutmut itself does not name its operators)."""

from __future__ import annotations

import ast
import difflib
import io
import json
import sys
import tokenize
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from reports.campaign.mutmut.meta import load_meta, name_prefix
from reports.campaign.records import MutantChange


def split_name(name: str, module: str) -> tuple[str, str | None, str]:
    """``mod.x_f__mutmut_3`` -> ``("x_f__mutmut", None, "f")``; methods give their class."""
    key = name[len(module) + 1 :]
    stem = key.rsplit("__mutmut_", 1)[0]
    if stem.startswith("xǁ"):
        cls, func = stem[2:].split("ǁ", 1)
        return stem, cls, func
    return stem, None, stem[2:]


def def_line(tree: ast.Module, cls: str | None, func: str) -> int | None:
    body: Iterable[ast.stmt] = tree.body
    if cls is not None:
        owner = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls), None)
        if owner is None:
            return None
        body = owner.body
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == func:
            return node.lineno
    return None


def _from_def(lines: list[str]) -> list[str]:
    for k, line in enumerate(lines):
        if line.lstrip().startswith(("def ", "async def ")):
            return lines[k:]
    return lines


def describe(work: Path, source: str, names: Iterable[str]) -> dict[str, MutantChange]:
    """Location, original and mutated line, diff and mutator of each mutant of one source file."""
    module = name_prefix(source)
    spans_path = work / "mutants" / (source + ".spans")
    text = (work / source).read_text(encoding="utf-8")
    tree = ast.parse(text)
    mutated_path = work / "mutants" / source
    mutated = mutated_path.read_text(encoding="utf-8").splitlines() if mutated_path.exists() else []
    spans = json.loads(spans_path.read_text(encoding="utf-8"))["spans"] if spans_path.exists() else {}
    out: dict[str, MutantChange] = {}
    for name in names:
        stem, cls, func = split_name(name, module)
        function = f"{cls}.{func}" if cls else func
        orig_span, mut_span = spans.get(f"{stem}__mutmut_orig"), spans.get(name[len(module) + 1 :])
        line0 = def_line(tree, cls, func)
        if orig_span and mut_span and line0:
            orig = _from_def(mutated[orig_span[0] - 1 : orig_span[1]])
            mut = _from_def(mutated[mut_span[0] - 1 : mut_span[1]])
            if mut:  # the generated names differ; the signature may be mutated too (a default)
                mut[0] = mut[0].replace(name[len(module) + 1 :], f"{stem}__mutmut_orig", 1)
            change = replace(_change(orig, mut, line0), file=source, function=function)
            out[name] = replace(
                change,
                original=change.original.replace(f"{stem}__mutmut_orig", func, 1),
                replacement=change.replacement.replace(f"{stem}__mutmut_orig", func, 1),
                diff="\n".join(difflib.unified_diff(orig, mut, f"{source} (original)", f"{name}", n=1, lineterm="")),
            )
        else:
            out[name] = MutantChange(source, function, line=line0 or 1, end_line=line0 or 1)
    return out


def _change(orig: list[str], mut: list[str], line0: int) -> MutantChange:
    """Where the mutant differs from the original (1-based, in the source file) and what changed."""
    sm = difflib.SequenceMatcher(a=orig, b=mut, autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            continue
        if i1 == i2:  # lines added: point at the line before them
            at = line0 + max(i1 - 1, 0)
            return MutantChange(
                "", "", line=at, end_line=at, replacement="\n".join(mut[j1:j2]).strip(), mutator="Insertion"
            )
        a_toks, b_toks = _tokens(orig[i1:i2]), _tokens(mut[j1:j2])
        tm = difflib.SequenceMatcher(a=[t[1] for t in a_toks], b=[t[1] for t in b_toks], autojunk=False)
        op = next((o for o in tm.get_opcodes() if o[0] != "equal"), None)
        if op is None or not a_toks:
            start, end = (i1, 0), (i2 - 1, len(orig[i2 - 1]))
            old: list[tuple[int, str]] = []
            new: list[tuple[int, str]] = []
        else:
            _, k1, k2, m1, m2 = op
            start = a_toks[k1][2] if k1 < len(a_toks) else a_toks[-1][3]
            end = a_toks[k2 - 1][3] if k2 > k1 else start
            old = [(t[0], t[1]) for t in a_toks[k1:k2]]
            new = [(t[0], t[1]) for t in b_toks[m1:m2]]
        return MutantChange(
            "",
            "",
            line=line0 + i1 + start[0],
            column=start[1] + 1,
            end_line=line0 + i1 + end[0],
            end_column=max(end[1], start[1]) + 1,
            original="\n".join(orig[i1:i2]).strip(),
            replacement="\n".join(mut[j1:j2]).strip(),
            mutator=mutator(old, new),
        )
    return MutantChange("", "", line=line0, end_line=line0)


_SKIPPED_TOKENS = frozenset(
    {tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER, tokenize.INDENT, tokenize.DEDENT, tokenize.COMMENT}
)
_ARITH = frozenset({"+", "-", "*", "/", "//", "%", "**", "<<", ">>", "&", "|", "^", "~", "@"})
_COMPARE = frozenset({"<", ">", "<=", ">=", "==", "!=", "is", "in"})


def _tokens(lines: list[str]) -> list[tuple[int, str, tuple[int, int], tuple[int, int]]]:
    """The tokens of some lines: (type, text, (line offset, column), end), columns in the original lines."""
    indent = min((len(x) - len(x.lstrip()) for x in lines if x.strip()), default=0)
    text = "\n".join(x[indent:] for x in lines) + "\n"
    out = []
    try:
        for t in tokenize.generate_tokens(io.StringIO(text).readline):
            if t.type not in _SKIPPED_TOKENS:
                out.append((t.type, t.string, (t.start[0] - 1, t.start[1] + indent), (t.end[0] - 1, t.end[1] + indent)))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return out


def mutator(old: list[tuple[int, str]], new: list[tuple[int, str]]) -> str:
    """A mutator category read off the changed tokens (mutmut itself does not name its operators)."""
    olds, news = {s for _, s in old}, {s for _, s in new}
    both = olds | news
    kinds = {k for k, _ in old + new}
    if "not" in both and not (olds - {"not"}) ^ (news - {"not"}):
        return "UnaryOperator"
    if old and not new:
        return "Removal"
    if new and not old:
        return "Insertion"
    if both & {"break", "continue"}:
        return "LoopControl"
    if "None" in news and "None" not in olds:
        return "NoneReplacement"
    if kinds == {tokenize.STRING}:
        return "StringLiteral"
    if kinds == {tokenize.NUMBER}:
        return "NumberLiteral"
    if both & {"True", "False"}:
        return "BooleanLiteral"
    if both & {"and", "or"}:
        return "LogicalOperator"
    if any(x.endswith("=") and x not in _COMPARE and x != "!=" for x in both):
        return "AssignmentOperator"
    if both & _COMPARE:
        return "EqualityOperator"
    if both & _ARITH:
        return "ArithmeticOperator"
    if kinds == {tokenize.NAME}:
        return "NameReplacement"
    return "Mutation"


if __name__ == "__main__":  # pragma: no cover - a debugging aid: describe one work copy's mutants
    w = Path(sys.argv[1])
    for src, (_, d) in load_meta(w).items():
        for n, i in describe(w, src, list(d["exit_code_by_key"])[:3]).items():
            print(n, i.line, i.column, i.mutator, i.original, "->", i.replacement)
