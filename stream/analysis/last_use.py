"""Last use of a storage version in a straight-line block.

A *use* of a value is an op that takes it as an operand. Uses are ordered by the position of
their op in the block; the passes after this point (scheduling, allocation) keep every pair of
conflicting accesses in that order, so "all other uses come before this one" is what makes an
in-place write through this use invisible to them.

Two kinds of use never end: an *escape* -- `stream.tensor.export`, a function `return`, a
`util.global.store` (a later call loads the storage), or an op streamproof does not model (it may
keep the storage, read it later or write it) -- hands the storage to someone who looks at it
after the function returns, so it counts as a use at the end of the block (`END`). The bytes an exported buffer holds are the bytes of its storage when the
caller gets it, not when `export` ran. A use by an `scf` op (an initial value, or a value its
regions read from outside) never ends either: the device work its last iteration or branch
issued may still read the storage after the host has gone past it, so the storage is never
written in place afterwards.

Uses of one version go through every passthrough name of it (`StorageInfo.alias_set`): a read of
`cast(%x)` is a read of `%x`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from stream.analysis.storage import RETURN_OPS, StorageInfo, passthrough_result
from stream.ir.core import Block, Op, Value
from stream.ir.rule_table import OpSet
from stream.ir.spec import spec_of

__all__ = ["END", "LastUse", "ESCAPING_OPS"]

END = 1 << 62

ESCAPING_OPS = OpSet(
    "ESCAPING_OPS",
    "Ops through which an allocation leaves the function: its last use is never before them.",
    frozenset({"stream.tensor.export", "util.global.store"}) | RETURN_OPS,
)


@dataclass(slots=True)
class LastUse:
    """Positions of ops and the last use of each storage version of one block."""

    storage: StorageInfo
    position: dict[Op, int] = field(default_factory=dict)

    @staticmethod
    def of(block: Block, storage: StorageInfo | None = None) -> LastUse:
        info = LastUse(storage or StorageInfo.of(block))
        for i, op in enumerate(block.ops):
            info.position[op] = i
        return info

    def use_position(self, op: Op) -> int:
        """Where a use by `op` happens: its position, or END for an escape."""
        if op.name in ESCAPING_OPS or spec_of(op) is None or (op.regions and op.dialect == "scf"):
            # An `scf` op issues device work that may still read what it uses after the host
            # has gone on (the work of its last iteration or branch): its uses last to the end.
            return END
        return self.position[op]

    def uses(self, v: Value) -> list[tuple[Op, int]]:
        """(op, operand index) of every use of `v`'s version under any of its names, passthrough
        ops themselves left out (their results are names of the same version)."""
        out = []
        for name in self.storage.alias_set(v):
            for op, index in self.storage.uses.get(name, ()):
                if passthrough_result(op, index) is not None:
                    continue
                out.append((op, index))
        return out

    def last_use(self, v: Value) -> int:
        """The position of the last use of `v`'s version (-1 when it is not used)."""
        return max((self.use_position(op) for op, _ in self.uses(v)), default=-1)

    def is_last_user(self, v: Value, op: Op) -> bool:
        """Whether every other use of `v`'s version comes strictly before `op` and none escapes."""
        here = self.position[op]
        for user, _ in self.uses(v):
            if user is op:
                continue
            if self.use_position(user) >= here:
                return False
        return True

    def only_user(self, v: Value, op: Op) -> bool:
        """Whether `op` is the one op using `v`'s version (possibly at several operands)."""
        return all(user is op for user, _ in self.uses(v))
