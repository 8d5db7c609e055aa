"""The await-elision rule of ElideTimepoints (SPEC §4 pass 12).

An op starts once it is issued and every awaited timepoint is reached. Claims, for all times:
1. dropping an awaited timepoint `a` that another awaited timepoint `b` covers (`a <= b`: `b`
   reached implies `a` reached) does not change when the op may start:
   `start > a and start > b`  iff  `start > b`;
2. host awaits count as coverage: if the host waited for `a` before issuing the op, the op starts
   after `a` without awaiting it (`a < host_wait < issue < start`). An await is a pure op, so
   `host_wait` is its first host consumer (an op using the awaited value; IREE sinks the await
   there) or a `sync` await, never a dead await;
3. the premise is needed: when `b` does not cover `a` (`a > b`), some start allowed by `b` alone
   comes no later than `a`, so dropping `a` would allow starting before it is reached.
"""

import z3

from verify.prove import Lemma


def claims() -> list[z3.BoolRef]:
    a, b, start, host_wait, issue = z3.Ints("a b start host_wait issue")
    claim1 = z3.Implies(a <= b, (z3.And(start > a, start > b)) == (start > b))
    claim2 = z3.Implies(z3.And(a < host_wait, host_wait < issue, issue < start), start > a)
    s = z3.Int("s")
    claim3 = z3.Implies(a > b, z3.Exists([s], z3.And(s > b, s <= a)))
    return [claim1, claim2, claim3]


LEMMA = Lemma("await-elision", "an await covered by another awaited (or host-awaited) timepoint can be dropped", claims)
