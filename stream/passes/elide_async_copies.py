"""elide-async-copies: remove copies whose effect nobody can observe.

materialize-copy-on-write clones conservatively; this pass takes back every copy that the rest of
the function cannot tell apart from sharing the storage. The decisions (`_SAFETY`, one rule per op)
use the storage and last-use analyses (`stream.analysis.storage`, `stream.analysis.last_use`):

* `stream.async.clone %s -> %c` (same lifetime) is removed (uses of `%c` use `%s`) when
  - neither `%s` nor `%c` is ever written in place from their version on (read-only sharing), or
  - the storage of `%s` is owned by the function (not a constant, not a borrowed import, not an
    argument) and the clone is the last use of `%s`: every other use -- under any passthrough
    name -- comes before it and none escapes (an export or a return looks at the storage when the
    function returns, so it counts as a use at the end). Writes through `%c` then only ever
    happen after everything that could see `%s`.
  A clone that changes the lifetime is kept (refine-usage decides lifetimes).
* `stream.async.transfer` within one device and one lifetime is a clone and follows the same rule.
  IREE drops such transfers unconditionally; that is wrong when the result is written in place
  while the source is still used, so here they must pass the clone test.
* `stream.async.slice` of the whole source is a clone and follows the clone rule.
* `stream.async.slice %s[o to e] -> %r` is folded into its consumers (they read `%s[o + ...]`)
  when every use of `%r` is a read the fold can express (an untied dispatch operand, the source of
  a copy) and no write to the storage of `%s`, from its version on, may overlap `[o, e)`: the
  bytes read later are still the slice's bytes. Ranges are compared exactly when constant and by
  SSA identity otherwise (`end == start` proves adjacency); anything else may overlap.
* `stream.async.update %u, %t[o to e] -> %r` is dropped when `%t` is owned by the function and
  used only by the update, and every use of `%r` either writes `[o, e)` of it entirely without
  reading it (a tied update, fill or copy whose range covers `[o, e)`; #23171: a partial
  overwrite is not enough) or reads a range disjoint from `[o, e)`.

A copy whose result nobody uses, under any name, is dead and goes too.

Elisions are applied in rounds: each round analyses the block, takes every candidate that is safe
and whose storage no earlier elision of the round touched, and rebuilds the block; rounds repeat
until nothing changes.

Invariant established: the value of every SSA resource, and every byte the caller can see through
an import or export, is unchanged; no storage that another live name (or the caller) can observe is
written in place.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from stream.analysis.affinity import same_device, value_affinities
from stream.analysis.last_use import LastUse
from stream.analysis.storage import OpFacts, Root, StorageInfo, tied_writes
from stream.ir.core import Block, Module, Op, Value
from stream.ir.interfaces import BoundAccess, bound_accesses
from stream.ir.rule_table import OpSet, Requirement, RuleTable
from stream.ir.spec import spec_of
from stream.ir.types import ResourceType
from stream.ir.walk import Function, constant_int, map_scf_blocks
from stream.passes.block_builder import STRUCTURED, BlockBuilder, check_straight_line, remap_op
from stream.passes.materialize_copy_on_write import is_unscheduled_async, reject_tensor_ties
from stream.passes.pass_manager import register_pass

__all__ = ["elide_async_copies", "elide_block", "Analysis", "may_overlap", "write_ranges"]

MAX_ROUNDS = 64


@register_pass("elide-async-copies")
def elide_async_copies(module: Module) -> Module:
    """Remove clones, transfers, slices and updates whose copy is not observable."""
    ops = []
    for top in module.ops:
        if is_unscheduled_async(top):
            func = Function(top)
            check_straight_line(func, "elide-async-copies", STRUCTURED)
            reject_tensor_ties(func, "elide-async-copies")
            ops.append(func.with_body(_elide_nested(elide_block(func.body)).ops).op)
        else:
            ops.append(top)
    return module.replace(ops=tuple(ops))


# -- ranges --------------------------------------------------------------------------------------
Range = tuple[Value, Value]  # [start, end) in bytes


@dataclass(slots=True)
class Analysis:
    """The facts the elision rules need about one block."""

    block: Block
    storage: StorageInfo
    last: LastUse
    defs: dict[Value, Op]
    devices: dict[Value, object]

    @staticmethod
    def of(block: Block, facts: dict[Op, OpFacts] | None = None) -> Analysis:
        storage = StorageInfo.of(block, facts)
        return Analysis(block, storage, LastUse.of(block, storage), storage.defs, dict(value_affinities(block)))

    def const(self, v: Value) -> int | None:
        return constant_int(v, self.defs)

    def owned(self, v: Value) -> bool:
        return self.storage.root(v) in (Root.FRESH, Root.OWNED)


def may_overlap(a: Range, b: Range, const: Callable[[Value], int | None]) -> bool:
    """Whether two byte ranges may share a byte (exact for constants, SSA identity otherwise)."""
    if a[1] is b[0] or b[1] is a[0]:
        return False
    values = [const(v) for v in (*a, *b)]
    if all(v is not None for v in values):
        a0, a1, b0, b1 = values  # type: ignore[misc]
        return a0 < b1 and b0 < a1  # type: ignore[operator]
    return True


def _covers(outer: Range, inner: Range, const: Callable[[Value], int | None]) -> bool:
    if outer[0] is inner[0] and outer[1] is inner[1]:
        return True
    values = [const(v) for v in (*outer, *inner)]
    if all(v is not None for v in values):
        o0, o1, i0, i1 = values  # type: ignore[misc]
        return o0 <= i0 and i1 <= o1  # type: ignore[operator]
    return False


def _group(op: Op, name: str) -> tuple[Value, ...]:
    spec = spec_of(op)
    assert spec is not None
    return spec.operand_group(op, name)


def _one(op: Op, name: str) -> Value:
    return _group(op, name)[0]


def _dispatch_resource_index(op: Op, operand_index: int) -> int:
    """Position of an operand among the dispatch's resource operands (for its size/range groups)."""
    spec = spec_of(op)
    assert spec is not None
    start = spec.operand_offset(op, "resource_operands")
    return sum(1 for v in op.operands[start:operand_index] if isinstance(v.type, ResourceType))


