"""The union rule for coverage at alternatives is unsound (Z3 gives a counterexample).

Claimed (wrongly): an event covered by *either* alternative is covered by the selected timepoint,
`e < t1 or e < t2` implies `e < select(c, t1, t2)`. Z3 refutes it: take `c` false and an event
covered by `t1` only. This is why ElideTimepoints must intersect coverage at selects and joins of
alternatives (IREE #9747 discussion; SPEC §4).
"""

import z3

from verify.prove import Lemma


def claims() -> list[z3.BoolRef]:
    c = z3.Bool("c")
    t1, t2, e = z3.Ints("t1 t2 e")
    tp = z3.If(c, t1, t2)
    return [z3.Implies(z3.Or(e < t1, e < t2), e < tp)]


LEMMA = Lemma("select-union", "the union rule for coverage at alternatives", claims, expect="refuted")
