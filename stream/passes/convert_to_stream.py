"""convert-to-stream: input level (flow ops on tensors) -> tensor level (`stream.tensor.*`).

Every tensor value of the input becomes a pair (`!stream.resource<*>` value, byte size) with the
same contents, the size coming from `stream.tensor.sizeof` of the tensor type (encode-tensors
turns it into bytes). Op by op (rules in `_RULES`):

* `flow.dispatch` -> `stream.tensor.dispatch` (encodings = the tensor types; a tied result
  reuses the operand's size);
* `flow.tensor.transfer` -> `stream.async.transfer from(source) -> to(target)`;
* `flow.tensor.splat/empty/clone/slice/update` and `arith.constant dense<...>` tensors -> their
  `stream.tensor.*` forms;
* `flow.tensor.load` -> slice out the element, `stream.async.transfer` it to a `staging`
  resource, `stream.tensor.load` it on the host (a one-element tensor is transferred whole);
* `flow.tensor.store` -> `stream.tensor.fill` of the one element on the device;
* tensor globals (`util.global [mutable] @g : tensor<...>`) become resource globals, as IREE's
  UtilToStream conversion makes them: `!stream.resource<variable>` for a mutable global,
  `!stream.resource<constant>` for an immutable one. A `util.global.load` of one loads the
  resource and `stream.async.transfer`s it to a `*` resource the function owns; a
  `util.global.store` transfers the stored value (on the global's device) to a new resource of
  the global's lifetime and stores that. A `dense<...>` initial value becomes a
  `util.initializer` right after the global, which stores the constant the same way. So the
  global's storage is never written in place: a load copies it out, a store copies into fresh
  storage, and no other name aliases what the global holds. A load after a store of the same
  global in the function gets the stored tensor itself (as IREE's SimplifyGlobalAccesses
  forwards it), in the same block and in regions nested after the store; a region that stores
  the global ends that (a loop body's load sees the previous iteration's store, a load after an
  `scf` op the value of whichever path ran), and such a load reads the global again. (IREE also keeps the byte size in
  a `@g__size` global; tensor globals are statically shaped here, so every load recomputes it
  with `stream.tensor.sizeof` instead.) The global lives on its own `stream.affinity`, else
  the module's default device (`stream.analysis.affinity`, rule 6). A tensor global with a
  dynamic shape, an encoding, an element without a byte size or an initial value other than a
  `dense<...>` of its type is refused (exit 2). `util.initializer`s with tensors are converted
  like functions taking and returning nothing;
* the function becomes `util.func public` with IREE's synchronous ABI (docs/CONVENTIONS.md):
  tensor arguments are `!hal.buffer_view`s imported with `stream.tensor.import` (`consume` for
  `iree.abi.consume` / `iree.abi.output` arguments, borrowed otherwise) and cast to `*`; tensor
  results are cast to `external` and exported with `stream.tensor.export`.

Placement comes from the Affinity analysis (`stream.analysis.affinity`, rules in its docstring):
every stream op gets its device in `affinity`, and wherever an op runs on another device than
an operand lives, an explicit `stream.async.transfer` moves the operand (one per value and
device, reused by later consumers). `stream.affinity` attributes are consumed and dropped.

Invariant established: no tensor-typed value remains outside executables (nor in a global);
each function's results, and what it leaves in each global, compute the same bytes as the
input's; every resource is used only on the device it lives on, except through a transfer; a
resource global's storage is only ever read (by the transfer at a load) and is never returned,
exported or written in place.

Functions without tensors are left as they are. Multi-block functions, `scf` ops other than
`scf.for` / `scf.if`, and calls are refused with a diagnostic. A dynamically shaped argument gets its dims from the first op that
spells them (`tensor<?x4xf32>{%n}`); one that no op uses is not imported (returned unchanged, its
buffer view goes back to the caller as it came).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from stream.analysis.affinity import InputAffinity, global_device, normalize, result_attr_affinity, same_device
from stream.dialect.directives import UNUSED_ENCODING
from stream.ir.attributes import (
    AffinityAttr,
    ArrayAttr,
    Attribute,
    DenseAttr,
    DictAttr,
    StringAttr,
    SymbolRefAttr,
    TypeAttr,
    UnitAttr,
)
from stream.ir.core import Block, Module, Op, Region, Value, freeze
from stream.ir.diagnostics import DiagnosticError
from stream.ir.rule_table import Requirement, RuleTable
from stream.ir.spec import canonical_ties, spec_of, view
from stream.ir.types import INDEX, FunctionType, Lifetime, OpaqueType, ResourceType, TensorType, element_byte_width
from stream.ir.walk import BODY_OPS, Function, used_values
from stream.passes.block_builder import STRUCTURED, BlockBuilder, check_straight_line
from stream.passes.pass_manager import register_pass

__all__ = ["convert_to_stream", "BUFFER_VIEW"]

BUFFER_VIEW = OpaqueType("!hal.buffer_view")
UNKNOWN = ResourceType(Lifetime.UNKNOWN)
EXTERNAL = ResourceType(Lifetime.EXTERNAL)
STAGING = ResourceType(Lifetime.STAGING)

# Argument attributes the conversion interprets (and drops).
_CONSUME_KEYS = ("iree.abi.consume", "iree.abi.output")
_ABI_KEYS = frozenset({*_CONSUME_KEYS, "iree.abi.affinity", "stream.affinity"})


def flow_tensor_operands(spec: Any) -> bool:
    """flow ops with a tensor operand group and its dims group (`source` and `source_dims`)"""
    names = {o.name for o in getattr(spec, "operands", ())}
    return spec.name.startswith("flow.") and any(n + "_dims" in names for n in names)


_OPERAND_DIMS: RuleTable[tuple[tuple[str, str], ...]] = RuleTable(
    "_OPERAND_DIMS",
    """Pairs (tensor operand group, the group holding their dynamic dims) of the op; without an
    entry the op has no tensor operand whose dims the conversion reads (identity: none).""",
    policy="identity", default=(),
    requires=Requirement(where=flow_tensor_operands),
    entries={
        "flow.dispatch": (("arguments", "argument_dims"),),
        "flow.tensor.transfer": (("operand", "operand_dims"),),
        "flow.tensor.clone": (("operand", "operand_dims"),),
        "flow.tensor.slice": (("source", "source_dims"),),
        "flow.tensor.update": (("target", "target_dims"), ("update", "update_dims")),
        "flow.tensor.load": (("source", "source_dims"),),
        "flow.tensor.store": (("target", "target_dims"),),
    },
)


@dataclass(frozen=True, slots=True)
class Tensor:
    """A tensor value of the input as the tensor level holds it."""

    resource: Value
    size: Value
    type: TensorType
    dims: tuple[Value, ...]
    device: AffinityAttr


@dataclass(frozen=True, slots=True)
class TensorGlobal:
    """A tensor global of the input and the resource global it becomes."""

    name: str
    type: TensorType
    device: AffinityAttr
    lifetime: Lifetime  # VARIABLE (mutable) or CONSTANT (immutable)
    decl: Op

    @property
    def resource_type(self) -> ResourceType:
        return ResourceType(self.lifetime)


@register_pass("convert-to-stream", produces="tensor")
def convert_to_stream(module: Module) -> Module:
    """Lower flow ops on tensors to stream.tensor ops on resources, placing every op on a device."""
    tensor_globals = _tensor_globals(module)
    ops = []
    for top in module.ops:
        g = tensor_globals.get(_symbol(top)) if top.name == "util.global" else None
        if g is not None:
            ops.append(_lowered_global(g))
            if g.decl.properties.get("initial_value") is not None:
                ops.append(_FunctionConverter(Function(_initializer_of(g)), module, tensor_globals).run())
        elif top.name in BODY_OPS and top.regions and top.regions[0].blocks and _has_tensors(top):
            ops.append(_FunctionConverter(Function(top), module, tensor_globals).run())
        else:
            ops.append(top)
    return module.replace(ops=tuple(ops))


def _symbol(op: Op) -> str:
    sym = op.properties.get("sym_name")
    return sym.value if isinstance(sym, StringAttr) else ""


def _tensor_globals(module: Module) -> dict[str, TensorGlobal]:
    """The module's tensor globals; a kind convert-to-stream cannot store is refused here."""
    out: dict[str, TensorGlobal] = {}
    for op in module.ops:
        t = op.properties.get("type") if op.name == "util.global" else None
        type_ = t.type if isinstance(t, TypeAttr) else None
        if not isinstance(type_, TensorType):
            continue
        name = _symbol(op)
        what = f"convert-to-stream: the tensor global @{name} ({type_})"
        if not type_.is_static:
            raise DiagnosticError.at(op.location, f"{what} has a dynamic shape; only statically shaped tensor globals are supported")
        if type_.encoding is not None:
            raise DiagnosticError.at(op.location, f"{what} has an encoding; only tensor globals without one are supported")
        if element_byte_width(type_.element) is None:
            raise DiagnosticError.at(op.location, f"{what} has elements without a byte size ({type_.element}): a resource cannot store it")
        initial = op.properties.get("initial_value")
        if initial is not None and not (isinstance(initial, DenseAttr) and initial.type == type_):
            raise DiagnosticError.at(op.location, f"{what} has the initial value {initial}; only a dense<...> : {type_} initial value "
                                     "(or a util.initializer storing one) is supported")
        lifetime = Lifetime.VARIABLE if "is_mutable" in op.properties else Lifetime.CONSTANT
        out[name] = TensorGlobal(name, type_, global_device(module, op), lifetime, op)
    return out


