"""Affinity: the device each op runs on and the device each value lives on.

**Input level** (`InputAffinity.of`). Placement is written by the user as the discardable
`stream.affinity` attribute. The rules, in order (each op and value gets exactly one device):

1. An op's own `stream.affinity` always wins.
2. `flow.tensor.transfer` runs where its operand lives; its result lives on its target.
3. Compute ops (`flow.dispatch`) run on the function's `stream.affinity`, else the module's
   `stream.affinity.default`, else `@dev0` (the *fallback*).
4. Data-access ops (`flow.tensor.clone/slice/load` and `flow.tensor.update/store`) run where the
   tensor they read (clone, slice, load) or write (the target of update, store) lives. They only
   move or touch data, so they never cause a transfer of that tensor themselves.
5. Values that can be made anywhere -- tensor function arguments (an `stream.affinity` or
   `iree.abi.affinity` argument attribute places them), splats, empties and dense constants --
   go to the function's `stream.affinity` when it has one, else to the single device all their
   consumers need, else to the fallback. A consumer needs the device it runs on; a transfer
   needs its target; a data-access op that follows the value (rule 4) passes on what its own
   results' consumers need; a `return` needs the result's `iree.abi.affinity`, if any. This
   places an unplaced splat on the device that uses it instead of making it on `@dev0` and
   transferring it (IREE's AffinityAnalysis does the same for cheap producers).

6. A tensor global lives on its own `stream.affinity` attribute, else the module's
   `stream.affinity.default`, else `@dev0` (`global_device`: one device for every function of
   the module, since the global's storage outlives each call). A `util.global.load` of it
   makes a value that lives there; a `util.global.store` of it is a consumer needing that
   device (for rule 5), and convert-to-stream transfers the stored value there.

7. A tensor an `scf.for` carries (its iter_arg and result) lives where its initial value
   lives; an `scf.if` result where the `then` branch's yielded value lives (the fallback when
   that value is not placed by rules 1-4). A value yielded from another device is transferred
   back by convert-to-stream, and the loop or branch counts as a consumer needing that device
   for rule 5.

Every result lives where its op runs (transfers aside). A use on another device than where the
value lives needs an explicit transfer; convert-to-stream inserts it, and the verifier checks
the outcome (AFFINITY_MISMATCH).

**Stream levels** (`result_affinity`, `value_affinities`): every stream op carries its device in
its `affinity` property; a transfer's result lives on its `to(...)` affinity.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache

from stream.ir.attributes import (
    AffinityAttr,
    AnyAffinity,
    Attribute,
    DictAttr,
    OptimalAttr,
    PromiseAttr,
    StringAttr,
    SymbolRefAttr,
)
from stream.ir.core import Block, Module, Op, Value
from stream.ir.diagnostics import DiagnosticError
from stream.ir.rule_table import OpSet, Requirement, RuleTable
from stream.ir.spec import affinity_of, spec_of
from stream.ir.types import TensorType
from stream.ir.walk import Function

__all__ = [
    "DEFAULT_DEVICE",
    "Role",
    "InputAffinity",
    "normalize",
    "explicit_affinity",
    "module_default",
    "result_affinity",
    "value_affinities",
    "same_device",
    "global_device",
    "global_devices",
]

DEFAULT_DEVICE = AffinityAttr("dev0")


class Role(enum.Enum):
    """How an input-level op is placed (see the module docstring)."""

    COMPUTE = "compute"  # rule 3
    TRANSFER = "transfer"  # rule 2
    FOLLOW = "follow"  # rule 4: runs where the named operand lives
    CREATE = "create"  # rule 5


# op name -> (role, the operand group a FOLLOW op follows)
ROLES: RuleTable[tuple[Role, str | None]] = RuleTable(
    "ROLES",
    """How the input-level op is placed (`(Role, the operand group a FOLLOW op follows)`: a
    compute op, a transfer, an op that runs where an operand lives, an op creating a tensor).
    An op without an entry has no placement role (identity: it is left where it is).""",
    policy="identity",
    requires=Requirement(prefixes=("flow.",), ops=frozenset({"arith.constant"}), why="flow ops and tensor constants"),
    entries={
        "flow.dispatch": (Role.COMPUTE, None),
        "flow.tensor.transfer": (Role.TRANSFER, "operand"),
        "flow.tensor.splat": (Role.CREATE, None),
        "flow.tensor.empty": (Role.CREATE, None),
        "arith.constant": (Role.CREATE, None),  # only when it makes a tensor
        "flow.tensor.clone": (Role.FOLLOW, "operand"),
        "flow.tensor.slice": (Role.FOLLOW, "source"),
        "flow.tensor.load": (Role.FOLLOW, "source"),
        "flow.tensor.update": (Role.FOLLOW, "target"),
        "flow.tensor.store": (Role.FOLLOW, "target"),
    },
)

_ARG_AFFINITY_KEYS = ("stream.affinity", "iree.abi.affinity")


def normalize(attr: Attribute | None, op_or_location: object = None) -> AffinityAttr | None:
    """A placement as a `#hal.device.affinity` (promises name a device too); None when absent.
    `#hal.device.optimal` ("any of these") is not a placement streamproof can run with."""
    if attr is None:
        return None
    if isinstance(attr, AffinityAttr):
        return attr
    if isinstance(attr, PromiseAttr):
        return AffinityAttr(attr.device, attr.queues)
    where = getattr(op_or_location, "location", op_or_location)
    what = "#hal.device.optimal<...> (a choice among devices)" if isinstance(attr, OptimalAttr) else f"'{attr}'"
    if where is None:
        raise ValueError(f"{what} is not a device placement")
    raise DiagnosticError.at(where, f"{what} is not a device placement; use #hal.device.affinity<@device>")  # type: ignore[arg-type]


def explicit_affinity(op: Op) -> AffinityAttr | None:
    """The op's own `stream.affinity` attribute."""
    return normalize(op.attributes.get("stream.affinity"), op)


