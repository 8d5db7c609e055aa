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

Per-op behaviour comes from the op interfaces of each spec (`stream.ir.interfaces`): tied writes
are the write accesses of operands tied to a result, passthroughs the `Alias` results, sizes the
`Sized` groups.
"""

from __future__ import annotations

import enum
import functools
from dataclasses import dataclass, field

from stream.ir.attributes import UnitAttr
from stream.ir.core import Block, Op, Value
from stream.ir.interfaces import bound_accesses, sized_operands, sized_results
from stream.ir.rule_table import OpSet, Requirement
from stream.ir.spec import OpSpec, spec_of
from stream.ir.types import Lifetime, ResourceType
from stream.ir.walk import used_values

__all__ = [
    "OpFacts",
    "Root",
    "StorageInfo",
    "tied_writes",
    "is_tied_writer",
    "is_tensor_tied_writer",
    "is_passthrough",
    "passthrough_source",
    "passthrough_result",
    "tied_source",
    "operand_sizes",
    "result_sizes",
    "RETURN_OPS",
]

RETURN_OPS = OpSet(
    "RETURN_OPS",
    "The function return ops.",
    {"func.return", "util.return"}, requires=Requirement(traits=frozenset({"return"})),
)


class Root(enum.Enum):
    """Where a storage comes from."""

    BORROWED = "borrowed import"  # stream.tensor.import without `consume`: read-only caller storage
    OWNED = "consumed import"  # stream.tensor.import consume: the program owns it
    CONSTANT = "constant"  # async.constant / tensor.constant, or a `constant` lifetime
    ARGUMENT = "argument"  # a resource-typed function (or region) argument
    GLOBAL = "global's storage"  # util.global.load: the global holds it for later calls
    FRESH = "fresh"  # anything else: the op that made it owns it

    @property
    def immutable(self) -> bool:
        """Storage that must never be written in place (a global's too: a later call loads it,
        whether or not this one stores a new value; an update is stored into fresh storage)."""
        return self in (Root.BORROWED, Root.CONSTANT, Root.GLOBAL)


def _value_op(spec: OpSpec) -> bool:
    """An op of the async value level (it exists at the async level, not at cmd, and has no
    regions): its tied writes make new versions of its operands' storage and its aliases new names
    of one version. (Region ops' ties summarise their bodies; timeline ops order, they do not
    version.)"""
    return "async" in spec.levels and "cmd" not in spec.levels and not spec.regions


@functools.cache
def _value_spec(name: str) -> OpSpec | None:
    spec = spec_of(name)
    return spec if spec is not None and _value_op(spec) else None


@functools.cache
def _passthrough(name: str) -> tuple[int, int] | None:
    """(operand index, result index) of a value-level op whose single result is its single-valued
    operand's storage unchanged (`Alias` without a window), else None."""
    spec = _value_spec(name)
    if spec is None:
        return None
    for al in spec.aliases:
        groups = [o.name for o in spec.operands]
        if al.offset is None and all(o.arity == "single" for o in spec.operands[: groups.index(al.operand) + 1]):
            return (groups.index(al.operand), spec._result_index[al.result])
    return None


@functools.cache
def _writing_spec(name: str) -> OpSpec | None:
    """The value-level spec of `name` when it declares an access that may write (only those ops
    can write a tied operand in place; binding every op's accesses just to find none was most of
    the cost of the storage analysis)."""
    spec = _value_spec(name)
    if spec is None or spec.ties is None or not any(a.writes or a.mode in ("tied", "declared") for a in spec.accesses or ()):
        return None
    return spec


@functools.cache
def _tied_write_plan(spec: OpSpec) -> tuple[tuple[str, bool], ...] | None:
    """(resource group, variadic) of each access that may write, in declaration order, when
    `tied_writes` can read them off the operand layout; None when it must bind the accesses (a
    `declared` mode or one resource with variadic ranges)."""
    arity = {o.name: o.arity for o in spec.operands}
    plan: list[tuple[str, bool]] = []
    for a in spec.accesses or ():
        ranged = any(n is not None and arity[n] == "variadic" for n in (a.offset, a.end, a.length))
        if a.mode == "declared" or (ranged and arity[a.resource] != "variadic"):
            return None
        if a.mode in ("write", "read_write", "tied"):
            plan.append((a.resource, arity[a.resource] == "variadic"))
    return tuple(plan)


