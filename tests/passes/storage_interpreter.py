"""A storage-semantics interpreter of unscheduled async-level functions (a test oracle).

It runs the output of encode-tensors, materialize-copy-on-write, elide-async-copies and
refine-usage op by op in block order -- one order every later schedule must agree with -- on
numpy byte buffers, with the runtime's kernels:

* a tied result (`fill`, `update`, `copy`, `store` targets; dispatch results written `-> %x`) is
  the *same buffer* as its operand, written in place; a passthrough (`cast`) is the same buffer
  too; every other resource result is a fresh buffer (`transfer`, `clone` and `slice` copy);
* so a copy that was needed but elided shows up as a wrong value under the other name, exactly
  as it would on a device;
* imports without `consume` and constants are read-only: writing one raises `ImmutableWrite`
  (the BORROWED_INPUT_MUTATED property);
* an export looks at its storage when the function returns, not when it runs.

With `in_place=False` it runs value semantics instead (a tied write works on a copy and nothing
is read-only): the meaning of IR before materialize-copy-on-write made in-place writes safe.

Dispatch bindings follow docs/CONVENTIONS.md: `streamproof.binding_types` gives each binding's
tensor type, their dynamic dims are the trailing index operands, in order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from runtime.kernels import DEFAULT_REGISTRY, KernelRegistry
from runtime.memory import POISON, dtype_of
from runtime.scalars import ARITH_OPS, eval_arith, host_value_of_constant
from runtime.values import dense_to_numpy
from stream.ir.attributes import ArrayAttr, SymbolRefAttr, TypeAttr, UnitAttr
from stream.ir.core import Module, Op, Value
from stream.ir.spec import spec_of, view
from stream.ir.types import ResourceType, TensorType
from stream.ir.walk import function

__all__ = ["ImmutableWrite", "run_async"]


class ImmutableWrite(AssertionError):
    """An op wrote storage that must never be written (a borrowed import or a constant)."""


@dataclass(eq=False)
class Buffer:
    data: np.ndarray  # uint8
    kind: str  # "borrowed" | "owned" | "constant" | "fresh"
    origin: str


# Storage semantics (the default) or value semantics, and the kernels; set by `run_async`.
_IN_PLACE = [True]
_KERNELS: list[KernelRegistry] = [DEFAULT_REGISTRY]


def _written(env: dict[Value, Any], op: Op, name: str) -> Buffer:
    """The buffer a tied write of operand group `name` writes: the operand's own storage in
    place, or a copy of it under value semantics."""
    return _written_operand(env, op, _group(op, name)[0])


@dataclass(frozen=True)
class _Export:
    buffer: Buffer
    type: TensorType
    shape: tuple[int, ...]


def run_async(module: Module, name: str, args: list[Any], in_place: bool = True, kernels: KernelRegistry | None = None) -> list[Any]:
    _IN_PLACE[0] = in_place
    _KERNELS[0] = kernels or DEFAULT_REGISTRY
    f = function(module, name)
    assert f is not None, name
    env: dict[Value, Any] = {}
    for arg, value in zip(f.arguments, args):
        env[arg] = value
    for op in f.body.ops:
        if op.name in ("util.return", "func.return"):
            return [_materialize(env[v]) for v in op.operands]
        rule = _RULES.get(op.name)
        if rule is not None:
            rule(env, op)
        elif op.name in ARITH_OPS:
            env[op.results[0]] = eval_arith(op, [env[v] for v in op.operands])
        elif op.name == "arith.constant":
            env[op.results[0]] = host_value_of_constant(op.properties["value"], op.results[0].type)
        elif op.name.startswith("hal."):
            continue
        else:
            raise NotImplementedError(f"storage interpreter: '{op.name}'")
    raise AssertionError("no return")


def _materialize(value: Any) -> Any:
    if isinstance(value, _Export):
        dtype = dtype_of(value.type.element)
        return np.frombuffer(value.buffer.data.tobytes(), dtype=dtype).reshape(value.shape).copy()
    if isinstance(value, Buffer):
        return value.data.copy()
    return value


def _shape(t: TensorType, dims: list[int]) -> tuple[int, ...]:
    it = iter(dims)
    assert t.shape is not None
    return tuple(int(next(it)) if d is None else d for d in t.shape)


def _group(op: Op, name: str) -> tuple[Value, ...]:
    spec = spec_of(op)
    assert spec is not None
    return spec.operand_group(op, name)


def _int(env: dict[Value, Any], op: Op, name: str) -> int:
    return int(env[_group(op, name)[0]])


def _buffer(env: dict[Value, Any], op: Op, name: str) -> Buffer:
    found = env[_group(op, name)[0]]
    assert isinstance(found, Buffer), (op.name, name)
    return found


def _written_operand(env: dict[Value, Any], op: Op, v: Value) -> Buffer:
    buf = env[v]
    if not _IN_PLACE[0]:
        return Buffer(buf.data.copy(), "fresh", f"value-semantics copy at {op.location}")
    if buf.kind in ("borrowed", "constant"):
        raise ImmutableWrite(f"'{op.name}' at {op.location} writes {buf.kind} storage ({buf.origin})")
    return buf


def _pattern(value: Any, op: Op, length: int) -> np.ndarray:
    t = _group(op, "value")[0].type
    dtype = dtype_of(t)
    unit = np.array([value], dtype=dtype).view(np.uint8)
    assert length % unit.size == 0, (op.name, length, unit.size)
    return np.tile(unit, length // unit.size)


# -- rules -------------------------------------------------------------------------------------
def _import(env: dict[Value, Any], op: Op) -> None:
    v = view(op)
    enc = op.properties["result_encoding"]
    assert isinstance(enc, TypeAttr) and isinstance(enc.type, TensorType)
    array = np.ascontiguousarray(np.asarray(env[v.source], dtype=dtype_of(enc.type.element)))
    expected = _shape(enc.type, [env[d] for d in v.result_encoding_dims])
    assert array.shape == expected, (array.shape, expected)
    data = array.reshape(-1).view(np.uint8).copy()
    assert data.size == int(env[v.result_size])
    kind = "owned" if isinstance(op.properties.get("consume"), UnitAttr) else "borrowed"
    env[op.results[0]] = Buffer(data, kind, f"import at {op.location}")


def _export(env: dict[Value, Any], op: Op) -> None:
    v = view(op)
    enc = op.properties["source_encoding"]
    assert isinstance(enc, TypeAttr) and isinstance(enc.type, TensorType)
    env[op.results[0]] = _Export(env[v.source], enc.type, _shape(enc.type, [env[d] for d in v.source_encoding_dims]))


def _alias(env: dict[Value, Any], op: Op) -> None:
    env[op.results[0]] = env[op.operands[0]]


def _copy_of(env: dict[Value, Any], op: Op) -> None:
    source = env[op.operands[0]]
    env[op.results[0]] = Buffer(source.data.copy(), "fresh", f"{op.name} at {op.location}")


def _slice(env: dict[Value, Any], op: Op) -> None:
    source = _buffer(env, op, "source")
    start, end = _int(env, op, "source_offset"), _int(env, op, "source_end")
    assert 0 <= start <= end <= source.data.size and end - start == _int(env, op, "result_size")
    env[op.results[0]] = Buffer(source.data[start:end].copy(), "fresh", f"slice at {op.location}")


def _update(env: dict[Value, Any], op: Op) -> None:
    update = _buffer(env, op, "update")
    target = _written(env, op, "target")
    start, end = _int(env, op, "target_offset"), _int(env, op, "target_end")
    assert end - start == update.data.size
    target.data[start:end] = update.data
    env[op.results[0]] = target


def _copy(env: dict[Value, Any], op: Op) -> None:
    source = _buffer(env, op, "source")
    so, se = _int(env, op, "source_offset"), _int(env, op, "source_end")
    to, te = _int(env, op, "target_offset"), _int(env, op, "target_end")
    n = _int(env, op, "length")
    assert se - so == n == te - to
    chunk = source.data[so:se].copy()
    target = _written(env, op, "target")
    target.data[to:te] = chunk
    env[op.results[0]] = target


def _fill(env: dict[Value, Any], op: Op) -> None:
    target = _written(env, op, "target")
    start, end = _int(env, op, "target_offset"), _int(env, op, "target_end")
    assert end - start == _int(env, op, "target_length")
    target.data[start:end] = _pattern(env[_group(op, "value")[0]], op, end - start)
    env[op.results[0]] = target


def _splat(env: dict[Value, Any], op: Op) -> None:
    size = _int(env, op, "result_size")
    env[op.results[0]] = Buffer(_pattern(env[_group(op, "value")[0]], op, size), "fresh", f"splat at {op.location}")


def _alloca(env: dict[Value, Any], op: Op) -> None:
    size = _int(env, op, "storage_size")
    env[op.results[0]] = Buffer(np.full(size, POISON, dtype=np.uint8), "fresh", f"alloca at {op.location}")


def _constant(env: dict[Value, Any], op: Op) -> None:
    data = np.ascontiguousarray(dense_to_numpy(op.properties["value"])).reshape(-1).view(np.uint8).copy()
    assert data.size == _int(env, op, "result_size")
    env[op.results[0]] = Buffer(data, "constant", f"constant at {op.location}")


def _load(env: dict[Value, Any], op: Op) -> None:
    source = _buffer(env, op, "source")
    offset = _int(env, op, "source_offset")
    dtype = dtype_of(op.results[0].type)
    env[op.results[0]] = np.frombuffer(source.data[offset : offset + dtype.itemsize].tobytes(), dtype=dtype)[0].item()


def _store(env: dict[Value, Any], op: Op) -> None:
    target = _written(env, op, "target")
    offset = _int(env, op, "target_offset")
    value_type = _group(op, "value")[0].type
    raw = np.array([env[_group(op, "value")[0]]], dtype=dtype_of(value_type)).view(np.uint8)
    target.data[offset : offset + raw.size] = raw
    env[op.results[0]] = target


def _dispatch(env: dict[Value, Any], op: Op) -> None:
    spec = spec_of(op)
    assert spec is not None
    entries = op.properties["entry_points"]
    symbol = entries.elements[0] if isinstance(entries, ArrayAttr) else entries
    assert isinstance(symbol, SymbolRefAttr)
    kernel = _KERNELS[0].lookup(symbol)
    assert kernel is not None, symbol
    bindings = [a.type for a in op.attributes["streamproof.binding_types"].elements]  # type: ignore[union-attr]
    operands = _group(op, "resource_operands")
    n_dims = sum(t.dynamic_dims for t in bindings)
    trailing = [int(env[v]) for v in operands[len(operands) - n_dims :]] if n_dims else []
    dims = iter(trailing)
    offsets = iter(_group(op, "resource_operand_offsets"))
    ends = iter(_group(op, "resource_operand_ends"))
    base = spec.operand_offset(op, "resource_operands")
    ties = {spec.tied_operand(op, i): i for i in range(len(op.results)) if spec.tied_operand(op, i) is not None}
    types = iter(bindings)
    inputs: list[np.ndarray] = []
    scalars: list[Any] = []
    tied_arrays: dict[int, np.ndarray] = {}
    tied_buffers: dict[int, Buffer] = {}
    for j, v in enumerate(operands[: len(operands) - n_dims]):
        if not isinstance(v.type, ResourceType):
            scalars.append(env[v])
            continue
        buf = env[v]
        start, end = int(env[next(offsets)]), int(env[next(ends)])
        t = next(types)
        shape = _shape(t, [next(dims) for _ in range(t.dynamic_dims)])
        dtype = dtype_of(t.element)
        if base + j in ties:
            written = _written_operand(env, op, v)
            tied_buffers[base + j] = written
            array = written.data[start:end].view(dtype).reshape(shape)
            tied_arrays[base + j] = array
        else:
            array = buf.data[start:end].copy().view(dtype).reshape(shape)
            array.flags.writeable = False
        inputs.append(array)
    results: list[Any] = [None] * len(op.results)
    fresh: list[np.ndarray] = []
    for i in range(len(op.results)):
        tie = spec.tied_operand(op, i)
        if tie is not None:
            results[i] = tied_buffers[tie]
            continue
        t = next(types)
        shape = _shape(t, [next(dims) for _ in range(t.dynamic_dims)])
        dtype = dtype_of(t.element)
        data = np.full(int(np.prod(shape, dtype=np.int64)) * dtype.itemsize, POISON, dtype=np.uint8)
        results[i] = Buffer(data, "fresh", f"dispatch result at {op.location}")
        fresh.append(data.view(dtype).reshape(shape))
    outputs = [tied_arrays[k] for k in sorted(tied_arrays)] + fresh
    kernel(inputs, scalars, outputs)
    for r, value in zip(op.results, results):
        env[r] = value


_RULES = {
    "stream.tensor.import": _import,
    "stream.tensor.export": _export,
    "stream.async.cast": _alias,
    "stream.async.barrier": _alias,
    "stream.async.transfer": _copy_of,
    "stream.async.clone": _copy_of,
    "stream.async.slice": _slice,
    "stream.async.update": _update,
    "stream.async.copy": _copy,
    "stream.async.fill": _fill,
    "stream.async.splat": _splat,
    "stream.async.alloca": _alloca,
    "stream.async.constant": _constant,
    "stream.async.load": _load,
    "stream.async.store": _store,
    "stream.async.dispatch": _dispatch,
}
