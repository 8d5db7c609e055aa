"""Pack disjointness, and the consistency of the verifier's pack facts.

The verifier assumes about `stream.resource.pack` only its contract: every slice lies in
`[0, total)` and slices whose lifetime intervals intersect do not share bytes. If that contract
were unsatisfiable for some sizes, every query mentioning a pack would be vacuously "proved".
Claim: the stack layout (slice i at the 64-aligned sum of the sizes before it, total = the
aligned sum of all) satisfies the contract for *every* sizes of an 8-slice pack, for any
lifetime intervals; so the contract always has a model, and a packer laying slices out that way
is correct.
"""

import z3

from verify.prove import Lemma

N = 8


def align(x: z3.ArithRef) -> z3.ArithRef:
    return ((x + 63) / 64) * 64


def claims() -> list[z3.BoolRef]:
    sizes = [z3.Int(f"size{i}") for i in range(N)]
    offsets: list[z3.ArithRef] = []
    acc: z3.ArithRef = z3.IntVal(0)
    for s in sizes:
        offsets.append(acc)
        acc = align(acc + s)
    total = acc
    contract = []
    for i in range(N):
        contract.append(z3.And(offsets[i] >= 0, offsets[i] + sizes[i] <= total))
        for j in range(i):
            contract.append(z3.Or(offsets[i] + sizes[i] <= offsets[j], offsets[j] + sizes[j] <= offsets[i], sizes[i] == 0, sizes[j] == 0))
    nonneg = z3.And(*[s >= 0 for s in sizes])
    return [z3.Implies(nonneg, z3.And(*contract))]


LEMMA = Lemma("pack-disjointness", "the aligned stack layout satisfies the pack contract for all sizes (the contract is consistent)", claims)
