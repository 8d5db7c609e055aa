"""refine-usage: give every resource a concrete lifetime.

Runs the ResourceUsage analysis (`stream.analysis.resource_usage`: classes of values sharing
storage, usage bits, IREE's lifetime order) and then:

1. **Conflicts** -- a use whose op cannot take its class's lifetime (a host load of something
   that is not `staging`, a dispatch touching `staging`, an in-place write to a `constant`) gets
   a `stream.async.transfer` of the operand right before it, on the operand's device; the
   transfer's result starts a new class. The analysis is rerun until no conflict remains.
2. **Lifetimes** -- every `!stream.resource<*>` (results and function arguments) is rewritten
   to its class's lifetime; values that already had one keep it.
3. **Casts** -- `stream.async.cast` folds away when its operand already has the lifetime the
   result got (the common case: imports are `external`, exports take `external`), and becomes a
   transfer on the cast's device otherwise.
4. **No-op transfers** -- a transfer within one device whose two lifetimes now agree is a clone;
   it is removed when elide-async-copies' clone rule says nobody can observe the copy.

Invariant established: no `*` lifetime and no `stream.async.cast` remain; every op gets
operands of a lifetime it accepts; every inserted transfer is the identity on bytes, so each
value computes what it did.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from stream.analysis.affinity import same_device, value_affinities
from stream.analysis.resource_usage import CLASS_CONFLICT, Conflict, ResourceUsage, nested_ops
from stream.analysis.storage import operand_sizes, result_sizes, tied_source
from stream.ir.attributes import AffinityAttr, Attribute
from stream.ir.core import Block, Module, Op, Region, Value
from stream.ir.diagnostics import DiagnosticError
from stream.ir.rule_table import OpSet
from stream.ir.types import FunctionType, Lifetime, ResourceType
from stream.ir.walk import Function
from stream.passes.block_builder import STRUCTURED, BlockBuilder, check_straight_line, remap_op
from stream.passes.elide_async_copies import elide_block
from stream.passes.materialize_copy_on_write import is_unscheduled_async
from stream.passes.pass_manager import register_pass

__all__ = ["refine_usage"]

MAX_ROUNDS = 8
UNKNOWN = ResourceType(Lifetime.UNKNOWN)
_TENSOR_OPS_ALLOWED = OpSet(
    "_TENSOR_OPS_ALLOWED",
    "The tensor-level ops refine-usage accepts (the ABI boundary); any other stream.tensor op is refused.",
    {"stream.tensor.import", "stream.tensor.export"},
)
_TRANSFERS = OpSet(
    "_TRANSFERS",
    "The ops refine-usage elides when source and target lifetimes agree.",
    {"stream.async.transfer"},
)


@register_pass("refine-usage")
def refine_usage(module: Module) -> Module:
    """Assign a lifetime to every resource from its usage; resolve conflicts with transfers."""
    ops = []
    for top in module.ops:
        ops.append(_refine(Function(top)) if is_unscheduled_async(top) else top)
    return module.replace(ops=tuple(ops))


def _refine(func: Function) -> Op:
    check_straight_line(func, "refine-usage", STRUCTURED)
    for op in nested_ops(func.body):
        if op.name.startswith("stream.tensor.") and op.name not in _TENSOR_OPS_ALLOWED:
            raise DiagnosticError.at(op.location, f"refine-usage: '{op.name}' must be lowered by encode-tensors first")
    block = func.body
    for _ in range(MAX_ROUNDS):
        usage = _analyse(func, block)
        conflicts = usage.conflicts(block)
        if not conflicts:
            refined = Function(_Retyper(func, usage).run(block))
            # Transfers within one device whose lifetimes now agree are clones; drop those nobody
            # can observe, under elide-async-copies' rule (IREE reruns ElideAsyncCopies here).
            if not any(_is_clone(op) for op in refined.body.ops):  # (clones in scf regions stay)
                return refined.op
            return refined.with_body(elide_block(refined.body, frozenset(_TRANSFERS)).ops).op
        block = _resolve(block, conflicts)
    raise DiagnosticError.at(func.op.location, f"refine-usage: lifetimes of @{func.name} still conflict after {MAX_ROUNDS} rounds of transfers")


def _is_clone(op: Op) -> bool:
    """A transfer that copies within one device and one lifetime."""
    if op.name != "stream.async.transfer" or op.operands[0].type != op.results[0].type:
        return False
    source, target = op.properties.get("source_affinity"), op.properties.get("target_affinity")
    return source is None or target is None or same_device(source, target)  # type: ignore[arg-type]


def _analyse(func: Function, block: Block) -> ResourceUsage:
    try:
        return ResourceUsage.of(block)
    except ValueError as e:
        if str(e) != CLASS_CONFLICT:
            raise
        raise DiagnosticError.at(func.op.location, f"refine-usage: values of @{func.name} that share storage are declared with different lifetimes") from None


def _resolve(block: Block, conflicts: list[Conflict]) -> Block:
    """Insert a transfer before every conflicting use. A result tied to such an operand is a
    version of the transfer's storage, so its declared lifetime is reset to `*` as well."""
    by_op: dict[Op, list[Conflict]] = {}
    for c in conflicts:
        by_op.setdefault(c.op, []).append(c)
    devices = value_affinities(block)
    b = BlockBuilder()
    _resolve_ops(b, block.ops, by_op, devices)
    return b.block(block.arguments)


