"""convert-to-stream's function state: how an input tensor is held at the tensor level.

A `Tensor` is a tensor value of the input as the tensor level holds it (resource, byte size,
type, dynamic dims, device); a `TensorGlobal` is a tensor global and the resource global it
becomes. `ConverterState` is one function being converted: the `Tensor` of every input value
converted so far and the helpers every op's rule uses: `get` / `use` read an operand (`use`
transfers it to the device that needs it, once per value and device), `sizeof` and `define`
make a result, `writable` copies what an op would write in place where that storage is shared.

The rules are in the modules named after what they convert: `convert_to_stream_tensors` (flow
ops on tensors), `convert_to_stream_globals` (tensor globals), `convert_to_stream_control_flow`
(`scf.for` / `scf.if`) and `convert_to_stream_abi` (the function's arguments and results); the
pass, its driver and its rule table are in `convert_to_stream`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field

from stream.analysis.affinity import InputAffinity, same_device
from stream.ir.attributes import AffinityAttr, TypeAttr
from stream.ir.core import Module, Op, Value
from stream.ir.diagnostics import DiagnosticError
from stream.ir.types import INDEX, Lifetime, ResourceType, TensorType
from stream.ir.walk import Function
from stream.passes.block_builder import BlockBuilder

__all__ = ["ConverterState", "Tensor", "TensorGlobal", "UNKNOWN", "EXTERNAL", "STAGING"]

UNKNOWN = ResourceType(Lifetime.UNKNOWN)
EXTERNAL = ResourceType(Lifetime.EXTERNAL)
STAGING = ResourceType(Lifetime.STAGING)


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


@dataclass(slots=True)
class ConverterState(ABC):
    """One function being converted (see the module docstring); the rules of each kind of op
    are its subclasses' methods, `convert_to_stream._FunctionConverter` has them all."""

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
    # Input values an `scf` op takes, reads in its regions or returns (`shared_with_scf`, in
    # convert_to_stream_control_flow).
    shared: set[Value] = field(default_factory=set)
    # Tensor global -> the input value this function stored into it last, where a load may use
    # that value instead of reading the global again (`GlobalAccesses._global_load`).
    stored: dict[str, Value] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.b = BlockBuilder(location=self.func.op.location)

    @abstractmethod
    def _convert(self, ops: tuple[Op, ...]) -> None:
        """Convert `ops` into `self.b`, each by its rule (`convert_to_stream._RULES`): the driver
        of the whole function, which an `scf` region's block is converted with too."""

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
