"""Proof obligations: what must hold for a function to be free of each property class.

Each obligation is an explicit object with a *shape* saying what must be shown:

* `order`: `first` ends before `second` starts on every execution (lifetimes, readiness, the
  caller-visible completion of the function);
* `order_if_overlap`: the same, unless the byte ranges in `cond` cannot intersect (tie
  linearity: a reader of a value before the in-place write that replaces it);
* `conflict`: the two sites are ordered one way or the other, unless the ranges cannot intersect
  (races; with `first is second`, an op that conflicts with itself);
* `range`: the condition `cond` (a disjunction of conjunctions of linear facts `e > 0`) is
  unsatisfiable (bounds, pack slices, writes to read-only storage);
* `fact`: violated by the program's structure alone (two frees, a leak, a cycle);
* `opaque`: undecidable from the model (an access through storage an unmodelled op returned):
  never proved, always `unknown` (fail closed).

`generate(model, full)` lists them. In full mode nothing is pruned: every pair of accesses on one
allocation is listed, even where constant ranges are disjoint.

The record is `verify.obligation`; the families that produce obligations, each with the
argument for what it leaves out:

* races (`conflict`): `verify.race_obligations`;
* lifetimes, frees, leaks, async readiness and tie linearity: `verify.lifetime_obligations`;
* bounds, pack slices, read-only storage, device placement and opaque storage:
  `verify.storage_obligations`;
* completion at the return or a fence, the wait fence, globals: `verify.abi_obligations`.

This module collects them (`generate`) and re-exports what other modules import from here.
"""

from __future__ import annotations

from verify.abi_obligations import completion, globals_, wait_fence
from verify.hb import HappensBefore
from verify.lifetime_obligations import frees, lifetimes, readiness, ties
from verify.model import FunctionModel
from verify.obligation import Cond, Obligation, overlap_cond
from verify.race_obligations import race_class, races
from verify.storage_obligations import affinity, borrowed, bounds, opaque, pack_members, packs, slice_membership

__all__ = [
    "Obligation", "Cond", "generate", "overlap_cond", "race_class", "slice_membership", "pack_members",
    "races", "lifetimes", "frees", "readiness", "ties", "borrowed", "bounds", "packs", "affinity",
    "completion", "wait_fence", "globals_", "opaque",
]


def generate(model: FunctionModel, full: bool = False, hb: HappensBefore | None = None) -> list[Obligation]:
    """Every obligation of the model; given `hb` (pruned mode), race pairs that reachability
    orders by transitivity are left out (`verify.frontier`)."""
    out: list[Obligation] = []
    members = pack_members(model)
    for gen in (races(model, full, members, hb), lifetimes(model), frees(model), readiness(model), ties(model), borrowed(model), bounds(model),
                packs(model, members), affinity(model), completion(model), wait_fence(model), globals_(model), opaque(model)):
        out.extend(gen)
    return out
