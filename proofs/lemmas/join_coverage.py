"""Join and coverage rules (SPEC §3.1 rule 2; reference §1.3).

Timepoints are reach times. A join of n >= 1 timepoints `t[0..n)` is reached exactly when its
last input is: `join >= t[i]` for all i, and `join == t[k]` for some k. Claims, for every n, every
input times and every event time `e`:
1. coverage through a join: an event covered by one input (`e < t[i]`) is covered by the join;
2. a waiter on the join starts after every input is reached;
3. coverage is transitive: if `e` is covered by `a`, and an op awaits `a` and signals `b` after it
   ends, `e` is covered by `b` (what lets ElideTimepoints reason over chains of waits).
"""

import z3

from verify.prove import Lemma


def claims() -> list[z3.BoolRef]:
    t = z3.Array("t", z3.IntSort(), z3.IntSort())
    n, k, i, j = z3.Ints("n k i j")
    join, e, w = z3.Ints("join e w")
    join_def = z3.And(
        n >= 1,
        z3.ForAll([j], z3.Implies(z3.And(j >= 0, j < n), t[j] <= join)),
        z3.And(k >= 0, k < n, t[k] == join),
    )
    covered_by_input = z3.And(i >= 0, i < n, e < t[i])
    claim1 = z3.Implies(z3.And(join_def, covered_by_input), e < join)
    claim2 = z3.Implies(z3.And(join_def, join < w, i >= 0, i < n), t[i] < w)
    a, start, end, b = z3.Ints("a start end b")
    claim3 = z3.Implies(z3.And(e < a, a < start, start < end, end < b), e < b)
    return [claim1, claim2, claim3]


LEMMA = Lemma("join-coverage", "an event covered by one input of a join is covered by the join; coverage is transitive", claims)