def module_default(module: Module) -> AffinityAttr:
    found = normalize(module.attributes.get("stream.affinity.default"), module)
    return found if found is not None else DEFAULT_DEVICE


def global_device(module: Module, decl: Op) -> AffinityAttr:
    """Where a tensor global lives (rule 6): its own `stream.affinity`, else the module's default."""
    return normalize(decl.attributes.get("stream.affinity"), decl) or module_default(module)


def global_devices(module: Module) -> dict[str, AffinityAttr]:
    """The device of every tensor global of the module, by name (rule 6)."""
    out: dict[str, AffinityAttr] = {}
    for op in module.ops:
        t = op.properties.get("type") if op.name == "util.global" else None
        name = op.properties.get("sym_name")
        if isinstance(getattr(t, "type", None), TensorType) and isinstance(name, StringAttr):
            out[name.value] = global_device(module, op)
    return out


def _global_of(op: Op) -> str | None:
    ref = op.properties.get("global")
    return ref.root if isinstance(ref, SymbolRefAttr) else None


def same_device(a: AnyAffinity | None, b: AnyAffinity | None) -> bool:
    """Whether two placements name the same device memory (queue masks do not matter)."""
    if a is None or b is None:
        return a is b
    return a.devices() == b.devices()


def _arg_affinity(func: Function, index: int) -> AffinityAttr | None:
    for key in _ARG_AFFINITY_KEYS:
        found = func.arg_attr(index, key)
        if found is not None:
            return normalize(found, func.op)
    return None


def result_attr_affinity(func: Function, index: int) -> AffinityAttr | None:
    """A result's requested device (`iree.abi.affinity` / `stream.affinity` result attribute)."""
    from stream.ir.attributes import ArrayAttr

    attrs = func.op.properties.get("res_attrs")
    if isinstance(attrs, ArrayAttr) and index < len(attrs):
        d = attrs.elements[index]
        if isinstance(d, DictAttr):
            for key in _ARG_AFFINITY_KEYS:
                found = d.get(key)
                if found is not None:
                    return normalize(found, func.op)
    return None


def _role(op: Op) -> tuple[Role, str | None] | None:
    found = ROLES.get(op.name)
    if found is None:
        return None
    if op.name == "arith.constant" and not any(isinstance(r.type, TensorType) for r in op.results):
        return None
    return found


@dataclass(slots=True)
class InputAffinity:
    """Placement of one input-level function (see the module docstring for the rules).

    `execution[op]` is where a placed op runs; `placement[v]` where a tensor value lives."""

    fallback: AffinityAttr
    execution: dict[Op, AffinityAttr] = field(default_factory=dict)
    placement: dict[Value, AffinityAttr] = field(default_factory=dict)

    @staticmethod
    def of(func: Function, module: Module) -> InputAffinity:
        func_aff = normalize(func.op.attributes.get("stream.affinity"), func.op)
        fallback = func_aff or module_default(module)
        result = InputAffinity(fallback)
        _Solver(func, func_aff, result, global_devices(module)).run()
        return result

    def device_of(self, value: Value) -> AffinityAttr:
        return self.placement.get(value, self.fallback)


