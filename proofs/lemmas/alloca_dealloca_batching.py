"""Batching queue-ordered allocations and frees (ScheduleAllocation, ReuseAllocations).

Claims, for all sizes and times:
1. batching two deallocas: if every access of R1 ends before `w1` and of R2 before `w2` (what
   each dealloca awaited), they all end before a single free that awaits `join(w1, w2)`;
2. batching two allocas into one slab of `align(s1) + s2` bytes, R1 at 0 and R2 at `align(s1)`
   (alignment 64): the two ranges are disjoint and both lie in the slab, for every size;
3. a user that awaits the batched alloca's timepoint starts after the allocation, which itself
   started after both original awaits (`join(v1, v2)`), so it is after each original alloca's
   await as well.
"""

import z3

from verify.prove import Lemma


def align(x: z3.ArithRef) -> z3.ArithRef:
    return ((x + 63) / 64) * 64


def claims() -> list[z3.BoolRef]:
    x1, x2, w1, w2, free = z3.Ints("end_x1 end_x2 w1 w2 free_start")
    join = z3.If(w1 >= w2, w1, w2)
    claim1 = z3.Implies(z3.And(x1 < w1, x2 < w2, join < free), z3.And(x1 < free, x2 < free))
    s1, s2 = z3.Ints("s1 s2")
    o2 = align(s1)
    total = o2 + s2
    sizes = z3.And(s1 >= 0, s2 >= 0)
    claim2 = z3.Implies(sizes, z3.And(s1 <= o2, 0 + s1 <= total, o2 + s2 <= total, z3.Or(s1 <= o2, s2 == 0)))
    v1, v2, alloca_start, alloca_end, user = z3.Ints("v1 v2 alloca_start alloca_end user_start")
    batched = z3.And(z3.If(v1 >= v2, v1, v2) < alloca_start, alloca_start < alloca_end, alloca_end < user)
    claim3 = z3.Implies(batched, z3.And(v1 < user, v2 < user, alloca_end < user))
    return [claim1, claim2, claim3]


LEMMA = Lemma("alloca-dealloca-batching", "batched frees still follow every access; batched allocations stay disjoint and ready", claims)