def _ranged_accesses(op: Op, index: int) -> list[BoundAccess]:
    """The declared accesses (`OpSpec.accesses`) of operand `index` that name `[offset, end)`."""
    spec = spec_of(op)
    found = bound_accesses(spec, op) if spec is not None else None
    return [b for b in found or () if b.index == index and b.offset is not None and b.end is not None]


def write_ranges(op: Op, index: int, a: Analysis) -> list[Range] | None:
    """The byte ranges `op` writes in place through operand `index` (None: unknown extent)."""
    ranges = [(b.offset, b.end) for b in _ranged_accesses(op, index) if b.mode in ("write", "read_write")]
    return ranges or None  # type: ignore[return-value]


def read_range(op: Op, index: int) -> Range | None:
    """The byte range `op` reads from operand `index`, when it reads a known range (and does not
    also write it)."""
    ranges = [(b.offset, b.end) for b in _ranged_accesses(op, index) if b.mode == "read"]
    return ranges[0] if len(ranges) == 1 else None  # type: ignore[return-value]


def _overwrites(op: Op, index: int) -> bool:
    """Whether the op's in-place write through operand `index` only writes (a dispatch also reads
    what it writes in place)."""
    spec = spec_of(op)
    return any(b.index == index and b.mode == "write" for b in (bound_accesses(spec, op) if spec is not None else None) or ())


# -- safety rules ------------------------------------------------------------------------------
def _copy_is_unobservable(op: Op, a: Analysis) -> bool:
    """The clone rule (also used for same-device, same-lifetime transfers)."""
    source, result = op.operands[0], op.results[0]
    if source.type != result.type:
        return False
    if not a.storage.is_mutated(source) and not a.storage.is_mutated(result):
        return True
    return a.owned(source) and a.last.is_last_user(source, op)


