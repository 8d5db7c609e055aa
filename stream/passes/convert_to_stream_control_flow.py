"""convert-to-stream's structured control flow: `scf.for` and `scf.if` carrying tensors.

A loop or branch carrying a tensor carries its resource instead; the carried tensor must be
statically shaped (its byte size is then the same in every iteration and on every path, so it is
not carried). A loop-carried tensor lives where its initial value lives, a branch result where
the `then` branch's value lives; a yielded value elsewhere is transferred there. The regions'
blocks are converted like the function's (`ConverterState._convert`), with sizes, transfers and
forwarded global stores made inside not reused outside. Values whose storage an `scf` op may
share (`shared_with_scf`) are copied before an op writes them in place (`ConverterState.writable`).
"""

from __future__ import annotations

from collections.abc import Callable

from stream.ir.attributes import SymbolRefAttr
from stream.ir.core import Block, Op, Region, Value
from stream.ir.diagnostics import DiagnosticError
from stream.ir.rule_table import Requirement, RuleTable
from stream.ir.spec import view
from stream.ir.types import TensorType
from stream.ir.walk import used_values
from stream.passes.convert_to_stream_tensors import tied_list
from stream.passes.convert_to_stream_values import UNKNOWN, ConverterState, Tensor

__all__ = ["StructuredControlFlow", "shared_with_scf"]


class StructuredControlFlow(ConverterState):
    """The rules of `scf.for` and `scf.if`."""

    __slots__ = ()

    def _region(self, block: Block, arguments: tuple[Value, ...], carried: list[Tensor | None], yielded: list[Value]) -> Block:
        """Convert a nested block into a new block with `arguments`, yielding `yielded` (its
        terminator's operands as new values). `carried[i]` is the tensor the parent's i-th
        carried value becomes; each yielded tensor is moved to that tensor's device. Sizes and
        transfers made inside are not reused outside (they do not dominate what follows)."""
        parent, sizes, moved, local, stored = self.b, dict(self.sizes), dict(self.moved), self.local, dict(self.stored)
        self.b = parent.nested()
        self.local = set()
        try:
            self._convert(block.ops[:-1])
            terminator = block.ops[-1]
            for v, c in zip(terminator.operands, carried):
                yielded.append(self.use(v, c.device, terminator).resource if c is not None else self.b.lookup(v))
            self.b.create("scf.yield", {"results": tuple(yielded)}, location=terminator.location)
            return self.b.region_block(arguments)
        finally:
            self.b, self.sizes, self.moved, self.local, self.stored = parent, sizes, moved, local, stored

    def _for(self, op: Op) -> None:
        """`scf.for` carrying tensors carries their resources; the body is converted in place.
        A carried tensor lives where its initial value lives (a yielded value elsewhere is
        transferred back there)."""
        lb, ub, step, *inits = op.operands
        body = op.regions[0].block
        iv, *args = body.arguments
        new_inits: list[Value] = []
        new_args: list[Value] = [Value(iv.type, iv.name_hint)]
        carried: list[Tensor | None] = []
        for init, arg in zip(inits, args):
            if isinstance(init.type, TensorType):
                type_ = _carried_tensor(op, init)
                t = self.use(init, self.affinity.device_of(arg), op)
                new_inits.append(t.resource)
                new_arg = Value(UNKNOWN, arg.name_hint)
                carried.append(self.define(arg, new_arg, t.size, type_, (), t.device))
            else:
                new_inits.append(self.b.lookup(init))
                new_arg = Value(arg.type, arg.name_hint)
                self.b.bind(arg, new_arg)
                carried.append(None)
            new_args.append(new_arg)
        self.b.bind(iv, new_args[0])
        for name in _stored_inside(op):  # the body sees the previous iteration's store, the code after it the last one
            self.stored.pop(name, None)
        block = self._region(body, tuple(new_args), carried, [])
        new = self.b.create(
            "scf.for",
            {"lowerBound": self.b.lookup(lb), "upperBound": self.b.lookup(ub), "step": self.b.lookup(step), "initArgs": tuple(new_inits)},
            {"results": tuple(UNKNOWN if c is not None else r.type for r, c in zip(op.results, carried))},
            {"unsignedCmp": op.properties.get("unsignedCmp")},
            discardable=dict(op.attributes),
            location=op.location,
            regions=(Region((block,)),),
        )
        self._bind_results(op, new, carried)

    def _if(self, op: Op) -> None:
        """`scf.if` yielding tensors yields their resources. A result tensor lives where the
        `then` branch's value lives (the `else` branch's is transferred there when needed)."""
        then_block, else_block = (r.blocks[0] if r.blocks else None for r in op.regions)
        assert then_block is not None
        carried: list[Tensor | None] = []
        for r in op.results:
            if isinstance(r.type, TensorType):
                type_ = _carried_tensor(op, r)
                device = self.affinity.device_of(r)
                carried.append(Tensor(Value(UNKNOWN), self.sizeof(type_, (), device), type_, (), device))
            else:
                carried.append(None)
        regions = [Region((self._region(then_block, (), carried, []),))]
        if else_block is not None:
            regions.append(Region((self._region(else_block, (), carried, []),)))
        else:
            regions.append(Region())
        for name in _stored_inside(op):  # after the branch: whichever path ran stored it
            self.stored.pop(name, None)
        new = self.b.create(
            "scf.if",
            {"condition": self.b.lookup(op.operands[0])},
            {"results": tuple(UNKNOWN if c is not None else r.type for r, c in zip(op.results, carried))},
            discardable=dict(op.attributes),
            location=op.location,
            regions=tuple(regions),
        )
        self._bind_results(op, new, carried)

    def _bind_results(self, op: Op, new: Op, carried: list[Tensor | None]) -> None:
        for old, result, c in zip(op.results, new.results, carried):
            if old.name_hint is not None:
                result.name_hint = old.name_hint
            if c is not None:
                self.define(old, result, c.size, c.type, c.dims, c.device)
            else:
                self.b.bind(old, result)