def tied_writes(op: Op) -> tuple[int, ...]:
    """Operand indices whose storage the op writes in place: its write accesses (`OpSpec.accesses`)
    of operands tied to a result, for value-level ops."""
    spec = _writing_spec(op.name)
    if spec is None or not op.results:
        return ()
    tied = {spec.tied_operand(op, i) for i in range(len(op.results))}
    tied.discard(None)
    if not tied:  # most dispatches tie nothing
        return ()
    plan = _tied_write_plan(spec)
    if plan is None:
        accesses = bound_accesses(spec, op) or ()
        return tuple(a.index for a in accesses if a.mode in ("write", "read_write") and a.index in tied)
    # What binding the accesses would give (a `tied` access writes exactly its tied operands),
    # without building them: this runs for every op of every storage analysis.
    out: list[int] = []
    for group, variadic in plan:
        start = spec.operand_offset(op, group)
        for index in range(start, min(start + len(spec.operand_group(op, group)), len(op.operands))):
            if index in tied and (not variadic or isinstance(op.operands[index].type, ResourceType)):
                out.append(index)
    return tuple(out)


def is_tied_writer(op: Op) -> bool:
    """Whether the op may write some operand in place (it has a tied write access)."""
    spec = _value_spec(op.name)
    return spec is not None and spec.ties is not None and any(a.writes or a.mode == "tied" for a in spec.accesses or ())


def is_tensor_tied_writer(op: Op) -> bool:
    """A tensor-level op that writes in place (a write access of a tied operand): the async passes
    refuse them (encode-tensors first)."""
    spec = spec_of(op)
    return (spec is not None and spec.levels == frozenset({"tensor"}) and spec.ties is not None
            and any(a.writes or a.mode == "tied" for a in spec.accesses or ()))


def is_passthrough(op: Op) -> bool:
    return _passthrough(op.name) is not None


def passthrough_source(op: Op, result_index: int) -> int | None:
    found = _passthrough(op.name)
    if found is not None and found[1] == result_index:
        return found[0]
    return None


def passthrough_result(op: Op, operand_index: int) -> int | None:
    """The result that is operand `operand_index`'s storage unchanged, if any."""
    found = _passthrough(op.name)
    if found is not None and found[0] == operand_index:
        return found[1]
    return None


def tied_source(op: Op, result_index: int, writes: tuple[int, ...] | None = None) -> int | None:
    """The operand index a result shares storage with (tied write or passthrough). `writes`:
    the op's `tied_writes`, when the caller has them already."""
    through = passthrough_source(op, result_index)
    if through is not None:
        return through
    spec = _writing_spec(op.name)
    if spec is None:
        return None
    index = spec.tied_operand(op, result_index)
    return index if index is not None and index in (tied_writes(op) if writes is None else writes) else None


# -- sizes -----------------------------------------------------------------------------------------
def operand_sizes(op: Op) -> dict[int, Value]:
    """Operand index -> size value, for every sized resource operand of an op (`OpSpec.sized`)."""
    spec = spec_of(op)
    if spec is None or spec.sized is None:
        return {}
    return {index: size for index, _v, size in sized_operands(spec, op)}


def result_sizes(op: Op) -> dict[int, Value]:
    """Result index -> size value, for every resource result of an op (`OpSpec.sized`)."""
    spec = spec_of(op)
    if spec is None or spec.sized is None or spec.sized.results is None:
        return {}
    return {i: size for i, size in sized_results(spec, op) if size is not None}


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
        writes = tied_writes(op)
        return OpFacts(operand_sizes(op), result_sizes(op), writes, tuple(tied_source(op, i, writes) for i in range(len(op.results))))


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
            if op.regions and op.dialect == "scf":
                # A value an `scf` region reads from outside is used by the `scf` op (at no
                # operand index: -1), so it is not the last use of anything before it.
                for v in used_values(op):
                    if v not in op.operands:
                        self.uses.setdefault(v, []).append((op, -1))
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
        if op is None or op.dialect == "scf":
            # A block argument, or what an `scf` op carries out (it may be any value that
            # flowed in, a borrowed one included): treated like caller storage.
            return Root.ARGUMENT
        if op.name == "stream.tensor.import":
            return Root.OWNED if isinstance(op.properties.get("consume"), UnitAttr) else Root.BORROWED
        if op.name in ("stream.async.constant", "stream.tensor.constant"):
            return Root.CONSTANT
        if op.name == "util.global.load":
            return Root.GLOBAL
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
                found = passthrough_result(user, index)
                if found is not None and user.results[found] not in seen:
                    seen.add(user.results[found])
                    out.append(user.results[found])
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
