"""``cmharness prove``: every invariant on every store and setting of a scope (``invariants.prove``), exhaustively.

It prints the scope in full, progress on stderr, what it covered (stores, cases, time) and either "no invariant
breaks within the scope" or, per broken invariant, the smallest store that breaks it, written as a scenario file
(``--out``, default ``reports/out/prove/``). ``--shard I/N --json`` runs a part; ``--merge A.json B.json ...`` builds
the whole from the parts, the same result as one run (seconds aside).

Exit codes:
  0  no invariant breaks within the scope;
  1  an invariant breaks on a variant that carries defects (or a line's behaviours);
  2  a bad option, scope, variant or invariant name, or an unreadable shard file (one line on stderr);
  3  ``sound`` breaks an invariant within the scope.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TextIO

from invariants.properties import INVARIANTS
from invariants.prove.engine import Proof, merge, prove
from invariants.prove.scope import PRESETS, parse_scope
from reference.names import lookup
from reference.variant_names import SOUND
from reports.arguments import add_workers_option, shard_argument
from reports.cli.check_verdict import verdict
from reports.errors import UsageError
from strategies.defects import parse_variant

DEFAULT_OUT = Path("reports") / "out" / "prove"
#: Seconds between two progress lines.
PROGRESS_EVERY = 5.0


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--scope",
        default="default",
        metavar="SPEC",
        help=f"a preset ({', '.join(PRESETS)}) and/or KEY=VALUE,... (lists with /), e.g. default,messages=3",
    )
    parser.add_argument("--variant", default=SOUND, metavar="VARIANT", help="a variant or spec (sound+DEFECT)")
    parser.add_argument(
        "--invariant", action="append", dest="invariants", metavar="NAME", help="only this invariant (repeatable)"
    )
    add_workers_option(parser)
    parser.add_argument(
        "--shard",
        type=shard_argument,
        default="1/1",
        metavar="I/N",
        help="prove only the I-th of N parts of the stores",
    )
    parser.add_argument("--first", action="store_true", help="stop at the smallest stores that break anything")
    parser.add_argument("--json", action="store_true", help="write the result as JSON (it merges across shards)")
    parser.add_argument("--out", type=Path, default=None, metavar="DIR", help="where the scenario files go")
    parser.add_argument("--merge", nargs="+", type=Path, metavar="FILE", help="merge the JSON of shards instead")


def _read_shard(path: Path) -> Proof:
    """One shard's ``--json`` output, read back; a ``UsageError`` naming the file and what is wrong in it."""
    try:
        return Proof.from_json(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise UsageError(f"--merge: cannot read {path}: {err.strerror}") from None
    except (ValueError, UnicodeDecodeError) as err:
        raise UsageError(f"--merge: {path} is not a shard of `cmharness prove --json`: {err}") from None


def _proof(args: argparse.Namespace) -> Proof:
    if args.merge:
        try:
            return merge([_read_shard(path) for path in args.merge])
        except ValueError as err:
            raise UsageError(f"--merge: {err}") from None
    try:
        scope = parse_scope(args.scope)
    except ValueError as err:
        raise UsageError(f"--scope: {err}") from None
    try:
        parse_variant(args.variant)
    except ValueError as err:
        raise UsageError(f"--variant: {err}") from None
    try:
        names = [lookup("invariant", n, INVARIANTS) and n for n in args.invariants or ()]
    except ValueError as err:
        raise UsageError(f"--invariant: {err}") from None
    shard = args.shard
    if not args.json:
        print(f"scope {args.scope!r} on {args.variant}:", file=args.stdout)
        for line in scope.describe():
            print(f"  {line}", file=args.stdout)
        args.stdout.flush()
    last = [time.perf_counter()]

    def progress(done: int, total: int, cases: int, seconds: float) -> None:
        if time.perf_counter() - last[0] >= PROGRESS_EVERY or done == total:
            last[0] = time.perf_counter()
            print(f"  {done}/{total} stores, {cases} cases, {seconds:.0f} s", file=sys.stderr, flush=True)

    return prove(scope, args.variant, names, workers=args.workers, shard=shard, first=args.first, progress=progress)


def _write(proof: Proof, out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for f in proof.found:
        path = out / f"{f.invariant}.scenario.json"
        path.write_text(f.scenario, encoding="utf-8")
        paths.append(path)
    return paths


def exit_code(proof: Proof) -> int:
    """``check``'s verdict over the one variant proved. A variant with line behaviours and no defect counts as defect
    free (those behaviours are the contract its judges hold it to); one judged by another line's rules counts as
    carrying, since its behaviours show as breaks there."""
    carries = bool(parse_variant(proof.variant).active) or proof.judged_as is not None
    return verdict(not proof.holds and carries, not proof.holds and not carries)


def run(args: argparse.Namespace, stdout: TextIO) -> int:
    args.stdout = stdout
    proof = _proof(args)
    paths = _write(proof, args.out or DEFAULT_OUT) if proof.found else []
    if args.json:
        stdout.write(proof.to_json() + "\n")
        return exit_code(proof)
    shard = f", shard {proof.shard[0]}/{proof.shard[1]}" if proof.shard != (1, 1) else ""
    cut = " (stopped at the first stores that break)" if proof.stopped else ""
    print(
        f"covered: {proof.shapes} stores, {proof.cases} cases, {len(proof.invariants)} invariants, "
        f"{proof.seconds:.1f} s{shard}{cut}",
        file=stdout,
    )
    for lemma in proof.lemmas:
        print(f"  {'proved' if lemma.proved else 'NOT proved'} (Z3): {lemma.claim}", file=stdout)
    if proof.holds:
        print("no invariant breaks within the scope", file=stdout)
        return exit_code(proof)
    for f, path in zip(proof.found, paths, strict=True):
        print(f"{f.invariant} breaks on {proof.variant}: smallest store {f.store}", file=stdout)
        print(f"  {f.message.splitlines()[0]}", file=stdout)
        print(f"  scenario: {path}", file=stdout)
    return exit_code(proof)
