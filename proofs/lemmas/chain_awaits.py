"""Chaining awaits into execute regions (PropagateTimepoints, SPEC §4 pass 8).

Before: the host waits for `t` (`t < host_wait`), then issues execute E (`host_wait < issue`).
After: the host issues E at once and E awaits `t` itself. Claims, for all times:
1. every op x nested in E still starts after `t` (E starts after its await; x after E's start);
2. E's result timepoint still covers `t` (a consumer awaiting E's timepoint is after `t`);
3. the host is no longer blocked: the after-program allows issuing E before `t` is reached
   (stated as: the after-constraints are satisfiable with `issue < t`).
"""

import z3

from verify.prove import Lemma


def claims() -> list[z3.BoolRef]:
    t, issue, start_e, start_x, end_x, end_e, reach_e, consumer = z3.Ints("t issue start_E start_x end_x end_E reach_E consumer")
    after = z3.And(issue < start_e, t < start_e, start_e < start_x, start_x < end_x, end_x < end_e, end_e < reach_e)
    claim1 = z3.Implies(after, t < start_x)
    claim2 = z3.Implies(z3.And(after, reach_e < consumer), t < consumer)
    # Claim 3 (non-blocking host): a concrete schedule of the after-program with issue < t.
    witness = z3.substitute(
        z3.And(after, issue < t),
        *[(v, z3.IntVal(k)) for k, v in enumerate((issue, t, start_e, start_x, end_x, end_e, reach_e))],
    )
    return [claim1, claim2, z3.simplify(witness)]


LEMMA = Lemma("chain-awaits", "an await moved from the host into the execute region keeps every ordering the region needs", claims)