@dataclass(slots=True)
class _Solver:
    func: Function
    func_aff: AffinityAttr | None
    out: InputAffinity
    globals: dict[str, AffinityAttr]  # where each tensor global lives (rule 6)
    pending: set[Value] = field(default_factory=set)  # rule-5 values waiting for their consumers
    follows: dict[Op, Value] = field(default_factory=dict)  # rule-4 ops waiting for their operand
    creators: set[Op] = field(default_factory=set)

    def run(self) -> None:
        body = self.func.body
        self._forward(body)
        demand = self._demand(body)
        for arg in self.func.arguments:
            if arg in self.pending:
                self.out.placement[arg] = self._choose(demand.get(arg, {}))
        for op in _ops(body):
            if op in self.creators:
                self._place(op, self._choose(_merge(demand.get(r, {}) for r in op.results)))
            elif op in self.follows:
                self._place(op, self.out.placement[self.follows[op]])
            elif op.name == "flow.tensor.transfer" and op not in self.out.execution:
                self.out.execution[op] = self.out.placement[op.operands[0]]

    def _place(self, op: Op, aff: AffinityAttr) -> None:
        self.out.execution[op] = aff
        for r in op.results:
            if isinstance(r.type, TensorType):
                self.out.placement[r] = aff

    def _choose(self, devices: Mapping[tuple[str, ...], AffinityAttr]) -> AffinityAttr:
        if len(devices) == 1:
            return next(iter(devices.values()))
        return self.out.fallback

    def _forward(self, body: Block) -> None:
        for i, arg in enumerate(self.func.arguments):
            if isinstance(arg.type, TensorType):
                aff = _arg_affinity(self.func, i) or self.func_aff
                if aff is None:
                    self.pending.add(arg)
                else:
                    self.out.placement[arg] = aff
        self._forward_block(body)

    def _forward_block(self, block: Block) -> None:
        for op in block.ops:
            if op.name in _CARRIERS:
                self._carry(op)
                continue
            if op.name in ("util.global.load", "util.global.store"):
                self._global(op)
                continue
            role = _role(op)
            if role is None:
                continue
            kind, followed = role
            own = explicit_affinity(op)
            if kind is Role.TRANSFER:
                source = op.operands[0]
                if source in self.out.placement:
                    self.out.execution[op] = self.out.placement[source]
                target = normalize(op.properties.get("target"), op)
                assert target is not None
                self.out.placement[op.results[0]] = target
            elif own is not None:
                self._place(op, own)
            elif kind is Role.COMPUTE:
                self._place(op, self.out.fallback)
            elif kind is Role.CREATE:
                if self.func_aff is not None:
                    self._place(op, self.func_aff)
                else:
                    self.creators.add(op)
                    self.pending.update(op.results)
            else:
                spec = spec_of(op)
                assert spec is not None and followed is not None
                value = spec.operand_group(op, followed)[0]
                if value in self.out.placement:
                    self._place(op, self.out.placement[value])
                else:
                    self.follows[op] = value
                    self.pending.update(r for r in op.results if isinstance(r.type, TensorType))

    def _global(self, op: Op) -> None:
        """Rule 6: a load of a tensor global runs where the global lives and makes a value that
        lives there; a store of one runs there (a consumer needing that device)."""
        device = self.globals.get(_global_of(op) or "")
        if device is None:
            return  # not a tensor global: no placement
        if op.name == "util.global.load":
            self._place(op, device)
        else:
            self.out.execution[op] = device

    def _carry(self, op: Op) -> None:
        """Rule 7: a tensor an `scf.for` carries lives where its initial value lives (the
        fallback while that is not placed yet); an `scf.if` result where its `then` branch's
        value lives (likewise). A yield on another device transfers back."""
        if op.name == "scf.for":
            body = op.regions[0].blocks[0]
            for init, arg, result in zip(op.operands[3:], body.arguments[1:], op.results):
                if isinstance(arg.type, TensorType):
                    aff = self.out.placement.get(init, self.out.fallback)
                    self.out.placement[arg] = self.out.placement[result] = aff
            self._forward_block(body)
            return
        for region in op.regions:
            for block in region.blocks:
                self._forward_block(block)
        then = op.regions[0].blocks[0].ops[-1]
        for yielded, result in zip(then.operands, op.results):
            if isinstance(result.type, TensorType):
                self.out.placement[result] = self.out.placement.get(yielded, self.out.fallback)

    def _demand(self, body: Block) -> dict[Value, dict[tuple[str, ...], AffinityAttr]]:
        """For every pending value, the devices its consumers need (computed backwards, so that a
        follower's own needs are known before the value it follows)."""
        ops = _ops(body)
        uses: dict[Value, list[Op]] = {}
        for op in ops:
            for v in op.operands:
                uses.setdefault(v, []).append(op)
        carried = _carried_values(ops)
        demand: dict[Value, dict[tuple[str, ...], AffinityAttr]] = {}

        def needs(v: Value) -> dict[tuple[str, ...], AffinityAttr]:
            out: dict[tuple[str, ...], AffinityAttr] = {}
            for user in uses.get(v, ()):
                if self.follows.get(user) is v:
                    for r in user.results:
                        out.update({k: a for k, a in demand.get(r, {}).items() if k not in out})
                elif user.name == "flow.tensor.transfer":
                    target = self.out.placement[user.results[0]]
                    out.setdefault(target.devices(), target)
                elif user in self.out.execution:
                    aff = self.out.execution[user]
                    out.setdefault(aff.devices(), aff)
                elif user.name in _CARRIERS or user.name == "scf.yield":
                    for index, operand in enumerate(user.operands):
                        carried_to = carried.get((user, index))
                        placed = self.out.placement.get(carried_to) if carried_to is not None and operand is v else None
                        if placed is not None:
                            out.setdefault(placed.devices(), placed)
                elif user.name in ("func.return", "util.return"):
                    for index, operand in enumerate(user.operands):
                        if operand is v:
                            wanted = result_attr_affinity(self.func, index)
                            if wanted is not None:
                                out.setdefault(wanted.devices(), wanted)
            return out

        for op in reversed(ops):
            for r in op.results:
                if r in self.pending:
                    demand[r] = needs(r)
        for arg in self.func.arguments:
            if arg in self.pending:
                demand[arg] = needs(arg)
        return demand


