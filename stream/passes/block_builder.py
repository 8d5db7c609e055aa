"""Building a new straight-line block while lowering an old one.

The lowering passes (convert-to-stream, encode-tensors, materialize-copy-on-write,
elide-async-copies, refine-usage) all rebuild a function body op by op. `BlockBuilder` holds what
they share:

* the ops emitted so far, in order;
* a value map from old values to their replacements (`lookup`, `bind`), applied to every op
  copied from the old block (`copy`), nested regions included;
* scalar constants, hoisted to the top of the block and shared (`constant`, `index`), the way
  IREE's canonicalizer leaves them: one `arith.constant` per value and type;
* index arithmetic that folds constants and reuses an identical earlier expression (`add`,
  `mul`), so that byte sizes and offsets of static shapes stay plain constants.

Nothing here mutates an op: copies are new ops that share everything unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field

from stream.analysis.streamability import STRUCTURED
from stream.ir.attributes import Attribute, IntegerAttr
from stream.ir.core import UNKNOWN_LOC, Block, Location, Op, Region, Value
from stream.ir.diagnostics import DiagnosticError
from stream.ir.spec import spec_of
from stream.ir.types import INDEX, Type
from stream.ir.walk import Function

__all__ = ["BlockBuilder", "remap_op", "check_straight_line", "STRUCTURED"]


def remap_op(op: Op, mapping: Mapping[Value, Value]) -> Op:
    """`op` with every operand (also inside its regions) replaced through `mapping`; the very
    same op when nothing changes."""
    operands = tuple(mapping.get(v, v) for v in op.operands)
    regions = tuple(_remap_region(r, mapping) for r in op.regions)
    if all(a is b for a, b in zip(operands, op.operands)) and all(a is b for a, b in zip(regions, op.regions)):
        return op
    return op.replace(operands=operands, regions=regions)


def _remap_region(region: Region, mapping: Mapping[Value, Value]) -> Region:
    blocks = []
    changed = False
    for block in region.blocks:
        ops = tuple(remap_op(o, mapping) for o in block.ops)
        if any(a is not b for a, b in zip(ops, block.ops)):
            changed = True
            block = Block(block.arguments, ops)
        blocks.append(block)
    return Region(tuple(blocks)) if changed else region


@dataclass(slots=True)
class BlockBuilder:
    """Accumulates the ops of a new block (see the module docstring)."""

    location: Location = UNKNOWN_LOC
    ops: list[Op] = field(default_factory=list)
    mapping: dict[Value, Value] = field(default_factory=dict)
    _constant_ops: list[Op] = field(default_factory=list)
    _constants: dict[tuple[Attribute, Type], Value] = field(default_factory=dict)
    _known: dict[Value, int] = field(default_factory=dict)
    _attrs: dict[Value, Attribute] = field(default_factory=dict)
    _exprs: dict[tuple[str, Value, Value], Value] = field(default_factory=dict)
    _scaled: dict[Value, tuple[Value, int]] = field(default_factory=dict)  # v = base * factor

    # -- values ----------------------------------------------------------------------------
    def lookup(self, value: Value) -> Value:
        """The replacement of an old value (the value itself when it was not replaced)."""
        return self.mapping.get(value, value)

    def bind(self, old: Value, new: Value) -> None:
        self.mapping[old] = new

    def constant_value(self, value: Value) -> int | None:
        """The integer a (new) value holds when it is one of this builder's constants."""
        return self._known.get(value)

    def constant_attr(self, value: Value) -> Attribute | None:
        """The attribute of a (new) value that is one of this builder's hoisted constants."""
        return self._attrs.get(value)

    # -- emitting ----------------------------------------------------------------------------
    def emit(self, op: Op) -> Op:
        self.ops.append(op)
        return op

    def create(
        self,
        name: str,
        operands: Mapping[str, Value | None | tuple[Value, ...] | list[Value]] | None = None,
        results: Mapping[str, Type | tuple[Type, ...] | list[Type]] | None = None,
        attrs: Mapping[str, Attribute | None] | None = None,
        discardable: Mapping[str, Attribute] | None = None,
        location: Location | None = None,
        regions: tuple[Region, ...] = (),
    ) -> Op:
        """Build an op from its spec's named groups and append it."""
        spec = spec_of(name)
        if spec is None:
            raise KeyError(f"no op spec for '{name}'")
        op = spec.build(operands, results, attrs, regions, discardable, location or self.location)
        return self.emit(op)

    def copy(self, op: Op) -> Op:
        """Append `op` with its operands remapped. Hoistable constants are shared instead: the
        old result is bound to the (possibly already existing) hoisted constant."""
        if op.name == "arith.constant" and not op.attributes and len(op.results) == 1:
            value = op.properties.get("value")
            if value is not None and _hoistable(value):
                self.bind(op.results[0], self.constant(value, op.results[0].type, op.results[0].name_hint))
                return op
        return self.emit(remap_op(op, self.mapping))

    # -- constants and index arithmetic -------------------------------------------------------
    def constant(self, value: Attribute, type_: Type, name_hint: str | None = None) -> Value:
        """A hoisted, shared `arith.constant`."""
        key = (value, type_)
        found = self._constants.get(key)
        if found is not None:
            return found
        spec = spec_of("arith.constant")
        assert spec is not None
        op = spec.build(results={"result": type_}, attrs={"value": value}, location=self.location)
        result = op.results[0]
        if name_hint is not None and not name_hint[:1].isdigit():
            result.name_hint = name_hint
        self._constant_ops.append(op)
        self._constants[key] = result
        self._attrs[result] = value
        if isinstance(value, IntegerAttr):
            self._known[result] = value.value
        return result

    def adopt(self, op: Op) -> bool:
        """Keep an existing scalar `arith.constant` as the hoisted constant of its value (so its
        users stay the very same ops); False when it is not one or its value already has one."""
        value = op.properties.get("value") if op.name == "arith.constant" else None
        if value is None or op.attributes or len(op.results) != 1 or not _hoistable(value):
            return False
        key = (value, op.results[0].type)
        if key in self._constants:
            return False
        result = op.results[0]
        self._constant_ops.append(op)
        self._constants[key] = result
        self._attrs[result] = value
        if isinstance(value, IntegerAttr):
            self._known[result] = value.value
        return True

    def index(self, n: int) -> Value:
        return self.constant(IntegerAttr(n, INDEX), INDEX)

    def register_constant(self, value: Value, n: int) -> None:
        """Record that an existing (copied) value holds the index `n`."""
        self._known[value] = n

    def add(self, a: Value, b: Value) -> Value:
        return self._binary("arith.addi", a, b, lambda x, y: x + y, 0)

    def mul(self, a: Value, b: Value) -> Value:
        return self._binary("arith.muli", a, b, lambda x, y: x * y, 1)

    def _binary(self, name: str, a: Value, b: Value, fold, unit: int) -> Value:  # type: ignore[no-untyped-def]
        ca, cb = self._known.get(a), self._known.get(b)
        if ca is not None and cb is not None:
            return self.index(fold(ca, cb))
        if ca == unit:
            return b
        if cb == unit:
            return a
        if name == "arith.muli" and (ca == 0 or cb == 0):
            return self.index(0)
        # Constants on the right, as MLIR's canonical form puts them.
        if ca is not None:
            a, b = b, a
            ca, cb = cb, ca
        if name == "arith.muli" and cb is not None and a in self._scaled:
            base, factor = self._scaled[a]  # (x * c1) * c2 = x * (c1 * c2)
            return self.mul(base, self.index(factor * cb))
        key = (name, a, b)
        found = self._exprs.get(key)
        if found is not None:
            return found
        op = self.create(name, {"lhs": a, "rhs": b}, {"result": INDEX})
        self._exprs[key] = op.results[0]
        if name == "arith.muli" and cb is not None:
            self._scaled[op.results[0]] = (a, cb)
        return op.results[0]

    def sum(self, values: Iterable[Value]) -> Value:
        total = self.index(0)
        for v in values:
            total = self.add(total, v)
        return total

    # -- nested regions ------------------------------------------------------------------------
    def nested(self) -> BlockBuilder:
        """A builder for the block of a region nested in this one (an `scf.for` body, an
        `scf.if` branch). It shares the value map and the hoisted constants, which stay at the
        top of the outermost block and so dominate the region; index arithmetic it makes stays
        in the region and is not reused by this builder afterwards."""
        child = BlockBuilder(self.location, [], self.mapping, self._constant_ops, self._constants, self._known, self._attrs)
        child._exprs = dict(self._exprs)
        child._scaled = dict(self._scaled)
        return child

    def structured(self, op: Op, convert: Callable[[BlockBuilder, tuple[Op, ...]], None]) -> Op:
        """Append a copy of the `scf` op `op` whose blocks `convert(child, ops)` rebuilds, each
        into a `nested` builder; block arguments, results and their types stay as they are (for
        the passes that do not change what control flow carries)."""
        regions = []
        for region in op.regions:
            blocks = []
            for block in region.blocks:
                child = self.nested()
                convert(child, block.ops)
                blocks.append(child.region_block(block.arguments))
            regions.append(Region(tuple(blocks)))
        operands = tuple(self.lookup(v) for v in op.operands)
        return self.emit(op.replace(operands=operands, regions=tuple(regions)))

    def region_block(self, arguments: tuple[Value, ...]) -> Block:
        """The nested block this builder made (see `nested`): its ops, without the constants
        (the outermost builder's `block` emits them), and without index arithmetic it made that
        nothing uses."""
        return Block(arguments, tuple(self._live_ops(set(self._exprs.values()))))

    def _live_ops(self, made: set[Value]) -> list[Op]:
        """The emitted ops without the index arithmetic among `made` that nothing uses."""
        ops = list(self.ops)
        while made:
            used = {v for op in ops for inner in op.walk() for v in inner.operands}
            dead = {op for op in ops if len(op.results) == 1 and op.results[0] in made and op.results[0] not in used}
            if not dead:
                break
            ops = [op for op in ops if op not in dead]
        return ops

    # -- result ------------------------------------------------------------------------------
    def block(self, arguments: tuple[Value, ...]) -> Block:
        """The new block: hoisted constants first, then the emitted ops. Index arithmetic this
        builder made and constants nothing uses (intermediates that folded away) are dropped."""
        ops = self._live_ops(set(self._exprs.values()))
        used = {v for op in ops for inner in op.walk() for v in inner.operands}
        constants = [op for op in self._constant_ops if op.results[0] in used]
        return Block(arguments, tuple(constants) + tuple(ops))


def _hoistable(value: Attribute) -> bool:
    """Scalar constants are hoisted and shared; tensor constants (dense) stay where they are."""
    from stream.ir.attributes import BoolAttr, FloatAttr

    return isinstance(value, (IntegerAttr, FloatAttr, BoolAttr))


def check_straight_line(func: Function, pass_name: str, allowed: Collection[str] = frozenset()) -> None:
    """Refuse what the lowering passes do not handle: several blocks, control flow other than
    the `allowed` ops (`STRUCTURED` for the passes that carry `scf.for`/`scf.if` through)."""
    if len(func.blocks) > 1:
        raise DiagnosticError.at(func.op.location, f"{pass_name}: @{func.name} has {len(func.blocks)} blocks; only single-block functions are supported")
    for op in func.op.walk():
        if op.dialect in ("scf", "cf") and op.name not in allowed:
            supported = f" (supported: {', '.join(sorted(allowed))})" if allowed else ""
            raise DiagnosticError.at(op.location, f"{pass_name}: '{op.name}' control flow is not supported yet{supported}")
