"""A proof for small stores (docs/model.md, The proof for small stores): every invariant on every case of a scope.

``scope`` (the scope and its parsing), ``shapes`` (the stores, smallest first), ``boundaries`` (the numbers that
decide, per store, and the Z3 lemma on the grace limit), ``engine`` (running, sharding, merging); ``cmharness prove``
is ``reports/cli/prove.py``.

    from invariants.prove import parse_scope, prove
    proof = prove(parse_scope("small"), "sound")   # proof.holds, proof.cases, proof.found
"""

from invariants.prove.engine import Found, Proof, merge, prove
from invariants.prove.scope import PRESETS, Scope, parse_scope

__all__ = ["PRESETS", "Found", "Proof", "Scope", "merge", "parse_scope", "prove"]