# The structured control flow the input level carries tensors through (rule 7).
_CARRIERS = OpSet("_CARRIERS", "The structured control flow ops that carry tensors (rule 7).", {"scf.for", "scf.if"})


def _ops(block: Block) -> list[Op]:
    """The ops of `block` and of the regions nested in it, in program order (an op before the
    ops of its regions)."""
    out: list[Op] = []
    for op in block.ops:
        out.append(op)
        for region in op.regions:
            for nested in region.blocks:
                out.extend(_ops(nested))
    return out


def _carried_values(ops: list[Op]) -> dict[tuple[Op, int], Value]:
    """(an `scf` op or `scf.yield`, operand index) -> the value that operand becomes, over `ops`
    (`_ops` of a block): an `scf.for` initial value its iter_arg, a yielded value its parent's
    result."""
    out: dict[tuple[Op, int], Value] = {}
    for op in ops:
        if op.name == "scf.for":
            body = op.regions[0].blocks[0]
            for i, arg in enumerate(body.arguments[1:]):
                out[(op, 3 + i)] = arg
        if op.name in _CARRIERS:
            for region in op.regions:
                for nested in region.blocks:
                    if nested.ops and nested.ops[-1].name == "scf.yield":
                        for i, r in enumerate(op.results):
                            out[(nested.ops[-1], i)] = r
    return out


def _merge(maps: object) -> dict[tuple[str, ...], AffinityAttr]:
    out: dict[tuple[str, ...], AffinityAttr] = {}
    for m in maps:  # type: ignore[attr-defined]
        for k, a in m.items():
            out.setdefault(k, a)
    return out


# -- stream levels ---------------------------------------------------------------------------------
def result_affinity(op: Op) -> AffinityAttr | None:
    """Where the resource results of a stream op live: the attribute its spec declares
    (`OpSpec.result_affinity`, e.g. a transfer's `target_affinity`), else its `affinity`."""
    key = _result_affinity_key(op.name)
    found = (op.properties.get(key) if key is not None else None) or affinity_of(op)
    return found if isinstance(found, AffinityAttr) else normalize(found) if isinstance(found, PromiseAttr) else None


@cache
def _result_affinity_key(name: str) -> str | None:
    spec = spec_of(name)
    return spec.result_affinity if spec is not None else None


def value_affinities(block: Block) -> dict[Value, AffinityAttr]:
    """The device of every resource value defined by an op of `block` that says where it lives
    (block arguments and values of ops without an affinity are absent)."""
    out: dict[Value, AffinityAttr] = {}
    for op in block.ops:
        aff = result_affinity(op)
        if aff is None:
            continue
        for r in op.results:
            out[r] = aff
    return out
