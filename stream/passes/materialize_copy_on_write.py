"""materialize-copy-on-write: clone every operand an op would write in place when the write could
be seen elsewhere.

At the async level a tie (`fill`/`update`/`copy`/`store` into their target, a dispatch result
written as `-> %operand`) says "write the result into the operand's storage". That is only
invisible when nobody else can look at that storage. For each operand written in place, the pass
inserts `stream.async.clone` right before the op (on the op's device) and writes the clone
instead, unless both of these hold:

* the op is the only user of that version of the storage: no other op uses it, under any
  passthrough name (`stream.async.cast`), and the op does not also read it through another
  operand (a dispatch reading `%a` while writing `%a` in place would race with itself);
* the storage does not come from an immutable root (`stream.analysis.storage.Root`): a constant,
  an import without `consume` (caller storage lent read-only), or what a `util.global.load` gives
  (the global holds it for later calls; an update is stored into fresh storage). The root is followed through
  ties and casts, so a borrowed import written through a single tied user is cloned too: IREE's
  local check misses exactly that case (#16168, the `d_inplace` example writes `%cache`).

Resource-typed function arguments are caller storage the function may write (SPEC §3.3), so a
single in-place user of one is not cloned. Ops stay in order; elide-async-copies removes the
clones whose copy turns out to be unobservable.

Invariant established: every value written in place is used by exactly one op at exactly one
operand, and its storage is neither a constant, nor borrowed, nor a global's; no in-place write is
observable through any other SSA name, by the caller or by a later call.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from stream.analysis.last_use import LastUse
from stream.analysis.storage import Root, StorageInfo, is_tensor_tied_writer, tied_source, tied_writes
from stream.ir.attributes import UnitAttr
from stream.ir.core import Block, Module, Op, Value
from stream.ir.diagnostics import DiagnosticError
from stream.ir.types import Lifetime, ResourceType
from stream.ir.walk import BODY_OPS, Function
from stream.passes.block_builder import STRUCTURED, BlockBuilder, check_straight_line, remap_op
from stream.passes.pass_manager import register_pass

__all__ = ["materialize_copy_on_write", "needs_copy", "is_unscheduled_async"]


@register_pass("materialize-copy-on-write")
def materialize_copy_on_write(module: Module) -> Module:
    """Clone operands written in place whose storage is shared, constant or borrowed."""
    ops = []
    for top in module.ops:
        if is_unscheduled_async(top):
            ops.append(_Materializer(Function(top)).run())
        else:
            ops.append(top)
    return module.replace(ops=tuple(ops))


def is_unscheduled_async(top: Op) -> bool:
    """A function with a body holding async ops but no execution regions and no cmd ops: the
    input the copy passes and refine-usage work on (other functions pass through unchanged)."""
    if top.name not in BODY_OPS or not top.regions or not top.regions[0].blocks:
        return False
    inner = [op for op in top.walk() if op is not top]
    if any(op.name in ("stream.async.execute", "stream.async.concurrent") or op.name.startswith("stream.cmd.") for op in inner):
        return False
    return any(op.name.startswith("stream.async.") or op.name.startswith("stream.tensor.") for op in inner)


def reject_tensor_ties(func: Function, pass_name: str) -> None:
    for op in func.body.ops:
        if is_tensor_tied_writer(op):
            raise DiagnosticError.at(op.location, f"{pass_name}: '{op.name}' must be lowered by encode-tensors first")


def needs_copy(op: Op, index: int, last: LastUse, root: Root) -> str | None:
    """Why operand `index` of `op`, written in place, must be copied first (None when it need not)."""
    if root.immutable:
        return f"its storage is a {root.value}"
    for user, i in last.uses(op.operands[index]):
        if user is not op:
            return f"'{user.name}' also uses it"
        if i != index:
            return "the same op also reads it"
    return None


@dataclass(slots=True)
class _Materializer:
    func: Function
    b: BlockBuilder = field(init=False)
    roots: dict[Value, Root] = field(default_factory=dict)
    sizes: dict[Value, Value] = field(default_factory=dict)  # sizes seen in enclosing blocks

    def __post_init__(self) -> None:
        self.b = BlockBuilder(location=self.func.op.location)

    def run(self) -> Op:
        check_straight_line(self.func, "materialize-copy-on-write", STRUCTURED)
        reject_tensor_ties(self.func, "materialize-copy-on-write")
        block = self.func.body
        for arg in block.arguments:
            self.roots[arg] = _root_of_type(arg, Root.ARGUMENT)
        self._block(block.ops, block.arguments, nested=False)
        return self.func.with_body(self.b.block(block.arguments).ops).op

    def _block(self, ops: tuple[Op, ...], arguments: tuple[Value, ...], nested: bool) -> None:
        """Copy `ops` (a block), cloning what they write in place when it must be. In the block
        of an `scf` region, a value from outside the region or a region argument is always
        cloned before an in-place write: a loop body runs again on the same names and a branch
        does not know what follows the `scf` op, so the write could be seen elsewhere."""
        block = Block(arguments, ops)
        storage = StorageInfo.of(block)
        last = LastUse.of(block, storage)
        local = {r for op in ops for r in op.results}
        self.sizes.update(storage.sizes)
        for op in ops:
            if op.name in STRUCTURED and op.regions:
                self._structured(op)
                continue
            new = remap_op(op, self.b.mapping)
            writes = [i for i in tied_writes(op) if isinstance(op.operands[i].type, ResourceType)]
            if writes:
                operands = list(new.operands)
                for i in writes:
                    outside = nested and op.operands[i] not in local
                    if outside or needs_copy(op, i, last, self.roots.get(operands[i], Root.FRESH)) is not None:
                        size = storage.sizes.get(op.operands[i]) or self.sizes.get(op.operands[i])
                        if size is None:
                            raise DiagnosticError.at(op.location, f"materialize-copy-on-write: no size known for operand #{i} of '{op.name}'")
                        operands[i] = self._clone(op, operands[i], self.b.lookup(size))
                new = new.replace(operands=tuple(operands))
            self.b.emit(new)
            self._record_roots(new)

    def _structured(self, op: Op) -> None:
        """Copy an `scf` op. What it carries may be the storage of any value flowing in (an
        initial value, a yielded value): an immutable root among those is the root of the
        region argument or result, so that writing it in place later is cloned."""
        if op.name == "scf.for":
            body = op.regions[0].blocks[0]
            for init, arg in zip(op.operands[3:], body.arguments[1:]):
                self.roots[arg] = self.roots.get(self.b.lookup(init), Root.FRESH)
        new = self.b.structured(op, self._nested)
        sources: list[list[Value]] = [[] for _ in new.results]
        if new.name == "scf.for":
            for i, init in enumerate(new.operands[3:]):
                sources[i].append(init)
        for region in new.regions:
            for inner in region.blocks:
                if inner.ops and inner.ops[-1].name == "scf.yield":
                    for i, v in enumerate(inner.ops[-1].operands):
                        sources[i].append(v)
        for r, candidates in zip(new.results, sources):
            roots = [self.roots.get(v, Root.FRESH) for v in candidates]
            self.roots[r] = next((root for root in roots if root.immutable), Root.FRESH)

    def _nested(self, child: BlockBuilder, ops: tuple[Op, ...]) -> None:
        parent = self.b
        self.b = child
        try:
            self._block(ops, (), nested=True)
        finally:
            self.b = parent

    def _clone(self, op: Op, value: Value, size: Value) -> Value:
        clone = self.b.create(
            "stream.async.clone",
            {"source": value, "source_size": size, "result_size": size},
            {"result": value.type},
            {"affinity": op.properties.get("affinity")},
            location=op.location,
        )
        self.roots[clone.results[0]] = Root.FRESH
        return clone.results[0]

    def _record_roots(self, op: Op) -> None:
        for i, r in enumerate(op.results):
            if not isinstance(r.type, ResourceType):
                continue
            src = tied_source(op, i)
            if src is not None:
                self.roots[r] = self.roots.get(op.operands[src], Root.FRESH)
            elif op.name == "stream.tensor.import":
                self.roots[r] = Root.OWNED if isinstance(op.properties.get("consume"), UnitAttr) else Root.BORROWED
            elif op.name in ("stream.async.constant", "stream.tensor.constant"):
                self.roots[r] = Root.CONSTANT
            elif op.name == "util.global.load":
                self.roots[r] = _root_of_type(r, Root.GLOBAL)
            else:
                self.roots[r] = _root_of_type(r, Root.FRESH)


def _root_of_type(v: Value, default: Root) -> Root:
    if isinstance(v.type, ResourceType) and v.type.lifetime is Lifetime.CONSTANT:
        return Root.CONSTANT
    return default