def _lowered_global(g: TensorGlobal) -> Op:
    """`util.global [mutable] @g : !stream.resource<variable|constant>` (the initial value goes to
    an initializer)."""
    props = {k: v for k, v in g.decl.properties.items() if k != "initial_value"}
    props["type"] = TypeAttr(g.resource_type)
    return g.decl.replace(properties=freeze(props))


def _initializer_of(g: TensorGlobal) -> Op:
    """The input-level initializer a `dense<...>` initial value stands for: it stores the
    constant into the global (converted like any initializer)."""
    constant_spec, store_spec, return_spec, init_spec = (spec_of(n) for n in ("arith.constant", "util.global.store", "util.return", "util.initializer"))
    assert constant_spec is not None and store_spec is not None and return_spec is not None and init_spec is not None
    where = g.decl.location
    constant = constant_spec.build(results={"result": g.type}, attrs={"value": g.decl.properties["initial_value"]}, location=where)
    constant.results[0].name_hint = g.name
    store = store_spec.build(operands={"value": constant.results[0]}, attrs={"global": SymbolRefAttr(g.name)}, location=where)
    ret = return_spec.build(operands={"operands": ()}, location=where)
    return init_spec.build(regions=(Region((Block((), (constant, store, ret)),)),), location=where)


def _has_tensors(func_op: Op) -> bool:
    ftype = Function(func_op).type
    if any(isinstance(t, TensorType) for t in (*ftype.inputs, *ftype.results)):
        return True
    return any(op.dialect == "flow" or any(isinstance(r.type, TensorType) for r in op.results) for op in func_op.walk() if op is not func_op)


