"""convert-to-stream's tensor globals: declarations, initial values, loads and stores.

A tensor global (`util.global [mutable] @g : tensor<...>`) becomes a resource global, as IREE's
UtilToStream conversion makes it: `!stream.resource<variable>` when mutable, `constant`
otherwise, on its own `stream.affinity` or else the module's default device. A `dense<...>`
initial value becomes a `util.initializer` right after the global that stores the constant
(`initializer_of`). A load transfers the global's resource to a `*` resource the function owns;
a store transfers the value to fresh storage of the global's lifetime and stores that, so the
global's storage is never written in place; a load after a store of the same global in the
function gets the stored tensor itself (`ConverterState.stored`, which the `scf` rules reset
where a region stores the global). Which tensor globals cannot be stored is decided here
(`tensor_globals_of`, exit 2).
"""

from __future__ import annotations

from stream.analysis.affinity import global_device
from stream.ir.attributes import DenseAttr, StringAttr, SymbolRefAttr, TypeAttr
from stream.ir.core import Block, Module, Op, Region, freeze
from stream.ir.diagnostics import DiagnosticError
from stream.ir.spec import spec_of
from stream.ir.types import Lifetime, TensorType, element_byte_width
from stream.passes.convert_to_stream_values import ConverterState, Tensor, TensorGlobal

__all__ = ["GlobalAccesses", "initializer_of", "lowered_global", "symbol_name", "tensor_globals_of"]


def symbol_name(op: Op) -> str:
    """The `sym_name` of a module-level op ('' for none)."""
    sym = op.properties.get("sym_name")
    return sym.value if isinstance(sym, StringAttr) else ""


def tensor_globals_of(module: Module) -> dict[str, TensorGlobal]:
    """The module's tensor globals; a kind convert-to-stream cannot store is refused here."""
    out: dict[str, TensorGlobal] = {}
    for op in module.ops:
        t = op.properties.get("type") if op.name == "util.global" else None
        type_ = t.type if isinstance(t, TypeAttr) else None
        if not isinstance(type_, TensorType):
            continue
        name = symbol_name(op)
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


def lowered_global(g: TensorGlobal) -> Op:
    """`util.global [mutable] @g : !stream.resource<variable|constant>` (the initial value goes to
    an initializer)."""
    props = {k: v for k, v in g.decl.properties.items() if k != "initial_value"}
    props["type"] = TypeAttr(g.resource_type)
    return g.decl.replace(properties=freeze(props))


def initializer_of(g: TensorGlobal) -> Op:
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


class GlobalAccesses(ConverterState):
    """The rules of `util.global.load` / `util.global.store` (of tensor globals)."""

    __slots__ = ()

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