def _resolve_ops(b: BlockBuilder, ops: tuple[Op, ...], by_op: dict[Op, list[Conflict]], devices: dict[Value, AffinityAttr]) -> None:
    for old in ops:
        if old.dialect == "scf" and old.regions:
            b.structured(old, lambda child, inner: _resolve_ops(child, inner, by_op, devices))
            continue
        op = remap_op(old, b.mapping)
        found = by_op.get(old)
        if found is None:
            b.emit(op)
            continue
        sizes = operand_sizes(op)
        operands = list(op.operands)
        reset = {c.index for c in found}
        results = list(op.results)
        for i, r in enumerate(op.results):
            if tied_source(op, i) in reset and isinstance(r.type, ResourceType) and r.type != UNKNOWN:
                results[i] = Value(UNKNOWN, r.name_hint)
                b.bind(r, results[i])
        op = op.replace(results=tuple(results))
        for c in found:
            value = operands[c.index]
            size = sizes.get(c.index)
            if size is None:
                raise DiagnosticError.at(op.location, f"refine-usage: no size known for operand #{c.index} of '{op.name}'")
            device = devices.get(value) or op.properties.get("affinity")
            transfer = b.create(
                "stream.async.transfer",
                {"source": value, "source_size": size, "result_size": size},
                {"result": UNKNOWN},
                {"execution_affinity": device, "source_affinity": device, "target_affinity": device},
                location=op.location,
            )
            operands[c.index] = transfer.results[0]
        b.emit(op.replace(operands=tuple(operands)))


@dataclass(slots=True)
class _Retyper:
    func: Function
    usage: ResourceUsage
    b: BlockBuilder = field(default_factory=BlockBuilder)

    def retyped(self, v: Value) -> Value:
        """A value of the class's lifetime standing for `v` (`v` itself when it has it)."""
        if not isinstance(v.type, ResourceType):
            return v
        lifetime = self.usage.lifetime(v)
        if v.type.lifetime is lifetime:
            return v
        return Value(ResourceType(lifetime), v.name_hint)

    def run(self, block: Block) -> Op:
        arguments = []
        for arg in block.arguments:
            new = self.retyped(arg)
            self.b.bind(arg, new)
            arguments.append(new)
        returned = self._ops(block.ops)
        ftype = self.func.type
        inputs = tuple(a.type for a in arguments)
        outputs = tuple(v.type for v in returned) if returned is not None else ftype.results
        new_func = self.func.with_body(self.b.block(tuple(arguments)).ops, tuple(arguments), FunctionType(inputs, outputs))
        return new_func.op

    def _ops(self, ops: tuple[Op, ...]) -> tuple[Value, ...] | None:
        """Retype `ops` into `self.b`; the operands of the function's return, if among them."""
        returned: tuple[Value, ...] | None = None
        for op in ops:
            if op.name == "stream.async.cast":
                self._cast(op)
                continue
            if op.dialect == "scf" and op.regions:
                self._structured(op)
                continue
            new_op = remap_op(op, self.b.mapping)
            results = tuple(self.retyped(r) for r in op.results)
            if any(a is not b for a, b in zip(results, op.results)):
                new_op = new_op.replace(results=results)
                for old, new in zip(op.results, results):
                    self.b.bind(old, new)
            self.b.emit(new_op)
            if new_op.name in ("func.return", "util.return"):
                returned = new_op.operands
        return returned

    def _structured(self, op: Op) -> None:
        """An `scf` op with its region arguments and results retyped (one class each with
        what flows in and out: `carried_pairs`) and its blocks retyped in place."""
        parent = self.b
        regions = []
        for region in op.regions:
            blocks = []
            for block in region.blocks:
                arguments = tuple(self.retyped(a) for a in block.arguments)
                for a, n in zip(block.arguments, arguments):
                    parent.bind(a, n)
                self.b = parent.nested()
                try:
                    self._ops(block.ops)
                    blocks.append(self.b.region_block(arguments))
                finally:
                    self.b = parent
            regions.append(Region(tuple(blocks)))
        results = tuple(self.retyped(r) for r in op.results)
        for old, new in zip(op.results, results):
            parent.bind(old, new)
        operands = tuple(parent.lookup(v) for v in op.operands)
        parent.emit(op.replace(operands=operands, results=results, regions=tuple(regions)))

    def _cast(self, op: Op) -> None:
        source = self.b.lookup(op.operands[0])
        lifetime = self.usage.lifetime(op.results[0])
        assert isinstance(source.type, ResourceType)
        if source.type.lifetime is lifetime:
            self.b.bind(op.results[0], source)
            return
        size = self.b.lookup(op.operands[1])
        device: Attribute | None = op.properties.get("affinity")
        transfer = self.b.create(
            "stream.async.transfer",
            {"source": source, "source_size": size, "result_size": self.b.lookup(result_sizes(op).get(0, op.operands[1]))},
            {"result": ResourceType(lifetime)},
            {"execution_affinity": device, "source_affinity": device, "target_affinity": device},
            location=op.location,
        )
        if op.results[0].name_hint is not None:
            transfer.results[0].name_hint = op.results[0].name_hint
        self.b.bind(op.results[0], transfer.results[0])
