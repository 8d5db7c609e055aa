"""Walking, querying and rebuilding IR without mutation.

The IR keeps no use lists or parent pointers; the helpers here compute what a pass or an
analysis needs (functions of a module, the defining op of each value, users, constant values)
and rebuild a module with some ops replaced.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from stream.ir.attributes import ArrayAttr, Attribute, BoolAttr, DictAttr, IntegerAttr, StringAttr, TypeAttr
from stream.ir.core import Block, Module, Op, Region, Value
from stream.ir.rule_table import OpSet, Requirement
from stream.ir.types import FunctionType

__all__ = [
    "Function",
    "BODY_OPS",
    "functions",
    "bodies",
    "replace_op",
    "function",
    "replace_function",
    "defining_ops",
    "users",
    "constant_int",
    "walk_blocks",
    "defined_inside",
    "used_values",
    "map_scf_blocks",
]

FUNCTION_OPS = OpSet(
    "FUNCTION_OPS",
    "The function ops (`Function` views).",
    {"func.func", "util.func", "stream.async.func", "stream.cmd.func"}, requires=Requirement(traits=frozenset({"function"})),
)


# The ops whose body a pass rewrites: functions and `util.initializer`s (IREE's InitializerOp is a
# function op too: no name, no arguments, no results, run once when the module is loaded).
BODY_OPS = OpSet(
    "BODY_OPS",
    "The ops with a body the passes rewrite: functions and initializers (`bodies`).",
    {*FUNCTION_OPS, "util.initializer"},
)


@dataclass(frozen=True, slots=True)
class Function:
    """A view of a `func.func` / `util.func` op. `source` is the function a checked program was
    cut from (`with_body`: one control-flow path, or one loop iteration of it), None for a
    function as written: facts about the whole function (which fences it signals) come from it."""

    op: Op
    source: Op | None = field(default=None, compare=False)

    @property
    def whole(self) -> Function:
        """The function this one was cut from (itself when it was not)."""
        return self if self.source is None else Function(self.source)

    @property
    def name(self) -> str:
        sym = self.op.properties.get("sym_name")
        return sym.value if isinstance(sym, StringAttr) else "<anonymous>"

    @property
    def type(self) -> FunctionType:
        ft = self.op.properties.get("function_type")
        assert isinstance(ft, TypeAttr) and isinstance(ft.type, FunctionType)
        return ft.type

    @property
    def is_declaration(self) -> bool:
        return not self.op.regions or not self.op.regions[0].blocks

    @property
    def body(self) -> Block:
        """The entry block (functions are single-block at the levels streamproof reasons about)."""
        return self.op.regions[0].blocks[0]

    @property
    def blocks(self) -> tuple[Block, ...]:
        return self.op.regions[0].blocks if self.op.regions else ()

    @property
    def arguments(self) -> tuple[Value, ...]:
        return self.body.arguments

    def arg_attr(self, index: int, name: str) -> Attribute | None:
        attrs = self.op.properties.get("arg_attrs")
        if isinstance(attrs, ArrayAttr) and index < len(attrs):
            d = attrs.elements[index]
            if isinstance(d, DictAttr):
                return d.get(name)
        return None

    def attr(self, name: str) -> Attribute | None:
        return self.op.attr(name)

    def with_body(self, ops: tuple[Op, ...], arguments: tuple[Value, ...] | None = None, type_: FunctionType | None = None) -> Function:
        """A new function with another body (and optionally new arguments and type)."""
        args = self.arguments if arguments is None else arguments
        props = dict(self.op.properties)
        if type_ is not None:
            props["function_type"] = TypeAttr(type_)
        region = Region((Block(args, ops),))
        return Function(self.op.replace(regions=(region,), properties=props), source=self.source or self.op)


def functions(module: Module) -> list[Function]:
    """Functions with bodies, in module order."""
    return [Function(op) for op in module.ops if op.name in FUNCTION_OPS and op.regions and op.regions[0].blocks]


def bodies(module: Module) -> list[Function]:
    """Functions and initializers with bodies, in module order (a pass rewrites both; an
    initializer's view has no name and the type `() -> ()`)."""
    return [Function(op) for op in module.ops if op.name in BODY_OPS and op.regions and op.regions[0].blocks]


def replace_op(module: Module, old: Op, new: Op) -> Module:
    """A module with the top-level op `old` (by identity) replaced by `new`."""
    return module.replace(ops=tuple(new if op is old else op for op in module.ops))


def function(module: Module, name: str) -> Function | None:
    for f in functions(module):
        if f.name == name:
            return f
    return None


def replace_function(module: Module, new: Function) -> Module:
    """A module with the function of the same name replaced (the input module is untouched)."""
    ops = tuple(new.op if (op.name in FUNCTION_OPS and Function(op).name == new.name) else op for op in module.ops)
    return module.replace(ops=ops)


def walk_blocks(region: Region) -> Iterator[Block]:
    for block in region.blocks:
        yield block
        for op in block.ops:
            for nested in op.regions:
                yield from walk_blocks(nested)


def defining_ops(root: Op | Block | Region) -> dict[Value, Op]:
    """Map every result value under `root` to the op that defines it."""
    out: dict[Value, Op] = {}
    ops: Iterator[Op]
    if isinstance(root, Op):
        ops = root.walk()
    elif isinstance(root, Block):
        ops = (o for op in root.ops for o in op.walk())
    else:
        ops = (o for b in root.blocks for op in b.ops for o in op.walk())
    for op in ops:
        for r in op.results:
            out[r] = op
    return out


def users(block: Block) -> dict[Value, list[Op]]:
    """For each value, the ops in `block` that use it (a use in a nested region counts as a use
    by the top-level op of `block` that contains it)."""
    out: dict[Value, list[Op]] = {}
    for op in block.ops:
        for inner in op.walk():
            for v in inner.operands:
                lst = out.setdefault(v, [])
                if not lst or lst[-1] is not op:
                    lst.append(op)
    return out


def constant_int(value: Value, defs: dict[Value, Op]) -> int | None:
    """The integer a value holds when it comes from `arith.constant` (or simple arithmetic on
    constants), else None."""
    op = defs.get(value)
    if op is None:
        return None
    if op.name == "arith.constant":
        attr = op.properties.get("value")
        if isinstance(attr, IntegerAttr):
            return attr.value
        if isinstance(attr, BoolAttr):
            return int(attr.value)
        return None
    folds: dict[str, Callable[[int, int], int | None]] = {
        "arith.addi": lambda a, b: a + b,
        "arith.subi": lambda a, b: a - b,
        "arith.muli": lambda a, b: a * b,
        "arith.divui": lambda a, b: a // b if b else None,
        "arith.ceildivui": lambda a, b: -(-a // b) if b else None,
    }
    fold = folds.get(op.name)
    if fold is not None and len(op.operands) == 2:
        a = constant_int(op.operands[0], defs)
        b = constant_int(op.operands[1], defs)
        if a is not None and b is not None:
            return fold(a, b)
    return None


def defined_inside(op: Op) -> set[Value]:
    """Values defined inside `op`'s regions: block arguments and results of nested ops, at any
    depth."""
    out: set[Value] = set()
    for region in op.regions:
        for block in region.blocks:
            out.update(block.arguments)
            for inner in block.ops:
                for nested in inner.walk():
                    out.update(nested.results)
                    for r in nested.regions:
                        for b in r.blocks:
                            out.update(b.arguments)
    return out


def used_values(op: Op) -> Iterator[Value]:
    """Operands of `op` and of its nested ops that are defined outside `op`, in order of first
    use (for an op with regions that are not isolated, its operands and its captures)."""
    local = defined_inside(op) if op.regions else set()
    seen: set[Value] = set()
    for inner in op.walk():
        for v in inner.operands:
            if v not in local and v not in seen:
                seen.add(v)
                yield v


def map_scf_blocks(block: Block, fn: Callable[[Block], Block]) -> Block:
    """`block` with the blocks of every `scf` op's regions in it replaced by `fn(block)` (the
    passes that work on each block of structured control flow on its own, innermost first when
    `fn` recurses)."""
    ops = []
    for op in block.ops:
        if op.dialect == "scf" and op.regions:
            op = op.replace(regions=tuple(Region(tuple(fn(b) for b in r.blocks)) for r in op.regions))
        ops.append(op)
    return Block(block.arguments, tuple(ops))