def _clone_safe(op: Op, a: Analysis) -> bool:
    return _copy_is_unobservable(op, a)


def _transfer_safe(op: Op, a: Analysis) -> bool:
    source_device = op.properties.get("source_affinity") or a.devices.get(op.operands[0])
    target_device = op.properties.get("target_affinity") or op.properties.get("execution_affinity")
    if source_device is None or target_device is None or not same_device(source_device, target_device):  # type: ignore[arg-type]
        return False
    return _copy_is_unobservable(op, a)


_SLICE_READERS = OpSet(
    "_SLICE_READERS",
    "Users that read a known byte range of their operand (a slice's copy may be folded into them).",
    {"stream.async.dispatch", "stream.async.copy"},
)


def _is_whole(op: Op, a: Analysis) -> bool:
    """A slice of all of its source is a clone."""
    return a.const(_one(op, "source_offset")) == 0 and (
        _one(op, "source_end") is _one(op, "source_size") or (a.const(_one(op, "source_end")) is not None and a.const(_one(op, "source_end")) == a.const(_one(op, "source_size")))
    )


def _slice_safe(op: Op, a: Analysis) -> bool:
    if _is_whole(op, a) and _copy_is_unobservable(op, a):
        return True
    source, result = op.operands[0], op.results[0]
    uses = a.last.uses(result)
    if not uses:
        return False
    for user, index in uses:
        # A reader of a known range only (a copy's target is written, so it has none).
        if user.name not in _SLICE_READERS or read_range(user, index) is None:
            return False
    sliced = (_one(op, "source_offset"), _one(op, "source_end"))
    for version in a.storage.forward(source):
        for user, index in a.storage.uses.get(version, ()):
            if index not in tied_writes(user):
                continue
            ranges = write_ranges(user, index, a)
            if ranges is None or any(may_overlap(sliced, r, a.const) for r in ranges):
                return False
    return True


def _update_safe(op: Op, a: Analysis) -> bool:
    target, result = _one(op, "target"), op.results[0]
    if not a.owned(target) or not a.last.only_user(target, op):
        return False
    written = (_one(op, "target_offset"), _one(op, "target_end"))
    uses = a.last.uses(result)
    for user, index in uses:
        if index in tied_writes(user):
            if not _overwrites(user, index):
                return False  # a dispatch reads what it writes in place
            ranges = write_ranges(user, index, a)
            if ranges is None or not any(_covers(r, written, a.const) for r in ranges):
                return False
        else:
            seen = read_range(user, index)
            if seen is None or may_overlap(seen, written, a.const):
                return False
    return True


def _dead(op: Op, a: Analysis) -> bool:
    """Nobody reads the copy (under any name): it can go whatever else holds."""
    return not a.last.uses(op.results[0])


_SAFETY: RuleTable[Callable[[Op, Analysis], bool]] = RuleTable(
    "_SAFETY",
    """Decide whether the copy the op makes can be elided (`fn(op, analysis) -> bool`: its
    result is dead, or no use could tell the copy from sharing the storage). An op without one
    is never elided (identity).""",
    policy="identity",
    requires=Requirement(ops=frozenset({"stream.async.clone", "stream.async.transfer", "stream.async.slice", "stream.async.update"}), why="the copying ops"),
    entries={
        "stream.async.clone": lambda op, a: _dead(op, a) or _clone_safe(op, a),
        "stream.async.transfer": lambda op, a: _dead(op, a) or _transfer_safe(op, a),
        "stream.async.slice": lambda op, a: _dead(op, a) or _slice_safe(op, a),
        "stream.async.update": lambda op, a: _dead(op, a) or _update_safe(op, a),
    },
)


