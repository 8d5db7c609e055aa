"""convert-to-stream's rules for the flow ops on tensors.

`flow.dispatch` -> `stream.tensor.dispatch` (encodings = the tensor types; a tied result reuses
the operand's size and writes a copy where the operand's storage is shared, `writable`);
`flow.tensor.transfer` -> `stream.async.transfer`; `flow.tensor.splat/empty/clone/slice/update`
and tensor `arith.constant`s -> their `stream.tensor.*` forms; `flow.tensor.load` -> the element
sliced out, transferred to a `staging` resource and loaded on the host; `flow.tensor.store` ->
a `stream.tensor.fill` of the one element on the device. Each op runs where the Affinity analysis
places it (`ConverterState.execution`), its operands moved there first (`ConverterState.use`).
"""

from __future__ import annotations

from stream.analysis.affinity import normalize
from stream.dialect.directives import UNUSED_ENCODING
from stream.ir.attributes import ArrayAttr, Attribute, DenseAttr, IntegerAttr, TypeAttr
from stream.ir.core import Op, Value
from stream.ir.diagnostics import DiagnosticError
from stream.ir.spec import view
from stream.ir.types import TensorType
from stream.passes.convert_to_stream_values import STAGING, UNKNOWN, ConverterState, Tensor

__all__ = ["TensorOps", "tied_list"]


class TensorOps(ConverterState):
    """The rules of the flow ops on tensors and of tensor constants."""

    __slots__ = ()

    def _dispatch(self, op: Op) -> None:
        v = view(op)
        device = self.execution(op)
        arg_dims = iter(v.argument_dims)
        operands: list[Value] = []
        sizes: list[Value] = []
        encodings: list[Attribute] = []
        encoding_dims: list[Value] = []
        size_of: dict[int, Value] = {}
        written = {tie for tie in tied_list(op) if tie >= 0}
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
        ties = tied_list(op)
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


def tied_list(op: Op) -> list[int]:
    """For each result of a flow op, the index of the operand it is tied to (-1: none)."""
    tied = op.properties.get("tied_operands")
    n = len(op.results)
    if not isinstance(tied, ArrayAttr) or len(tied) != n:
        return [-1] * n
    return [e.value if isinstance(e, IntegerAttr) else -1 for e in tied.elements]