def operand_dims(op: Op) -> list[tuple[Value, tuple[Value, ...]]]:
    """(tensor operand, its dynamic dim values as the op spells them) for every tensor operand."""
    spec = spec_of(op)
    out: list[tuple[Value, tuple[Value, ...]]] = []
    if spec is None:
        return out
    for group, dims_group in _OPERAND_DIMS.get(op.name, ()):
        dims = iter(spec.operand_group(op, dims_group))
        for v in spec.operand_group(op, group):
            if isinstance(v.type, TensorType):
                out.append((v, tuple(next(dims) for _ in range(v.type.dynamic_dims))))
    return out


@dataclass(slots=True)
class _FunctionConverter:
    func: Function
    module: Module
    globals: dict[str, TensorGlobal] = field(default_factory=dict)
    b: BlockBuilder = field(init=False)
    affinity: InputAffinity = field(init=False)
    tensors: dict[Value, Tensor] = field(default_factory=dict)
    moved: dict[tuple[Value, tuple[str, ...]], Tensor] = field(default_factory=dict)
    sizes: dict[tuple[TensorType, tuple[Value, ...], AffinityAttr], Value] = field(default_factory=dict)
    # The input values defined in the block of the `scf` region being converted (None outside).
    local: set[Value] | None = None
    # Input values an `scf` op takes, reads in its regions or returns (`_shared_with_scf`).
    shared: set[Value] = field(default_factory=set)
    # Tensor global -> the input value this function stored into it last, where a load may use
    # that value instead of reading the global again (`_global_load`).
    stored: dict[str, Value] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.b = BlockBuilder(location=self.func.op.location)

    # -- driver ------------------------------------------------------------------------------
    def run(self) -> Op:
        check_straight_line(self.func, "convert-to-stream", STRUCTURED)
        self.affinity = InputAffinity.of(self.func, self.module)
        self.shared = _shared_with_scf(self.func.op)
        arguments = self._import_arguments()
        self._convert(self.func.body.ops)
        return self._function(arguments)

    def _convert(self, ops: tuple[Op, ...]) -> None:
        for op in ops:
            rule = _RULES.get(op.name)
            if rule is not None:
                rule(self, op)
            elif op.name == "arith.constant" and isinstance(op.results[0].type, TensorType):
                self._constant(op)
            elif any(isinstance(v.type, TensorType) for v in (*op.operands, *op.results)):
                raise DiagnosticError.at(op.location, f"convert-to-stream cannot lower '{op.name}' on tensors")
            elif op.name in ("func.call", "util.call"):
                raise DiagnosticError.at(op.location, f"convert-to-stream does not support calls ('{op.name}')")
            else:
                self.b.copy(op)

    def _function(self, arguments: tuple[Value, ...]) -> Op:
        if self.func.op.name == "util.initializer":
            return self.func.op.replace(regions=(Region((self.b.block(arguments),)),))
        ftype = self.func.type
        inputs = tuple(BUFFER_VIEW if isinstance(t, TensorType) else t for t in ftype.inputs)
        results = tuple(BUFFER_VIEW if isinstance(t, TensorType) else t for t in ftype.results)
        props: dict[str, Attribute] = {
            "sym_name": StringAttr(self.func.name),
            "function_type": TypeAttr(FunctionType(inputs, results)),
        }
        for key in ("sym_visibility", "tied_operands"):
            if key in self.func.op.properties:
                props[key] = self.func.op.properties[key]
        if results and "tied_operands" not in props:  # as IREE's util.func parser stores it
            props["tied_operands"] = canonical_ties(None, len(results), sparse=False)
        for key, n in (("arg_attrs", len(inputs)), ("res_attrs", len(results))):
            kept = _strip_abi_attrs(self.func.op.properties.get(key), n)
            if kept is not None:
                props[key] = kept
        attributes = {k: v for k, v in self.func.op.attributes.items() if k != "stream.affinity"}
        region = Region((self.b.block(arguments),))
        return Op("util.func", properties=freeze(props), attributes=freeze(attributes), regions=(region,), location=self.func.op.location)

    # -- values ------------------------------------------------------------------------------
    def sizeof(self, type_: TensorType, dims: tuple[Value, ...], device: AffinityAttr) -> Value:
        key = (type_, dims, device)
        found = self.sizes.get(key)
        if found is None:
            op = self.b.create(
                "stream.tensor.sizeof",
                {"encoding_dims": dims},
                {"storage_size": INDEX},
                {"encoding": TypeAttr(type_), "affinity": device},
            )
            found = self.sizes[key] = op.results[0]
        return found

    def define(self, old: Value, resource: Value, size: Value, type_: TensorType, dims: tuple[Value, ...], device: AffinityAttr) -> Tensor:
        if old.name_hint is not None:
            resource.name_hint = old.name_hint
        t = Tensor(resource, size, type_, dims, device)
        self.tensors[old] = t
        if self.local is not None:
            self.local.add(old)
        return t

    def get(self, old: Value, op: Op) -> Tensor:
        t = self.tensors.get(old)
        if t is None:
            raise DiagnosticError.at(op.location, f"convert-to-stream: the dynamic dims of a tensor operand of '{op.name}' are not known (no op spells them)")
        return t

    def use(self, old: Value, device: AffinityAttr, op: Op) -> Tensor:
        """The tensor `old` on `device`, transferring it there when it lives elsewhere."""
        t = self.get(old, op)
        if same_device(t.device, device):
            return t
        key = (old, device.devices())
        moved = self.moved.get(key)
        if moved is None:
            result = self.transfer(t, device)
            moved = self.moved[key] = Tensor(result, t.size, t.type, t.dims, device)
        return moved

    def transfer(self, t: Tensor, target: AffinityAttr, result_type: ResourceType = UNKNOWN) -> Value:
        op = self.b.create(
            "stream.async.transfer",
            {"source": t.resource, "source_size": t.size, "result_size": t.size},
            {"result": result_type},
            {"execution_affinity": t.device, "source_affinity": t.device, "target_affinity": target},
        )
        return op.results[0]

    def writable(self, old: Value, t: Tensor, op: Op) -> Tensor:
        """The tensor an op updates in place (a tied result): a copy inside an `scf` region
        when it comes from outside the region's block or is a region argument (the region runs
        again, or the value lives on after it), and anywhere when an `scf` op takes it, reads it
        or returns it (its storage may be a loop's state). materialize-copy-on-write would copy
        these too; copying here keeps every level's loop state a value, not storage written in
        place."""
        if (self.local is None or old in self.local) and old not in self.shared:
            return t
        clone = self.b.create(
            "stream.tensor.clone",
            {"source": t.resource, "source_encoding_dims": t.dims, "source_size": t.size, "result_encoding_dims": t.dims, "result_size": t.size},
            {"result": UNKNOWN},
            {"source_encoding": TypeAttr(t.type), "result_encoding": TypeAttr(t.type), "affinity": t.device},
            location=op.location,
        )
        return Tensor(clone.results[0], t.size, t.type, t.dims, t.device)

    def execution(self, op: Op) -> AffinityAttr:
        return self.affinity.execution.get(op, self.affinity.fallback)

    # -- arguments and results ---------------------------------------------------------------
    def _import_arguments(self) -> tuple[Value, ...]:
        known_dims = self._argument_dims()
        new_args = []
        for i, arg in enumerate(self.func.arguments):
            if not isinstance(arg.type, TensorType):
                new_args.append(arg)
                continue
            view_arg = Value(BUFFER_VIEW)
            new_args.append(view_arg)
            dims = known_dims.get(arg)
            if dims is None:
                self.b.bind(arg, view_arg)  # dynamically shaped, no op spells its dims: not imported
                continue
            device = self.affinity.device_of(arg)
            size = self.sizeof(arg.type, dims, device)
            consume = any(isinstance(self.func.arg_attr(i, k), Attribute) for k in _CONSUME_KEYS)
            imported = self.b.create(
                "stream.tensor.import",
                {"source": view_arg, "result_encoding_dims": dims, "result_size": size},
                {"result": EXTERNAL},
                {"result_encoding": TypeAttr(arg.type), "consume": UnitAttr() if consume else None, "affinity": device},
            )
            cast = self.b.create(
                "stream.async.cast",
                {"source": imported.results[0], "source_size": size, "result_size": size},
                {"result": UNKNOWN},
                {"affinity": device},
            )
            self.define(arg, cast.results[0], size, arg.type, dims, device)
        return tuple(new_args)

    def _argument_dims(self) -> dict[Value, tuple[Value, ...]]:
        """Dims of each tensor argument: none when static, else as the first op using it spells them."""
        out: dict[Value, tuple[Value, ...]] = {}
        args = set(self.func.arguments)
        for arg in self.func.arguments:
            if isinstance(arg.type, TensorType) and arg.type.dynamic_dims == 0:
                out[arg] = ()
        for op in self.func.body.ops:
            for v, dims in operand_dims(op):
                if v in args and v not in out:
                    out[v] = tuple(self.b.lookup(d) for d in dims)
        return out

    def _return(self, op: Op) -> None:
        operands = []
        for index, v in enumerate(op.operands):
            if not isinstance(v.type, TensorType):
                operands.append(self.b.lookup(v))
                continue
            t = self.tensors.get(v)
            if t is None:
                # A dynamically shaped argument returned untouched, with no op spelling its dims:
                # the caller's buffer view goes back as it came (what exporting the import gives).
                operands.append(self.b.lookup(v))
                continue
            wanted = result_attr_affinity(self.func, index)
            if wanted is not None:
                t = self.use(v, wanted, op)
            cast = self.b.create(
                "stream.async.cast",
                {"source": t.resource, "source_size": t.size, "result_size": t.size},
                {"result": EXTERNAL},
                {"affinity": t.device},
                location=op.location,
            )
            export = self.b.create(
                "stream.tensor.export",
                {"source": cast.results[0], "source_encoding_dims": t.dims, "source_size": t.size},
                {"result": BUFFER_VIEW},
                {"source_encoding": TypeAttr(t.type), "affinity": t.device},
                location=op.location,
            )
            operands.append(export.results[0])
        self.b.create("util.return", {"operands": tuple(operands)}, location=op.location)

    # -- ops -----------------------------------------------------------------------------------
    def _dispatch(self, op: Op) -> None:
        v = view(op)
        device = self.execution(op)
        arg_dims = iter(v.argument_dims)
        operands: list[Value] = []
        sizes: list[Value] = []
        encodings: list[Attribute] = []
        encoding_dims: list[Value] = []
        size_of: dict[int, Value] = {}
        written = {tie for tie in _tied_list(op) if tie >= 0}
        for i, a in enumerate(v.arguments):
            if isinstance(a.type, TensorType):
                t = self.use(a, device, op)
                if i in written:
                    t = self.writable(a, t, op)
                dims = tuple(self.b.lookup(next(arg_dims)) for _ in range(a.type.dynamic_dims))
                operands.append(t.resource)
                sizes.append(t.size)
                size_of[i] = t.size
                encodings.append(TypeAttr(a.type))
                encoding_dims.extend(dims)
            else:
                operands.append(self.b.lookup(a))
                encodings.append(TypeAttr(UNUSED_ENCODING))
        ties = _tied_list(op)
        result_dims = iter(v.result_dims)
        result_sizes: list[Value] = []
        result_encodings: list[Attribute] = []
        result_encoding_dims: list[Value] = []
        shapes: list[tuple[TensorType, tuple[Value, ...]]] = []
        for r, tie in zip(op.results, ties):
            assert isinstance(r.type, TensorType)
            dims = tuple(self.b.lookup(next(result_dims)) for _ in range(r.type.dynamic_dims))
            shapes.append((r.type, dims))
            result_encodings.append(TypeAttr(r.type))
            result_encoding_dims.extend(dims)
            result_sizes.append(size_of[tie] if tie >= 0 else self.sizeof(r.type, dims, device))
        new = self.b.create(
            "stream.tensor.dispatch",
            {
                "workload": tuple(self.b.lookup(w) for w in v.workload),
                "mixed_operands": tuple(operands),
                "operand_sizes": tuple(sizes),
                "operand_encoding_dims": tuple(encoding_dims),
                "result_sizes": tuple(result_sizes),
                "result_encoding_dims": tuple(result_encoding_dims),
            },
            {"results": tuple(UNKNOWN for _ in op.results)},
            {
                "entry_points": op.properties["entry_points"],
                "operand_encodings": ArrayAttr(tuple(encodings)),
                "result_encodings": ArrayAttr(tuple(result_encodings)),
                "tied_operands": op.properties.get("tied_operands"),
                "affinity": device,
            },
            discardable={k: a for k, a in op.attributes.items() if k != "stream.affinity"},
            location=op.location,
        )
        for old, result, size, (type_, dims) in zip(op.results, new.results, result_sizes, shapes):
            self.define(old, result, size, type_, dims, device)

    def _transfer(self, op: Op) -> None:
        v = view(op)
        target = normalize(v.target, op)
        assert target is not None
        t = self.get(v.operand, op)
        result = self.transfer(t, target)
        self.define(op.results[0], result, t.size, t.type, t.dims, target)

    def _splat(self, op: Op) -> None:
        v = view(op)
        device = self.execution(op)
        type_ = op.results[0].type
        assert isinstance(type_, TensorType)
        dims = tuple(self.b.lookup(d) for d in v.result_dims)
        size = self.sizeof(type_, dims, device)
        new = self.b.create(
            "stream.tensor.splat",
            {"value": self.b.lookup(v.value), "result_encoding_dims": dims, "result_size": size},
            {"result": UNKNOWN},
            {"result_encoding": TypeAttr(type_), "affinity": device},
            location=op.location,
        )
        self.define(op.results[0], new.results[0], size, type_, dims, device)

    def _empty(self, op: Op) -> None:
        v = view(op)
        device = self.execution(op)
        type_ = op.results[0].type
        assert isinstance(type_, TensorType)
        dims = tuple(self.b.lookup(d) for d in v.result_dims)
        size = self.sizeof(type_, dims, device)
        new = self.b.create(
            "stream.tensor.empty",
            {"result_encoding_dims": dims, "result_size": size},
            {"result": UNKNOWN},
            {"result_encoding": TypeAttr(type_), "affinity": device},
            location=op.location,
        )
        self.define(op.results[0], new.results[0], size, type_, dims, device)

    def _constant(self, op: Op) -> None:
        device = self.execution(op)
        type_ = op.results[0].type
        value = op.properties["value"]
        if not isinstance(type_, TensorType) or not isinstance(value, DenseAttr) or not type_.is_static:
            raise DiagnosticError.at(op.location, "convert-to-stream: a tensor constant must be a statically shaped dense<...>")
        size = self.sizeof(type_, (), device)
        new = self.b.create(
            "stream.tensor.constant",
            {"result_encoding_dims": ()},
            {"result": UNKNOWN},
            {"value": value, "result_encoding": TypeAttr(type_), "affinity": device},
            location=op.location,
        )
        self.define(op.results[0], new.results[0], size, type_, (), device)

    def _clone(self, op: Op) -> None:
        v = view(op)
        device = self.execution(op)
        t = self.use(v.operand, device, op)
        dims = tuple(self.b.lookup(d) for d in v.operand_dims)
        new = self.b.create(
            "stream.tensor.clone",
            {
                "source": t.resource,
                "source_encoding_dims": dims,
                "source_size": t.size,
                "result_encoding_dims": dims,
                "result_size": t.size,
            },
            {"result": UNKNOWN},
            {"source_encoding": TypeAttr(t.type), "result_encoding": TypeAttr(t.type), "affinity": device},
            location=op.location,
        )
        self.define(op.results[0], new.results[0], t.size, t.type, t.dims, device)

    def _slice(self, op: Op) -> None:
        v = view(op)
        device = self.execution(op)
        t = self.use(v.source, device, op)
        type_ = op.results[0].type
        assert isinstance(type_, TensorType)
        dims = tuple(self.b.lookup(d) for d in v.result_dims)
        size = self.sizeof(type_, dims, device)
        new = self.b.create(
            "stream.tensor.slice",
            {
                "source": t.resource,
                "source_encoding_dims": tuple(self.b.lookup(d) for d in v.source_dims),
                "source_size": t.size,
                "start_indices": tuple(self.b.lookup(i) for i in v.start_indices),
                "lengths": tuple(self.b.lookup(n) for n in v.lengths),
                "result_encoding_dims": dims,
                "result_size": size,
            },
            {"result": UNKNOWN},
            {"source_encoding": TypeAttr(t.type), "result_encoding": TypeAttr(type_), "affinity": device},
            location=op.location,
        )
        self.define(op.results[0], new.results[0], size, type_, dims, device)

    def _update(self, op: Op) -> None:
        v = view(op)
        device = self.execution(op)
        target = self.writable(v.target, self.use(v.target, device, op), op)
        update = self.use(v.update, device, op)
        new = self.b.create(
            "stream.tensor.update",
            {
                "target": target.resource,
                "target_encoding_dims": tuple(self.b.lookup(d) for d in v.target_dims),
                "target_size": target.size,
                "start_indices": tuple(self.b.lookup(i) for i in v.start_indices),
                "update": update.resource,
                "update_encoding_dims": tuple(self.b.lookup(d) for d in v.update_dims),
                "update_size": update.size,
            },
            {"result": UNKNOWN},
            {"target_encoding": TypeAttr(target.type), "update_encoding": TypeAttr(update.type), "affinity": device},
            location=op.location,
        )
        self.define(op.results[0], new.results[0], target.size, target.type, target.dims, device)

    def _load(self, op: Op) -> None:
        v = view(op)
        device = self.execution(op)
        t = self.use(v.source, device, op)
        source_dims = tuple(self.b.lookup(d) for d in v.source_dims)
        indices = tuple(self.b.lookup(i) for i in v.indices)
        if t.type.num_elements() == 1:
            staged = Tensor(self.transfer(t, device, STAGING), t.size, t.type, source_dims, device)
            load_indices = indices
        else:
            # Move only the element that is read, not the whole tensor.
            element = TensorType((1,) * len(indices), t.type.element)
            size = self.sizeof(element, (), device)
            one = self.b.index(1)
            sliced = self.b.create(
                "stream.tensor.slice",
                {
                    "source": t.resource,
                    "source_encoding_dims": source_dims,
                    "source_size": t.size,
                    "start_indices": indices,
                    "lengths": tuple(one for _ in indices),
                    "result_encoding_dims": (),
                    "result_size": size,
                },
                {"result": UNKNOWN},
                {"source_encoding": TypeAttr(t.type), "result_encoding": TypeAttr(element), "affinity": device},
                location=op.location,
            )
            part = Tensor(sliced.results[0], size, element, (), device)
            staged = Tensor(self.transfer(part, device, STAGING), size, element, (), device)
            load_indices = tuple(self.b.index(0) for _ in indices)
        new = self.b.create(
            "stream.tensor.load",
            {"source": staged.resource, "source_encoding_dims": staged.dims, "source_size": staged.size, "indices": load_indices},
            {"result": op.results[0].type},
            {"source_encoding": TypeAttr(staged.type)},
            location=op.location,
        )
        if op.results[0].name_hint is not None:
            new.results[0].name_hint = op.results[0].name_hint
        self.b.bind(op.results[0], new.results[0])

    def _store(self, op: Op) -> None:
        v = view(op)
        device = self.execution(op)
        t = self.writable(v.target, self.use(v.target, device, op), op)
        indices = tuple(self.b.lookup(i) for i in v.indices)
        one = self.b.index(1)
        new = self.b.create(
            "stream.tensor.fill",
            {
                "target": t.resource,
                "target_encoding_dims": tuple(self.b.lookup(d) for d in v.target_dims),
                "target_size": t.size,
                "start_indices": indices,
                "lengths": tuple(one for _ in indices),
                "value": self.b.lookup(v.value),
            },
            {"result": UNKNOWN},
            {"target_encoding": TypeAttr(t.type), "affinity": device},
            location=op.location,
        )
        self.define(op.results[0], new.results[0], t.size, t.type, t.dims, device)

    # -- globals -----------------------------------------------------------------------------------
    def _tensor_global(self, op: Op, type_: object) -> TensorGlobal | None:
        """The tensor global a load or store names (None: another global, copied unchanged)."""
        ref = op.properties.get("global")
        g = self.globals.get(ref.root) if isinstance(ref, SymbolRefAttr) else None
        if g is None:
            if isinstance(type_, TensorType):
                raise DiagnosticError.at(op.location, f"convert-to-stream: '{op.name}' of a tensor names @{getattr(ref, 'root', ref)}, "
                                         "which is not a tensor global of the module")
            return None
        if type_ != g.type:
            raise DiagnosticError.at(op.location, f"convert-to-stream: '{op.name}' of @{g.name} as {type_}, but the global is {g.type}")
        return g

    def _global_load(self, op: Op) -> None:
        """A load of a tensor global: the global's resource, transferred to a `*` resource of the
        function's own (the global's storage is never written in place)."""
        result = op.results[0]
        g = self._tensor_global(op, result.type)
        if g is None:
            self.b.copy(op)
            return
        if g.name in self.stored:  # the value stored last: no reload of the storage just handed over
            self.tensors[result] = self.use(self.stored[g.name], g.device, op)
            if self.local is not None:
                self.local.add(result)
            return
        loaded = self.b.create("util.global.load", None, {"result": g.resource_type}, {"global": op.properties["global"]}, location=op.location)
        loaded.results[0].name_hint = g.name
        size = self.sizeof(g.type, (), g.device)
        moved = self.transfer(Tensor(loaded.results[0], size, g.type, (), g.device), g.device)
        self.define(result, moved, size, g.type, (), g.device)

    def _global_store(self, op: Op) -> None:
        """A store of a tensor global: the value (on the global's device) transferred to fresh
        storage of the global's lifetime, which the global then holds."""
        value = op.operands[0]
        g = self._tensor_global(op, value.type)
        if g is None:
            self.b.copy(op)
            return
        t = self.use(value, g.device, op)
        moved = self.transfer(t, g.device, g.resource_type)
        self.b.create("util.global.store", {"value": moved}, None, {"global": op.properties["global"]}, location=op.location)
        self.stored[g.name] = value

    # -- structured control flow ----------------------------------------------------------------
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