def shared_with_scf(func_op: Op) -> set[Value]:
    """Values whose storage an `scf` op of the function may share: the values it takes as
    operands, uses in its regions from outside, yields or returns, and every value tied to one
    of those (a result written in place into an operand shares its storage)."""
    if not any(op.dialect == "scf" for op in func_op.walk()):
        return set()
    parent: dict[Value, Value] = {}

    def find(v: Value) -> Value:
        while parent.get(v, v) is not v:
            v = parent[v]
        return v

    touched: set[Value] = set()
    for op in func_op.walk():
        if op.dialect == "scf" and op.regions:
            touched.update(used_values(op))
            touched.update(op.results)
        if op.name == "scf.yield":
            touched.update(op.operands)
        for result, operand in _INPUT_TIES.resolve(op.name)(op):
            parent[find(result)] = find(operand)
    roots = {find(v) for v in touched}
    values = {v for op in func_op.walk() for v in (*op.operands, *op.results)}
    return {v for v in values if find(v) in roots}


def _stored_inside(op: Op) -> set[str]:
    """The globals a `util.global.store` in `op`'s regions stores."""
    out: set[str] = set()
    for inner in op.walk():
        ref = inner.properties.get("global") if inner.name == "util.global.store" and inner is not op else None
        if isinstance(ref, SymbolRefAttr):
            out.add(ref.root)
    return out


def _dispatch_ties(op: Op) -> list[tuple[Value, Value]]:
    arguments = view(op).arguments
    return [(r, arguments[t]) for r, t in zip(op.results, tied_list(op)) if 0 <= t < len(arguments)]


_INPUT_TIES: RuleTable[Callable[[Op], list[tuple[Value, Value]]]] = RuleTable(
    "_INPUT_TIES",
    """The (result, operand) pairs of the input-level op whose result is written in place into
    the operand (`fn(op)`); an op without one writes nothing in place (identity: no pairs).""",
    policy="identity", default=lambda op: [],
    requires=Requirement(ops=frozenset({"flow.dispatch", "flow.tensor.update", "flow.tensor.store"}), why="the flow ops with tied results"),
    entries={
        "flow.dispatch": _dispatch_ties,
        "flow.tensor.update": lambda op: [(op.results[0], view(op).target)],
        "flow.tensor.store": lambda op: [(op.results[0], view(op).target)],
    },
)


def _carried_tensor(op: Op, value: Value) -> TensorType:
    """The type of a tensor an `scf` op carries: statically shaped (its byte size is then the
    same in every iteration and on every path, so it is not carried)."""
    type_ = value.type
    assert isinstance(type_, TensorType)
    if not type_.is_static:
        raise DiagnosticError.at(op.location, f"convert-to-stream: '{op.name}' carries a dynamically shaped tensor ({type_}); only static shapes are carried through loops and branches")
    return type_
