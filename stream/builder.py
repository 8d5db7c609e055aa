"""Building input-level programs in Python.

The builder makes the same IR the parser makes from text (a test checks that a built module
equals its printed-and-parsed self), so everything downstream (the passes, the verifier, the
runtime) sees no difference between a built program and a written one:

    from stream.builder import Program

    p = Program()
    f = p.function("mlp", x="8x64xf32", w1="64x64xf32", w2="64x32xf32")
    h = f.dispatch("matmul", f["x"], f["w1"], result="8x64xf32")
    a = f.dispatch("gelu", h, tied=h, device="dev1")          # in place, on another device
    y = f.dispatch("matmul", f.transfer(a, "dev0"), f["w2"], result="8x32xf32")
    f.ret(y)
    print(p.text())                                            # flow-level MLIR

Tensor types are written as MLIR spells their shape (`"4x?xf32"`) or given as `TensorType`s.
A dynamic dim takes its value from an index value, as `{%n}` does in the text: arguments name
the index argument that sizes them (`x=("?x32xf32", "n")`), and ops that make a dynamic tensor
take `dims=[...]`. The builder tracks the dims of every tensor value, so operands never need
them again. Placement: `device=` on an op (`stream.affinity`) or on the function; the default
device is `@dev0`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from stream.ir.attributes import (
    AffinityAttr,
    ArrayAttr,
    Attribute,
    DenseAttr,
    DictAttr,
    FloatAttr,
    IntegerAttr,
    StringAttr,
    SymbolRefAttr,
    TypeAttr,
    UnitAttr,
)
from stream.ir.core import Module, Op, Region, Value, freeze
from stream.ir.parse_attrs import normalize_dense
from stream.ir.printer import print_module
from stream.ir.spec import spec_of
from stream.ir.types import (
    COMPLEX64,
    COMPLEX128,
    F16,
    F32,
    F64,
    I1,
    I8,
    I16,
    I32,
    I64,
    INDEX,
    ComplexType,
    FloatType,
    FunctionType,
    TensorType,
    Type,
)

__all__ = ["Program", "FunctionBuilder", "tensor_type", "BuilderError"]

_ELEMENTS: dict[str, Type] = {"f16": F16, "f32": F32, "f64": F64, "i1": I1, "i8": I8, "i16": I16, "i32": I32, "i64": I64,
                               "complex<f32>": COMPLEX64, "complex<f64>": COMPLEX128}
_NUMPY: dict[Type, str] = {F16: "float16", F32: "float32", F64: "float64", I8: "int8", I16: "int16", I32: "int32", I64: "int64", I1: "bool",
                           COMPLEX64: "complex64", COMPLEX128: "complex128"}
_SHAPE = re.compile(r"((?:[^x]*x)*?)(complex<[^<>]*>|[^x]*)")  # dims, then an element type (`complex` has an x)

Index = Value | int
TypeLike = str | TensorType


class BuilderError(ValueError):
    """A program the builder cannot make (a wrong operand, a missing dim, a bad type)."""


def tensor_type(spec: TypeLike) -> TensorType:
    """`"4x?xf32"` (or `"tensor<4x?xf32>"`) as a `TensorType`."""
    if isinstance(spec, TensorType):
        return spec
    text = spec.strip()
    if text.startswith("tensor<") and text.endswith(">"):
        text = text[len("tensor<") : -1]
    m = _SHAPE.fullmatch(text)
    assert m is not None  # the element part matches anything without an x
    dims, element = m.group(1).split("x")[:-1], m.group(2)
    if element not in _ELEMENTS:
        raise BuilderError(f"unknown element type '{element}' in '{spec}' (known: {', '.join(_ELEMENTS)})")
    shape: list[int | None] = []
    for d in dims:
        if d == "?":
            shape.append(None)
        elif d.isdigit():
            shape.append(int(d))
        else:
            raise BuilderError(f"bad dimension '{d}' in '{spec}'")
    return TensorType(tuple(shape), _ELEMENTS[element])


def _build(name: str, **kwargs: Any) -> Op:
    spec = spec_of(name)
    assert spec is not None, name
    return spec.build(**kwargs)


@dataclass
class FunctionBuilder:
    """Appends ops to one function body. Every method returns the value it defines."""

    name: str
    arguments: dict[str, Value]
    arg_attrs: list[dict[str, Attribute]]
    device: str | None
    ops: list[Op] = field(default_factory=list)
    dims: dict[Value, tuple[Value, ...]] = field(default_factory=dict)
    results: tuple[Value, ...] | None = None
    _indices: dict[int, Value] = field(default_factory=dict)

    def __getitem__(self, name: str) -> Value:
        """An argument by name."""
        try:
            return self.arguments[name]
        except KeyError:
            raise BuilderError(f"@{self.name} has no argument '{name}' (it has: {', '.join(self.arguments)})") from None

    # -- scalars and index arithmetic ---------------------------------------------------------
    def index(self, value: Index) -> Value:
        """An index value: `value` itself, or a (shared) `arith.constant N : index`."""
        if isinstance(value, Value):
            if value.type != INDEX:
                raise BuilderError(f"expected an index value, found {value.type}")
            return value
        if value not in self._indices:
            self._indices[value] = self._emit(_build("arith.constant", attrs={"value": IntegerAttr(int(value), INDEX)}, results={"result": INDEX}))
        return self._indices[value]

    def scalar(self, value: complex | float | int, type: str = "f32") -> Value:
        """`arith.constant` of a scalar type (`f32`, `i32`, ...)."""
        t = _ELEMENTS.get(type)
        if t is None:
            raise BuilderError(f"unknown scalar type '{type}'")
        if isinstance(t, ComplexType):  # `complex.constant [re : f32, im : f32] : complex<f32>`
            assert isinstance(t.element, FloatType)
            z = complex(value)
            parts = ArrayAttr((FloatAttr(z.real, t.element), FloatAttr(z.imag, t.element)))
            return self._emit(_build("complex.constant", attrs={"value": parts}, results={"complex": t}))
        if isinstance(value, complex):
            raise BuilderError(f"a {t} scalar cannot hold the complex number {value}")
        attr: Attribute = FloatAttr(float(value), t) if isinstance(t, FloatType) else IntegerAttr(int(value), t)
        return self._emit(_build("arith.constant", attrs={"value": attr}, results={"result": t}))

    def constant(self, array: np.ndarray | Sequence[object], type: TypeLike | None = None, device: str | None = None) -> Value:
        """A dense tensor constant (`arith.constant dense<...> : tensor<...>`)."""
        data = np.asarray(array)
        t = tensor_type(type) if type is not None else TensorType(data.shape, _element_of(data))
        if not t.is_static or tuple(t.shape or ()) != data.shape:
            raise BuilderError(f"a constant of shape {data.shape} does not fit {t}")
        values = data.astype(_NUMPY[t.element])
        if isinstance(t.element, ComplexType):  # MLIR's `(re,im)` elements
            text = str(np.vectorize(lambda z: f"({float(z.real)!r},{float(z.imag)!r})", otypes=[object])(values).tolist()).replace("'", "")
        else:
            text = str(values.tolist())
        body = normalize_dense(text, t)
        return self._emit(_build("arith.constant", attrs={"value": DenseAttr(body, t)}, results={"result": t}), device)

    def addi(self, lhs: Index, rhs: Index) -> Value:
        return self._arith("arith.addi", lhs, rhs)

    def subi(self, lhs: Index, rhs: Index) -> Value:
        return self._arith("arith.subi", lhs, rhs)

    def muli(self, lhs: Index, rhs: Index) -> Value:
        return self._arith("arith.muli", lhs, rhs)

    def divui(self, lhs: Index, rhs: Index) -> Value:
        return self._arith("arith.divui", lhs, rhs)

    def _arith(self, name: str, lhs: Index, rhs: Index) -> Value:
        return self._emit(_build(name, operands={"lhs": self.index(lhs), "rhs": self.index(rhs)}, results={"result": INDEX}))

    # -- tensors ------------------------------------------------------------------------------
    def dispatch(
        self,
        kernel: str,
        *operands: Value,
        result: TypeLike | Sequence[TypeLike] | None = None,
        tied: Value | dict[int, Value] | None = None,
        dims: Sequence[Index] | Sequence[Sequence[Index]] = (),
        workload: Sequence[Index] = (),
        device: str | None = None,
    ) -> Value:
        """`flow.dispatch @kernel(operands)`. One result of type `result` (or several: a list,
        then the op's values are `self.results_of(v)`); `tied=x` makes the (first) result reuse
        operand `x`'s storage (`-> %x`), `tied={i: x}` ties result `i`. Returns the first result."""
        ties = {0: tied} if isinstance(tied, Value) else dict(tied or {})
        types: list[TypeLike]
        if result is not None:
            types = [result] if isinstance(result, (str, TensorType)) else list(result)
        elif 0 in ties:
            types = [self._tensor(ties[0])]
        else:
            raise BuilderError(f"dispatch @{kernel}: give its result type (result=...) or tie it to an operand (tied=...)")
        result_dims: list[tuple[Value, ...]] = []
        dim_lists = [dims] if dims and not isinstance(dims[0], (list, tuple)) else list(dims)  # type: ignore[list-item]
        tied_operands: list[int] = []
        result_types: list[Type] = []
        for i, spec in enumerate(types):
            operand = ties.get(i)
            if operand is not None:
                if operand not in operands:
                    raise BuilderError(f"dispatch @{kernel}: result {i} is tied to a value that is not an operand")
                tied_operands.append(operands.index(operand))
                result_types.append(operand.type)
                result_dims.append(self.dims.get(operand, ()))
                continue
            tied_operands.append(-1)
            t = tensor_type(spec)
            result_types.append(t)
            given = dim_lists[i] if i < len(dim_lists) else ()
            result_dims.append(self._dims_for(t, given, f"result {i} of @{kernel}"))  # type: ignore[arg-type]
        arg_dims = [d for v in operands for d in self.dims.get(v, ())]
        op = _build(
            "flow.dispatch",
            operands={
                "workload": [self.index(w) for w in workload],
                "arguments": list(operands),
                "argument_dims": arg_dims,
                "result_dims": [d for ds in result_dims for d in ds],
            },
            results={"results": result_types},
            attrs={"entry_points": ArrayAttr((SymbolRefAttr(kernel),)), "tied_operands": ArrayAttr(tuple(IntegerAttr(t, INDEX) for t in tied_operands))},
        )
        self._emit(op, device)
        for r, ds in zip(op.results, result_dims):
            if ds:
                self.dims[r] = ds
        return op.results[0]

    def results_of(self, first: Value) -> tuple[Value, ...]:
        """All results of the op whose first result is `first` (multi-result dispatches)."""
        for op in reversed(self.ops):
            if op.results and op.results[0] is first:
                return op.results
        raise BuilderError("the value is not the first result of an op of this function")

    def transfer(self, x: Value, device: str) -> Value:
        """`flow.tensor.transfer %x to @device`."""
        t = self._tensor(x)
        op = _build("flow.tensor.transfer", operands={"operand": x, "operand_dims": list(self.dims.get(x, ()))},
                    results={"result": t}, attrs={"target": AffinityAttr(device)})
        return self._tensor_result(op, self.dims.get(x, ()), None)

    def splat(self, value: Value | complex | float, type: TypeLike, dims: Sequence[Index] = (), device: str | None = None) -> Value:
        """`flow.tensor.splat`: a tensor filled with one scalar."""
        t = tensor_type(type)
        scalar = value if isinstance(value, Value) else self.scalar(value, str(t.element))
        ds = self._dims_for(t, dims, "the splat")
        op = _build("flow.tensor.splat", operands={"value": scalar, "result_dims": list(ds)}, results={"result": t})
        return self._tensor_result(op, ds, device)

    def empty(self, type: TypeLike, dims: Sequence[Index] = (), device: str | None = None) -> Value:
        """`flow.tensor.empty`: a tensor whose contents are undefined."""
        t = tensor_type(type)
        ds = self._dims_for(t, dims, "the empty tensor")
        return self._tensor_result(_build("flow.tensor.empty", operands={"result_dims": list(ds)}, results={"result": t}), ds, device)

    def clone(self, x: Value, device: str | None = None) -> Value:
        """`flow.tensor.clone`: a copy with storage of its own."""
        ds = self.dims.get(x, ())
        op = _build("flow.tensor.clone", operands={"operand": x, "operand_dims": list(ds)}, results={"result": self._tensor(x)})
        return self._tensor_result(op, ds, device)

    def slice(self, x: Value, starts: Sequence[Index], lengths: Sequence[Index], device: str | None = None) -> Value:
        """`flow.tensor.slice %x[starts for lengths]`; a length given as a value makes that dim dynamic."""
        t = self._tensor(x)
        if len(starts) != t.rank or len(lengths) != t.rank:
            raise BuilderError(f"slice of a rank-{t.rank} tensor needs {t.rank} starts and lengths")
        shape = tuple(n if isinstance(n, int) else None for n in lengths)
        out = TensorType(shape, t.element)
        ds = tuple(self.index(n) for n in lengths if not isinstance(n, int))
        op = _build("flow.tensor.slice", operands={
            "source": x, "source_dims": list(self.dims.get(x, ())), "start_indices": [self.index(s) for s in starts],
            "lengths": [self.index(n) for n in lengths], "result_dims": list(ds),
        }, results={"result": out})
        return self._tensor_result(op, ds, device)

    def update(self, update: Value, target: Value, starts: Sequence[Index], device: str | None = None) -> Value:
        """`flow.tensor.update %update, %target[starts]`: the result reuses `target`'s storage."""
        t = self._tensor(target)
        self._tensor(update)
        if len(starts) != t.rank:
            raise BuilderError(f"update of a rank-{t.rank} tensor needs {t.rank} start indices")
        ds = self.dims.get(target, ())
        op = _build("flow.tensor.update", operands={
            "target": target, "target_dims": list(ds), "start_indices": [self.index(s) for s in starts],
            "update": update, "update_dims": list(self.dims.get(update, ())),
        }, results={"result": t})
        return self._tensor_result(op, ds, device)

    def load(self, x: Value, indices: Sequence[Index], device: str | None = None) -> Value:
        """`flow.tensor.load`: one element, read on the host."""
        t = self._tensor(x)
        op = _build("flow.tensor.load", operands={"source": x, "source_dims": list(self.dims.get(x, ())),
                                                  "indices": [self.index(i) for i in indices]}, results={"result": t.element})
        return self._emit(op, device)

    def store(self, value: Value, target: Value, indices: Sequence[Index], device: str | None = None) -> Value:
        """`flow.tensor.store`: one element written into `target` (the result reuses its storage)."""
        t = self._tensor(target)
        ds = self.dims.get(target, ())
        op = _build("flow.tensor.store", operands={"value": value, "target": target, "target_dims": list(ds),
                                                   "indices": [self.index(i) for i in indices]}, results={"result": t})
        return self._tensor_result(op, ds, device)

    def ret(self, *values: Value) -> None:
        """`return values` (ends the function)."""
        if self.results is not None:
            raise BuilderError(f"@{self.name} already returns")
        self.results = values
        self.ops.append(_build("func.return", operands={"operands": list(values)}))

    # -- helpers ------------------------------------------------------------------------------
    def _emit(self, op: Op, device: str | None = None) -> Value:
        if self.results is not None:
            raise BuilderError(f"@{self.name} has returned; no op may follow")
        if device is not None:
            op = op.replace(attributes={**op.attributes, "stream.affinity": AffinityAttr(device)})
        assert op.results, op.name
        self.ops.append(op)
        return op.results[0]

    def _tensor_result(self, op: Op, dims: Sequence[Value], device: str | None) -> Value:
        v = self._emit(op, device)
        if dims:
            self.dims[v] = tuple(dims)
        return v

    def _tensor(self, v: Value) -> TensorType:
        if not isinstance(v.type, TensorType):
            raise BuilderError(f"expected a tensor, found a value of type {v.type}")
        return v.type

    def _dims_for(self, t: TensorType, given: Sequence[Index], what: str) -> tuple[Value, ...]:
        if len(given) != t.dynamic_dims:
            raise BuilderError(f"{what} has type {t} with {t.dynamic_dims} dynamic dim(s); give that many dims=[...], not {len(given)}")
        return tuple(self.index(d) for d in given)


def _element_of(data: np.ndarray) -> Type:
    for t, name in _NUMPY.items():
        if data.dtype == np.dtype(name):
            return t
    raise BuilderError(f"no MLIR element type for numpy dtype {data.dtype}")


@dataclass
class Program:
    """A module of input-level functions."""

    functions: list[FunctionBuilder] = field(default_factory=list)

    def function(
        self, name: str, *, device: str | None = None, consume: Sequence[str] = (), **arguments: TypeLike | tuple[TypeLike, str]
    ) -> FunctionBuilder:
        """A new function `@name(arguments...)`, arguments in keyword order: a tensor type
        (`"8x64xf32"`), `"index"`, a scalar type, or `(type, "n", ...)` for a tensor whose dynamic
        dims are the index arguments named. `consume` names arguments the caller hands over
        (`{iree.abi.consume}`: the function may write them in place)."""
        values: dict[str, Value] = {}
        attrs: list[dict[str, Attribute]] = []
        dims: dict[Value, tuple[Value, ...]] = {}
        for arg, spec in arguments.items():
            type_spec, dim_names = (spec[0], spec[1:]) if isinstance(spec, tuple) else (spec, ())
            t: Type = INDEX if type_spec == "index" else _ELEMENTS.get(type_spec, None) or tensor_type(type_spec)  # type: ignore[arg-type]
            v = Value(t, arg)
            if isinstance(t, TensorType):
                if len(dim_names) != t.dynamic_dims:
                    raise BuilderError(f"argument '{arg}' of type {t} needs {t.dynamic_dims} dim name(s), given {len(dim_names)}")
                try:
                    dims[v] = tuple(values[d] for d in dim_names)
                except KeyError as e:
                    raise BuilderError(f"argument '{arg}': its dim {e} must be an earlier index argument") from None
            values[arg] = v
            attrs.append({"iree.abi.consume": UnitAttr()} if arg in consume else {})
        unknown = set(consume) - set(values)
        if unknown:
            raise BuilderError(f"consume names no argument: {', '.join(sorted(unknown))}")
        fb = FunctionBuilder(name, values, attrs, device, dims=dims)
        self.functions.append(fb)
        return fb

    def build(self) -> Module:
        """The module (every function must have returned)."""
        ops = []
        for f in self.functions:
            if f.results is None:
                raise BuilderError(f"@{f.name} never returns: call ret(...)")
            args = tuple(f.arguments.values())
            ftype = FunctionType(tuple(a.type for a in args), tuple(r.type for r in f.results))
            props: dict[str, Attribute] = {"sym_name": StringAttr(f.name), "function_type": TypeAttr(ftype)}
            if any(f.arg_attrs):
                props["arg_attrs"] = ArrayAttr(tuple(DictAttr(tuple(a.items())) for a in f.arg_attrs))
            attributes = {"stream.affinity": AffinityAttr(f.device)} if f.device else {}
            ops.append(Op("func.func", properties=freeze(props), attributes=freeze(attributes), regions=(Region.of(args, tuple(f.ops)),)))
        return Module(tuple(ops))

    def text(self, generic: bool = False) -> str:
        """The module as MLIR text."""
        return print_module(self.build(), generic)
