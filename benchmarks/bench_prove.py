"""``cmharness prove``'s figures: the default scope on ``sound`` (time, stores, cases), and the defect table: each
known defect and each seed removal switched on alone in ``sound``, proved over a ladder of scopes (``LADDER``: ``small``
and a few of its widenings, each cut at ``--limit`` seconds), with the smallest
breaking store and the time; and each line behaviour switched on alone in ``sound`` and judged by ``sound``'s rules
(``BEHAVIOUR_LADDER``), where the proof tells the behaviour apart.

    .venv/bin/python benchmarks/bench_prove.py --table [--workers 2] [--limit 120] [--json PATH]
    .venv/bin/python benchmarks/bench_prove.py --default [--workers 2]
    .venv/bin/python benchmarks/bench_prove.py --patches [--scope small] [--jobs 2] [--limit 120] [--under strategies/]

``--patches``: each unnamed bug of ``tests/mutants/`` that changes a file under ``--under``, applied to a copy of the
model and the judges, proved on ``sound`` over ``--scope`` (``--first``, one process each, ``--jobs`` at a time, each
cut at ``--limit`` seconds): found (the invariants its smallest store breaks), holds over the whole scope, or cut.

The table's rows are markdown, as docs/model.md ("The proof for small stores") holds them.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from invariants.prove.engine import prove
from invariants.prove.scope import parse_scope
from strategies.defects import KNOWN, NEWER_LINES, REMOVALS, Behaviour, Defect

#: The scopes tried in turn, each ``small`` widened where some defects need it: every store setting; two rich messages
#: of images and tools under every pass; two summaries of every kind under both envelopes; two summaries in an xml
#: combined answer under the cap's edges; two levels with the carry split.
LADDER = (
    "small",
    "small,stores=plain/calibrated/work/work-last/merge,rich=0",
    "small,rich=2,contents=image/image-stamped/call/result,passes=off/tools/images/depth,odd=0",
    "small,summaries=2,envelopes=none/xml,kinds=floored/blank/nan/empty-carriers,rich=0",
    "small,summaries=2,rich=0,odd=0,modes=combined,envelopes=xml,caps=1/edges",
    "small,summaries=3,levels=2,carry=1,rich=0,odd=0",
)
#: The scopes tried for a line behaviour: ``small``, then ``small`` with the contents and settings the newer lines'
#: behaviours act on (an image with a payload, two images in one message, texts sharing a raw item; the byte cap, the
#: hysteresis ratio, one live image, a strip depth).
BEHAVIOUR_LADDER = (
    "small",
    "small,contents=image-data/two-images/raw-parts,passes=off/images/depth/bytes/hysteresis,odd=0",
)
#: The variant whose rules judge a behaviour's compile: the contract without the behaviour.
JUDGED_AS = "sound"
#: Defects no invariant sees alone: proved with the defect that unmasks them (as tests/test_defects_found.py does).
UNMASKED_BY: dict[Defect, Defect] = {Defect.FLOOR_UNHELD: Defect.COVERAGE_COUNTS_LEFT_OUT}


@dataclass(frozen=True)
class Row:
    defect: str
    scope: str
    found: bool
    invariants: tuple[str, ...]
    store: str
    size: tuple[int, int, int]
    seconds: float

    def markdown(self) -> str:
        if not self.found:
            return f"| `{self.defect}` | {self.scope} | not found | - | {self.seconds:.0f} |"
        size = f"{self.size[0]} msg, {self.size[1]} sum, {self.size[2]} blocks"
        broken = ", ".join(self.invariants)
        return f"| `{self.defect}` | `{self.scope}` | {broken} | {size}: {self.store} | {self.seconds:.1f} |"


def table_row(defect: Defect | Behaviour, workers: int, limit: float, ladder: tuple[str, ...] | None = None) -> Row:
    """A defect's row (proved on ``sound`` with it), or a behaviour's (its compile judged by ``JUDGED_AS``'s rules)."""
    spec = f"sound+{defect.name}" + (f",{UNMASKED_BY[defect].name}" if defect in UNMASKED_BY else "")
    behaviour = isinstance(defect, Behaviour)
    judged_as = JUDGED_AS if behaviour else None
    spent = 0.0
    for rung in ladder or (BEHAVIOUR_LADDER if behaviour else LADDER):
        proof = prove(parse_scope(rung), spec, workers=workers, first=True, limit=limit, judged_as=judged_as)
        spent += proof.seconds
        if proof.found:
            first = min(proof.found, key=lambda f: (f.shape, f.case))
            names = tuple(f.invariant for f in proof.found if f.shape == first.shape)
            return Row(defect.name, rung, True, names, first.store, first.size, spent)
    return Row(defect.name, f"none of the ladder (each cut at {limit:.0f} s)", False, (), "", (0, 0, 0), spent)


ROOT = Path(__file__).resolve().parents[1]
#: What one patched copy runs: the proof on ``sound`` over a scope, its first breaks, as JSON on stdout.
PROVE_PATCHED = """
import json, sys
from invariants.prove.engine import prove
from invariants.prove.scope import parse_scope
p = prove(parse_scope(sys.argv[1]), "sound", first=True, limit=float(sys.argv[2]))
print(json.dumps({"found": sorted({f.invariant for f in p.found}), "stopped": p.stopped, "cases": p.cases}))
"""


@dataclass(frozen=True)
class PatchRow:
    patch: str
    verdict: str  # "found", "holds" (the whole scope) or "cut" (stopped at the limit)
    invariants: tuple[str, ...]
    cases: int
    seconds: float


def patch_row(patch: Path, scope: str, limit: float) -> PatchRow:
    """One patch applied to a copy of the model and the judges, proved there."""
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for folder in ("reference", "strategies", "invariants"):
            shutil.copytree(ROOT / folder, Path(tmp, folder), ignore=shutil.ignore_patterns("__pycache__"))
        subprocess.run(["git", "apply", str(patch)], cwd=tmp, check=True, capture_output=True)
        out = subprocess.run(
            [sys.executable, "-c", PROVE_PATCHED, scope, str(limit)],
            cwd=tmp,
            env={"PYTHONPATH": tmp, "PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"},
            capture_output=True,
            text=True,
            check=False,
        )
    seconds = time.perf_counter() - start
    if out.returncode != 0:
        return PatchRow(patch.stem, f"error: {out.stderr.strip().splitlines()[-1]}", (), 0, seconds)
    got = json.loads(out.stdout)
    verdict = "found" if got["found"] else "cut" if got["stopped"] else "holds"
    return PatchRow(patch.stem, verdict, tuple(got["found"]), got["cases"], seconds)


def patches_under(folder: str) -> list[Path]:
    """The unnamed bugs that change a file under ``folder``."""
    return [p for p in sorted((ROOT / "tests" / "mutants").glob("*.patch")) if f"+++ b/{folder}" in p.read_text()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--table", action="store_true")
    parser.add_argument("--default", action="store_true")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--limit", type=float, default=120.0)
    parser.add_argument("--json", default=None)
    parser.add_argument("--only", nargs="*", default=None, metavar="DEFECT")
    parser.add_argument("--ladder", nargs="*", default=None, metavar="SCOPE", help="scopes to try instead of LADDER")
    parser.add_argument("--patches", action="store_true")
    parser.add_argument("--scope", default="small")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--under", default="strategies/")
    args = parser.parse_args(argv)
    if args.patches:
        patches = patches_under(args.under)
        with ThreadPoolExecutor(args.jobs) as pool:
            rows = list(pool.map(lambda p: patch_row(p, args.scope, args.limit), patches))
        for r in rows:
            print(f"| {r.patch} | {r.verdict} | {', '.join(r.invariants) or '-'} | {r.cases} | {r.seconds:.1f} |")
        counts = {v: sum(r.verdict == v for r in rows) for v in ("found", "holds", "cut")}
        print(f"{len(rows)} patches under {args.under}: " + ", ".join(f"{n} {v}" for v, n in counts.items()))
        if args.json:
            with open(args.json, "w", encoding="utf-8") as fh:
                json.dump([r.__dict__ for r in rows], fh, indent=2)
    if args.default:
        proof = prove(parse_scope("default"), "sound", workers=args.workers)
        print(
            f"default on sound: {proof.shapes} stores, {proof.cases} cases, {proof.seconds:.0f} s, holds {proof.holds}"
        )
    if args.table:
        rows = []
        defects: list[Defect | Behaviour] = sorted(KNOWN | REMOVALS | NEWER_LINES, key=lambda d: d.name)
        for d in [*defects, *Behaviour]:
            if args.only and d.name not in args.only:
                continue
            row = table_row(d, args.workers, args.limit, tuple(args.ladder) if args.ladder else None)
            rows.append(row)
            print(row.markdown(), flush=True)
        if args.json:
            with open(args.json, "w", encoding="utf-8") as fh:
                json.dump([r.__dict__ for r in rows], fh, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
