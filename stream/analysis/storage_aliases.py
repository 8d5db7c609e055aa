"""Storage aliasing inside one async execution region.

At the async level every resource value is immutable, but values share storage:

* a tied result *is* its operand's storage (`async.dispatch ... -> %a`, `async.fill`,
  `async.update`, `async.copy`, `async.barrier`);
* a `resource.subview` is a byte range of its source, at an offset;
* a wave's (`async.concurrent`) block argument is the value it captures, and a wave's result is
  the value yielded inside it.

`StorageForest.of(body)` builds the forest of these derivations for a `stream.async.execute`
body: every value points to the value it is derived from, with the byte offset to add. A *root*
has storage of its own: a capture of the region (a block argument of the body) or a fresh result
(untied dispatch results, splats, clones, slices, transfers, allocas, constants). All values of a
tree live in their root's storage, so a storage plan needs one slot per tree.

Wave results follow the yielded value, not the wave's `tied_operands`: the yielded value is what
the result holds, and a tie on a wave only restates the ties of the ops inside it (IREE's
alias sets do the same through the yield). Ties of other ops are exact (one operand per result).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from stream.ir.core import Block, Op, Value
from stream.ir.rule_table import OpSet
from stream.ir.spec import spec_of
from stream.ir.types import ResourceType

__all__ = ["StorageForest", "PASSTHROUGH_TIES", "walk_body"]

# Ties that alias storage without writing it.
PASSTHROUGH_TIES = OpSet(
    "PASSTHROUGH_TIES",
    "Ties that alias storage without writing it.",
    {"stream.resource.subview", "stream.async.barrier"},
)


def walk_body(block: Block) -> Iterator[tuple[int, Op]]:
    """Every op of an execute body with the index of the top-level op that contains it
    (the op itself for top-level ops; the wave for ops inside `async.concurrent`)."""
    for i, top in enumerate(block.ops):
        for op in top.walk():
            yield i, op


@dataclass(slots=True)
class StorageForest:
    """Derivation edges `value -> (value it lives in, offset terms)` of one region body.

    Offsets are tuples of index values to add (empty means offset 0); only subviews add terms.
    """

    parent: dict[Value, tuple[Value, tuple[Value, ...]]] = field(default_factory=dict)
    # Roots whose storage some tied op writes in place.
    written: set[Value] = field(default_factory=set)
    # Defining op of every value defined in the body (nested ops included).
    defs: dict[Value, Op] = field(default_factory=dict)
    _roots: dict[Value, tuple[Value, tuple[Value, ...]]] = field(default_factory=dict)

    @staticmethod
    def of(body: Block) -> StorageForest:
        forest = StorageForest()
        writers: list[Value] = []
        for _, op in walk_body(body):
            for r in op.results:
                forest.defs[r] = op
            if op.name == "stream.async.concurrent":
                forest._link_wave(op)
                continue
            spec = spec_of(op)
            if spec is None or spec.ties is None:
                continue
            for i, r in enumerate(op.results):
                if not isinstance(r.type, ResourceType):
                    continue
                index = spec.tied_operand(op, i)
                if index is None:
                    continue
                offset: tuple[Value, ...] = ()
                if op.name == "stream.resource.subview":
                    offset = (spec.operand_group(op, "source_offset")[0],)
                forest.parent[r] = (op.operands[index], offset)
                if op.name not in PASSTHROUGH_TIES:
                    writers.append(r)
        for w in writers:
            forest.written.add(forest.root(w)[0])
        return forest

    def _link_wave(self, wave: Op) -> None:
        spec = spec_of(wave)
        assert spec is not None
        inner = wave.regions[0].blocks[0]
        for arg, outer in zip(inner.arguments, spec.operand_group(wave, "resource_operands")):
            self.parent[arg] = (outer, ())
        yielded = inner.ops[-1].operands[: len(inner.ops[-1].operands) // 2]
        for result, value in zip(wave.results, yielded):
            self.parent[result] = (value, ())

    def root(self, v: Value) -> tuple[Value, tuple[Value, ...]]:
        """The root whose storage `v` lives in, and the offset terms from the root to `v`."""
        found = self._roots.get(v)
        if found is not None:
            return found
        chain: list[tuple[Value, tuple[Value, ...]]] = []
        current = v
        while current in self.parent and current not in self._roots:
            nxt, offset = self.parent[current]
            chain.append((current, offset))
            current = nxt
        base, terms = self._roots.get(current, (current, ()))
        # Walk back down, accumulating offsets from the root.
        for value, offset in reversed(chain):
            terms = terms + offset
            self._roots[value] = (base, terms)
        self._roots.setdefault(v, (base, terms))
        return self._roots[v]

    def is_root(self, v: Value) -> bool:
        return v not in self.parent