def _shared_with_scf(func_op: Op) -> set[Value]:
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
    return [(r, arguments[t]) for r, t in zip(op.results, _tied_list(op)) if 0 <= t < len(arguments)]


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


def _tied_list(op: Op) -> list[int]:
    tied = op.properties.get("tied_operands")
    n = len(op.results)
    if not isinstance(tied, ArrayAttr) or len(tied) != n:
        return [-1] * n
    from stream.ir.attributes import IntegerAttr

    return [e.value if isinstance(e, IntegerAttr) else -1 for e in tied.elements]


def _strip_abi_attrs(attr: Attribute | None, n: int) -> ArrayAttr | None:
    """Argument/result attribute dictionaries without the ABI keys the conversion consumed."""
    if not isinstance(attr, ArrayAttr) or len(attr) != n:
        return None
    dicts = [DictAttr(tuple((k, v) for k, v in d.entries if k not in _ABI_KEYS)) if isinstance(d, DictAttr) else DictAttr(()) for d in attr.elements]
    if not any(d.entries for d in dicts):
        return None
    return ArrayAttr(tuple(dicts))


_RULES: RuleTable[Callable[[_FunctionConverter, Op], None]] = RuleTable(
    "_RULES",
    """Lower the input-level op to tensor-level stream ops: look up its operands' `Tensor`s
    (encoding, sizes, affinity), emit the replacement through `self.b` and bind its results
    (`fn(converter, op)`). An op without one is copied unchanged (identity) unless it takes or
    returns a tensor (refused, exit 2) or is a call (refused).""",
    policy="identity",
    requires=Requirement(prefixes=("flow.",), ops=frozenset({"func.return", "util.return", "scf.for", "scf.if", "util.global.load",
                                                             "util.global.store"})),
    entries={
        "flow.dispatch": _FunctionConverter._dispatch,
        "flow.tensor.transfer": _FunctionConverter._transfer,
        "flow.tensor.splat": _FunctionConverter._splat,
        "flow.tensor.empty": _FunctionConverter._empty,
        "flow.tensor.clone": _FunctionConverter._clone,
        "flow.tensor.slice": _FunctionConverter._slice,
        "flow.tensor.update": _FunctionConverter._update,
        "flow.tensor.load": _FunctionConverter._load,
        "flow.tensor.store": _FunctionConverter._store,
        "scf.for": _FunctionConverter._for,
        "scf.if": _FunctionConverter._if,
        "util.global.load": _FunctionConverter._global_load,
        "util.global.store": _FunctionConverter._global_store,
        "func.return": _FunctionConverter._return,
        "util.return": _FunctionConverter._return,
    },
)
