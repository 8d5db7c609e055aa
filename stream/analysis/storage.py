"""Storage at the async level: which resource values share bytes, where those bytes come from,
and which values are written in place.

At the async level every resource value is an immutable byte string, but two values can be
backed by the same storage:

* a **tied write** (`fill`, `update`, `copy`, `store` into their target; a dispatch result tied
  to an operand) makes its result a new *version* of the operand's storage: the operand's bytes
  are overwritten in place, so nothing may read the operand afterwards;
* a **passthrough** (`stream.async.cast`, `stream.async.barrier`) makes its result *the same
  version* under another name (no bytes change).

`StorageInfo` computes, for one block: each value's tied *base* (following ties and passthroughs
back to the op that made the storage), what kind of storage that is (`Root`), the size value of
every resource, the passthrough *alias set* of a value (all names of one version) and its
*forward closure* (later versions of the same storage), and whether a value's storage is ever
written in place from that version on (`is_mutated`).

Per-op behaviour lives in the tables `TIED_WRITES`, `PASSTHROUGH` and `SIZES`.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Callable
from dataclasses import dataclass, field

from stream.ir.attributes import ArrayAttr, IntegerAttr, UnitAttr
from stream.ir.core import Block, Op, Value
from stream.ir.spec import spec_of
from stream.ir.types import Lifetime, ResourceType

__all__ = [
    "OpFacts",
    "Root",
    "StorageInfo",
    "tied_writes",
    "passthrough_source",
    "tied_source",
    "operand_sizes",
    "result_sizes",
    "RETURN_OPS",
]

RETURN_OPS = frozenset({"func.return", "util.return"})


class Root(enum.Enum):
    """Where a storage comes from."""

    BORROWED = "borrowed import"  # stream.tensor.import without `consume`: read-only caller storage
    OWNED = "consumed import"  # stream.tensor.import consume: the program owns it
    CONSTANT = "constant"  # async.constant / tensor.constant, or a `constant` lifetime
    ARGUMENT = "argument"  # a resource-typed function (or region) argument
    FRESH = "fresh"  # anything else: the op that made it owns it

    @property
    def immutable(self) -> bool:
        """Storage that must never be written in place."""
        return self in (Root.BORROWED, Root.CONSTANT)


@functools.cache
def _fixed_offset(name: str, group: str) -> int | None:
    """The operand index of a single-valued group that only single-valued groups precede (no
    segment arithmetic needed), else None. The analyses below ask for these a lot."""
    spec = spec_of(name)
    assert spec is not None
    index = spec._operand_index[group]
    if all(o.arity == "single" for o in spec.operands[: index + 1]):
        return index
    return None


def _group_index(op: Op, group: str) -> tuple[int, ...]:
    fixed = _fixed_offset(op.name, group)
    if fixed is not None:
        return (fixed,)
    spec = spec_of(op)
    assert spec is not None
    start = spec.operand_offset(op, group)
    return tuple(range(start, start + len(spec.operand_group(op, group))))


def _one(op: Op, group: str) -> Value:
    fixed = _fixed_offset(op.name, group)
    if fixed is not None:
        return op.operands[fixed]
    spec = spec_of(op)
    assert spec is not None
    return spec.operand_group(op, group)[0]


def _dispatch_ties(op: Op) -> list[int | None]:
    """Operand index each dispatch result is tied to (None when untied), one segment computation."""
    tied = op.properties.get("tied_operands")
    if not isinstance(tied, ArrayAttr) or not len(tied):
        return [None] * len(op.results)
    spec = spec_of(op)
    assert spec is not None
    start = spec.operand_offset(op, "resource_operands")
    out: list[int | None] = []
    for i in range(len(op.results)):
        e = tied.elements[i] if i < len(tied) else None
        out.append(start + e.value if isinstance(e, IntegerAttr) and e.value >= 0 else None)
    return out


def _dispatch_tied(op: Op) -> tuple[int, ...]:
    return tuple(i for i in _dispatch_ties(op) if i is not None)


# op name -> operand indices whose storage the op writes in place (each tied to a result).
TIED_WRITES: dict[str, Callable[[Op], tuple[int, ...]]] = {
    "stream.async.fill": lambda op: _group_index(op, "target"),
    "stream.async.update": lambda op: _group_index(op, "target"),
    "stream.async.copy": lambda op: _group_index(op, "target"),
    "stream.async.store": lambda op: _group_index(op, "target"),
    "stream.async.dispatch": _dispatch_tied,
    "stream.async.collective": lambda op: _group_index(op, "target"),
}

# op name -> (operand index, result index): the result is the operand's storage, unchanged.
PASSTHROUGH: dict[str, tuple[int, int]] = {
    "stream.async.cast": (0, 0),
    "stream.async.barrier": (0, 0),
}

# Tensor-level ops that write in place: the async passes refuse them (encode-tensors first).
TENSOR_TIED_WRITES = frozenset({"stream.tensor.update", "stream.tensor.fill", "stream.tensor.store", "stream.tensor.dispatch"})


def tied_writes(op: Op) -> tuple[int, ...]:
    rule = TIED_WRITES.get(op.name)
    return rule(op) if rule is not None else ()


def passthrough_source(op: Op, result_index: int) -> int | None:
    found = PASSTHROUGH.get(op.name)
    if found is not None and found[1] == result_index:
        return found[0]
    return None


def tied_source(op: Op, result_index: int) -> int | None:
    """The operand index a result shares storage with (tied write or passthrough)."""
    through = passthrough_source(op, result_index)
    if through is not None:
        return through
    if op.name == "stream.async.dispatch":
        return _dispatch_ties(op)[result_index]
    if op.name in TIED_WRITES:
        written = TIED_WRITES[op.name](op)
        return written[result_index] if result_index < len(written) else None
    return None


# -- sizes -----------------------------------------------------------------------------------------
# op name -> pairs (resource operand group, its size operand group), in the op's ODS order.
SIZES: dict[str, tuple[tuple[str, str], ...]] = {
    "stream.async.clone": (("source", "source_size"),),
    "stream.async.slice": (("source", "source_size"),),
    "stream.async.fill": (("target", "target_size"),),
    "stream.async.update": (("target", "target_size"), ("update", "update_size")),
    "stream.async.copy": (("target", "target_size"), ("source", "source_size")),
    "stream.async.barrier": (("source", "size"),),
    "stream.async.transfer": (("source", "source_size"),),
    "stream.async.cast": (("source", "source_size"),),
    "stream.async.load": (("source", "source_size"),),
    "stream.async.store": (("target", "target_size"),),
    "stream.tensor.export": (("source", "source_size"),),
}

# op name -> the operand group holding the size of each resource result, in result order.
RESULT_SIZES: dict[str, str] = {
    "stream.async.alloca": "storage_size",
    "stream.async.constant": "result_size",
    "stream.async.splat": "result_size",
    "stream.async.clone": "result_size",
    "stream.async.slice": "result_size",
    "stream.async.transfer": "result_size",
    "stream.async.cast": "result_size",
    "stream.async.fill": "target_size",
    "stream.async.update": "target_size",
    "stream.async.copy": "target_size",
    "stream.async.store": "target_size",
    "stream.async.barrier": "size",
    "stream.async.dispatch": "result_sizes",
    "stream.tensor.import": "result_size",
}


def operand_sizes(op: Op) -> dict[int, Value]:
    """Operand index -> size value, for every resource operand of an async op."""
    spec = spec_of(op)
    if spec is None:
        return {}
    out: dict[int, Value] = {}
    if op.name == "stream.async.dispatch":
        operands = spec.operand_group(op, "resource_operands")
        sizes = iter(spec.operand_group(op, "resource_operand_sizes"))
        start = spec.operand_offset(op, "resource_operands")
        for i, v in enumerate(operands):
            if isinstance(v.type, ResourceType):
                out[start + i] = next(sizes)
        return out
    for group, size_group in SIZES.get(op.name, ()):
        out[_group_index(op, group)[0]] = _one(op, size_group)
    return out


def result_sizes(op: Op) -> dict[int, Value]:
    """Result index -> size value, for every resource result of an async op."""
    spec = spec_of(op)
    group = RESULT_SIZES.get(op.name)
    if spec is None or group is None:
        return {}
    out: dict[int, Value] = {}
    if op.name != "stream.async.dispatch" and len(op.results) == 1 and _fixed_offset(op.name, group) is not None:
        if isinstance(op.results[0].type, ResourceType):
            out[0] = _one(op, group)
        return out
    sizes = spec.operand_group(op, group)
    if op.name == "stream.async.dispatch":
        # Every result has its size in `result_sizes`, tied ones included (IREE's format).
        for i, size in zip(range(len(op.results)), sizes):
            out[i] = size
        return out
    for i, r in enumerate(op.results):
        if isinstance(r.type, ResourceType) and sizes:
            out[i] = sizes[min(i, len(sizes) - 1)]
    return out


# -- the analysis ----------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class OpFacts:
    """What the tables above say about one op (computed once, the spec's segment arithmetic being
    the costly part)."""

    operand_sizes: dict[int, Value]
    result_sizes: dict[int, Value]
    tied_writes: tuple[int, ...]
    tied_sources: tuple[int | None, ...]

    @staticmethod
    def of(op: Op) -> OpFacts:
        return OpFacts(operand_sizes(op), result_sizes(op), tied_writes(op), tuple(tied_source(op, i) for i in range(len(op.results))))


@dataclass(slots=True)
class StorageInfo:
    """Storage facts of one straight-line block (see the module docstring)."""

    block: Block
    defs: dict[Value, Op] = field(default_factory=dict)
    uses: dict[Value, list[tuple[Op, int]]] = field(default_factory=dict)
    base: dict[Value, Value] = field(default_factory=dict)
    sizes: dict[Value, Value] = field(default_factory=dict)
    # value -> values that are later versions or passthrough names of its storage
    _next: dict[Value, list[Value]] = field(default_factory=dict)
    # values (versions) that some op writes in place
    _written: set[Value] = field(default_factory=set)
    _mutated: dict[Value, bool] = field(default_factory=dict)
    _mutated_done: bool = False

    @staticmethod
    def of(block: Block, facts: dict[Op, OpFacts] | None = None) -> StorageInfo:
        """The analysis of `block`. `facts` caches per-op facts across analyses of blocks that
        share ops (a pass that rewrites a block in rounds keeps the ops it does not touch)."""
        info = StorageInfo(block)
        info._build({} if facts is None else facts)
        return info

    def _build(self, cache: dict[Op, OpFacts]) -> None:
        for op in self.block.ops:
            facts = cache.get(op)
            if facts is None:
                facts = cache[op] = OpFacts.of(op)
            for index, v in enumerate(op.operands):
                self.uses.setdefault(v, []).append((op, index))
            for index, size in facts.operand_sizes.items():
                self.sizes.setdefault(op.operands[index], size)
            for index, size in facts.result_sizes.items():
                self.sizes.setdefault(op.results[index], size)
            for index in facts.tied_writes:
                self._written.add(op.operands[index])
            for i, r in enumerate(op.results):
                self.defs[r] = op
                src = facts.tied_sources[i]
                if src is not None and src < len(op.operands):
                    operand = op.operands[src]
                    self.base[r] = self.base.get(operand, operand)
                    self._next.setdefault(operand, []).append(r)

    # -- queries ---------------------------------------------------------------------------
    def base_of(self, v: Value) -> Value:
        """The value whose producer made `v`'s storage (itself when `v` is not tied)."""
        return self.base.get(v, v)

    def root(self, v: Value) -> Root:
        base = self.base_of(v)
        if isinstance(base.type, ResourceType) and base.type.lifetime is Lifetime.CONSTANT:
            return Root.CONSTANT
        op = self.defs.get(base)
        if op is None:
            return Root.ARGUMENT
        if op.name == "stream.tensor.import":
            return Root.OWNED if isinstance(op.properties.get("consume"), UnitAttr) else Root.BORROWED
        if op.name in ("stream.async.constant", "stream.tensor.constant"):
            return Root.CONSTANT
        return Root.FRESH

    def alias_set(self, v: Value) -> list[Value]:
        """All names of the same version of `v`'s storage (through passthrough ops, both ways)."""
        out = [v]
        seen = {v}
        i = 0
        while i < len(out):
            cur = out[i]
            i += 1
            op = self.defs.get(cur)
            if op is not None:
                src = passthrough_source(op, op.results.index(cur))
                if src is not None and op.operands[src] not in seen:
                    seen.add(op.operands[src])
                    out.append(op.operands[src])
            for user, index in self.uses.get(cur, ()):
                found = PASSTHROUGH.get(user.name)
                if found is not None and found[0] == index and user.results[found[1]] not in seen:
                    seen.add(user.results[found[1]])
                    out.append(user.results[found[1]])
        return out

    def forward(self, v: Value) -> list[Value]:
        """`v`, its passthrough names, and every later version of its storage (with their names)."""
        out = list(self.alias_set(v))
        seen = set(out)
        i = 0
        while i < len(out):
            for nxt in self._next.get(out[i], ()):
                if nxt not in seen:
                    seen.add(nxt)
                    out.append(nxt)
            i += 1
        return out

    def is_mutated(self, v: Value) -> bool:
        """Whether `v`'s storage is written in place by some op, from `v`'s version on."""
        if not self._mutated_done:
            self._mutated_from_here()
            self._mutated_done = True
        return any(self._mutated.get(x, x in self._written) for x in self.alias_set(v))

    def _mutated_from_here(self) -> None:
        """`_mutated[v]`: some op writes `v` or a later version or name of it. Later versions are
        defined later in the block, so one pass in reverse order computes every value."""
        values = [r for op in self.block.ops for r in op.results]
        values.extend(self.block.arguments)
        done = self._mutated
        for v in reversed(values):
            done[v] = v in self._written or any(done.get(n, False) for n in self._next.get(v, ()))

    def is_written(self, v: Value) -> bool:
        """Whether some op writes this very value in place."""
        return v in self._written

    def tied_index(self, op: Op, result_index: int) -> int | None:
        return tied_source(op, result_index)


def tied_operands_attr(ties: list[int]) -> ArrayAttr:
    """IREE's `tied_operands` property: one index per result (-1 when untied)."""
    from stream.ir.types import INDEX

    return ArrayAttr(tuple(IntegerAttr(t, INDEX) for t in ties))