# -- applying ------------------------------------------------------------------------------------
@dataclass(slots=True)
class _Plan:
    """The elisions of one round."""

    replace: dict[Value, Value] = field(default_factory=dict)  # result -> value standing for it
    removed: set[Op] = field(default_factory=set)
    folded: dict[Value, Op] = field(default_factory=dict)  # slice result -> the slice
    touched: set[Value] = field(default_factory=set)  # storage bases changed this round


def _storage_of(op: Op, a: Analysis) -> set[Value]:
    """The storages an elision of `op` changes: every version and name of a storage shares its
    tied base, so the bases of the op's resource operands and results identify them."""
    return {a.storage.base_of(v) for v in (*op.operands, *op.results) if isinstance(v.type, ResourceType)}


def _plan(block: Block, kinds: frozenset[str] | None, facts: dict[Op, OpFacts]) -> _Plan:
    a = Analysis.of(block, facts)
    plan = _Plan()
    for op in block.ops:
        rule = _SAFETY.get(op.name)
        if rule is None or (kinds is not None and op.name not in kinds):
            continue
        bases = _storage_of(op, a)
        if bases & plan.touched or not rule(op, a):
            continue
        plan.touched |= bases
        plan.removed.add(op)
        if op.name == "stream.async.slice" and not (_is_whole(op, a) and _copy_is_unobservable(op, a)):
            plan.folded[op.results[0]] = op
        elif op.name == "stream.async.update":
            plan.replace[op.results[0]] = _one(op, "target")
        else:
            plan.replace[op.results[0]] = op.operands[0]
    return plan


def elide_block(block: Block, kinds: frozenset[str] | None = None) -> Block:
    """`block` with every elidable copy removed (only ops named in `kinds`, when given)."""
    facts: dict[Op, OpFacts] = {}
    for _ in range(MAX_ROUNDS):
        plan = _plan(block, kinds, facts)
        if not plan.removed:
            return block
        block = _apply(block, plan)
    return block


def _elide_nested(block: Block) -> Block:
    """`block` with the blocks of its `scf` regions elided too, each on its own: a value from
    outside a region or a region argument is not owned there (`StorageInfo.root`), so a copy
    of one that is written in place stays; a region's own values follow the usual rules."""
    return map_scf_blocks(block, lambda b: _elide_nested(elide_block(b)))


def _apply(block: Block, plan: _Plan) -> Block:
    b = BlockBuilder()
    defs = {r: op for op in block.ops for r in op.results}
    for old in block.ops:
        if old in plan.removed:
            if old.results[0] in plan.replace:
                b.bind(old.results[0], b.lookup(plan.replace[old.results[0]]))
            continue
        if b.adopt(old):
            continue  # kept as is and shared, so that folded offsets reuse it
        op = old
        for index, v in enumerate(old.operands):
            if v in plan.folded:
                op = _fold_slice(b, op, index, plan.folded[v], defs)
        b.emit(remap_op(op, b.mapping))
    return b.block(block.arguments)


def _fold_slice(b: BlockBuilder, op: Op, index: int, slice_op: Op, defs: dict[Value, Op]) -> Op:
    """`op` reading `slice_op`'s source at the slice offset instead of the slice."""
    spec = spec_of(op)
    assert spec is not None
    start = b.lookup(_one(slice_op, "source_offset"))
    for v in (_one(slice_op, "source_offset"), *op.operands):
        n = constant_int(v, defs)
        if n is not None:
            b.register_constant(b.lookup(v), n)
    operands = list(op.operands)
    operands[index] = _one(slice_op, "source")
    if op.name == "stream.async.dispatch":
        k = _dispatch_resource_index(op, index)
        groups = {"resource_operand_sizes": None, "resource_operand_offsets": start, "resource_operand_ends": start}
    else:
        k = 0
        groups = {"source_size": None, "source_offset": start, "source_end": start}
    for group, shift in groups.items():
        at = spec.operand_offset(op, group) + k
        if shift is None:
            operands[at] = _one(slice_op, "source_size")
        else:
            operands[at] = b.add(shift, b.lookup(operands[at]))
    return op.replace(operands=tuple(operands))
