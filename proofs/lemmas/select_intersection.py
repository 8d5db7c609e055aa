"""Coverage at alternatives takes the intersection (reference §6; SPEC §4 pass 12).

A timepoint chosen at run time, `tp = select(c, t1, t2)`, covers what *both* alternatives cover:
for every condition and all times, `e < t1 and e < t2` implies `e < tp`. (The union rule is
wrong: see select_union_refuted.py.)
"""

import z3

from verify.prove import Lemma


def claims() -> list[z3.BoolRef]:
    c = z3.Bool("c")
    t1, t2, e = z3.Ints("t1 t2 e")
    tp = z3.If(c, t1, t2)
    return [z3.Implies(z3.And(e < t1, e < t2), e < tp)]


LEMMA = Lemma("select-intersection", "a selected timepoint covers the intersection of what its alternatives cover", claims)
