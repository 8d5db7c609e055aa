"""A concrete test oracle for the cmd-level passes: run a function at the async level and at the
cmd level on the same inputs and compare what it returns.

This is deliberately independent of `verify/` (which proves the same thing symbolically): the
passes are checked against a second, very small and very literal reading of the semantics.

* Bytes are numpy int16 arrays; -1 marks an undefined byte (fresh allocations, freed memory).
* A dispatch is a deterministic hash of its entry point, its uniform operands and the bytes of
  every binding it may read (`ro` and `rw`, in binding order); each `wo`/`rw` binding gets
  distinct hashed bytes. The async form binds resource operands then untied results, exactly
  as the cmd form does, so both levels compute identical bytes iff storage was planned right.
* Async level: every resource value is an immutable array (value semantics).
  Cmd level: allocations are mutable arrays; a value is (allocation, offset, size); commands run
  in program order; the children of a `cmd.concurrent` run in order, or in reverse order when
  `reverse_waves` is set (a wave whose result depends on the order is a bug); touching freed
  memory raises.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from stream.ir.attributes import ArrayAttr, DenseAttr, FloatAttr, IntegerAttr
from stream.ir.core import Block, Module, Op, Value
from stream.ir.spec import view
from stream.ir.types import FloatType, IntegerType, ResourceType, TensorType, Type
from stream.ir.walk import function

Bytes = np.ndarray


class Fault(Exception):
    """The program did something the semantics forbids (use after free, out of bounds...)."""


def _hash(*parts: object, length: int) -> Bytes:
    h = hashlib.shake_256()
    for p in parts:
        h.update(p.astype("<i2").tobytes() if isinstance(p, np.ndarray) else repr(p).encode())
        h.update(b"|")
    return np.frombuffer(h.digest(length), dtype=np.uint8).astype(np.int16) if length else np.zeros(0, np.int16)


def _scalar_bytes(value: object, type_: Type) -> Bytes:
    if isinstance(type_, IntegerType):
        width = max(1, type_.width // 8)
        raw = int(value).to_bytes(width, "little", signed=int(value) < 0)  # type: ignore[call-overload]
    elif isinstance(type_, FloatType):
        dtype = {16: "<f2", 32: "<f4", 64: "<f8"}[type_.width]
        raw = np.array([value], dtype=dtype).tobytes()
    else:
        raise Fault(f"no byte pattern for {type_}")
    return np.frombuffer(raw, dtype=np.uint8).astype(np.int16)


def _from_bytes(data: Bytes, offset: int, type_: Type) -> object:
    width = max(1, type_.width // 8) if isinstance(type_, (IntegerType, FloatType)) else 8
    raw = data[offset : offset + width]
    if len(raw) < width or (raw < 0).any():
        raise Fault("load of undefined or out-of-bounds bytes")
    return int.from_bytes(bytes(raw.astype(np.uint8)), "little")


def dense_bytes(attr: DenseAttr) -> Bytes:
    t = attr.type
    assert isinstance(t, TensorType) and t.shape is not None
    n = int(np.prod(t.shape)) if t.shape else 1
    body = attr.body.strip()
    if body.startswith('"0x'):  # MLIR's hex form: the raw little-endian bytes
        raw = np.frombuffer(bytes.fromhex(body[3:-1]), dtype=np.uint8).astype(np.int16)
        return np.resize(raw, n * (len(_scalar_bytes(0, t.element)))) if len(raw) < n else raw
    words = re.findall(r"true|false|[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?", body)
    numbers = [{"true": 1, "false": 0}.get(w) if w in ("true", "false") else (float(w) if isinstance(t.element, FloatType) else int(w)) for w in words]
    values = numbers * n if len(numbers) == 1 else numbers
    return np.concatenate([_scalar_bytes(v, t.element) for v in values]) if values else np.zeros(0, np.int16)


@dataclass
class _Env:
    values: dict[Value, object] = field(default_factory=dict)
    scalars: dict[Value, object] = field(default_factory=dict)  # index/int/float values

    def scalar(self, v: Value) -> int:
        return self.scalars[v]  # type: ignore[return-value]


def _eval_scalar(env: _Env, op: Op) -> bool:
    """arith / hal scalar ops; True when handled."""
    if op.name == "arith.constant":
        attr = op.properties["value"]
        if isinstance(attr, (IntegerAttr, FloatAttr)):
            env.scalars[op.results[0]] = attr.value
        return True
    folds: dict[str, Callable[[int, int], int]] = {
        "arith.addi": lambda a, b: a + b, "arith.subi": lambda a, b: a - b,
        "arith.muli": lambda a, b: a * b, "arith.divui": lambda a, b: a // b,
    }
    if op.name in folds:
        a, b = (env.scalar(v) for v in op.operands)
        env.scalars[op.results[0]] = folds[op.name](a, b)
        return True
    return op.name.startswith("hal.") or op.name.startswith("arith.")


def _dispatch_inputs(name: str, uniforms: list[object], reads: list[Bytes]) -> tuple[object, ...]:
    return (name, tuple(uniforms), *reads)


# -- async level ------------------------------------------------------------------------------------
class AsyncInterpreter:
    def __init__(self) -> None:
        self.env = _Env()

    def run(self, block: Block, args: list[object]) -> list[object]:
        for a, v in zip(block.arguments, args):
            (self.env.values if isinstance(v, np.ndarray) else self.env.scalars)[a] = v
        for op in block.ops:
            if op.name in ("util.return", "func.return"):
                return [self.env.values.get(v, self.env.scalars.get(v)) for v in op.operands]
            self.op(op)
        raise Fault("no return")

    def res(self, v: Value) -> Bytes:
        return self.env.values[v]  # type: ignore[return-value]

    def op(self, op: Op) -> None:
        if _eval_scalar(self.env, op):
            return
        rule = getattr(self, "_" + op.name.replace(".", "_"), None)
        if rule is None:
            if op.name.startswith("stream.timepoint.") and op.name != "stream.timepoint.await":
                return
            raise Fault(f"async interpreter: no rule for {op.name}")
        rule(op, view(op))

    def _region(self, op: Op, v) -> list[Bytes]:  # type: ignore[no-untyped-def]
        body = op.regions[0].blocks[0]
        for arg, outer in zip(body.arguments, v.resource_operands):
            self.env.values[arg] = self.res(outer)
        for inner in body.ops[:-1]:
            self.op(inner)
        yielded = body.ops[-1].operands[: len(body.ops[-1].operands) // 2]
        return [self.res(y) for y in yielded]

    def _stream_async_execute(self, op: Op, v) -> None:  # type: ignore[no-untyped-def]
        for r, value in zip(v.results, self._region(op, v)):
            self.env.values[r] = value

    def _stream_async_concurrent(self, op: Op, v) -> None:  # type: ignore[no-untyped-def]
        for r, value in zip(op.results, self._region(op, v)):
            self.env.values[r] = value

    def _stream_timepoint_await(self, op: Op, v) -> None:  # type: ignore[no-untyped-def]
        for r, x in zip(op.results, v.resource_operands):
            self.env.values[r] = self.res(x)

    def _stream_tensor_import(self, op: Op, v) -> None:  # type: ignore[no-untyped-def]
        self.env.values[op.results[0]] = self.env.values[v.source]

    def _stream_tensor_export(self, op: Op, v) -> None:  # type: ignore[no-untyped-def]
        self.env.values[op.results[0]] = self.res(v.source)

    def _stream_async_splat(self, op: Op, v) -> None:  # type: ignore[no-untyped-def]
        pattern = _scalar_bytes(self.env.scalars[v.value], v.value.type)
        n = self.env.scalar(v.result_size)
        self.env.values[op.results[0]] = np.resize(pattern, n).astype(np.int16)

    def _stream_async_alloca(self, op: Op, v) -> None:  # type: ignore[no-untyped-def]
        self.env.values[op.results[0]] = np.full(self.env.scalar(v.storage_size), -1, np.int16)

    def _stream_async_constant(self, op: Op, v) -> None:  # type: ignore[no-untyped-def]
        self.env.values[op.results[0]] = dense_bytes(v.value)

    def _stream_async_fill(self, op: Op, v) -> None:  # type: ignore[no-untyped-def]
        out = self.res(v.target).copy()
        o, n = self.env.scalar(v.target_offset), self.env.scalar(v.target_length)
        out[o : o + n] = np.resize(_scalar_bytes(self.env.scalars[v.value], v.value.type), n)
        self.env.values[op.results[0]] = out

    def _copy_into(self, target: Bytes, offset: int, data: Bytes) -> Bytes:
        out = target.copy()
        if offset + len(data) > len(out):
            raise Fault("write out of bounds")
        out[offset : offset + len(data)] = data
        return out

    def _stream_async_update(self, op: Op, v) -> None:  # type: ignore[no-untyped-def]
        self.env.values[op.results[0]] = self._copy_into(self.res(v.target), self.env.scalar(v.target_offset), self.res(v.update))

    def _stream_async_copy(self, op: Op, v) -> None:  # type: ignore[no-untyped-def]
        so, n = self.env.scalar(v.source_offset), self.env.scalar(v.length)
        data = self.res(v.source)[so : so + n]
        self.env.values[op.results[0]] = self._copy_into(self.res(v.target), self.env.scalar(v.target_offset), data)

    def _stream_async_slice(self, op: Op, v) -> None:  # type: ignore[no-untyped-def]
        so, se = self.env.scalar(v.source_offset), self.env.scalar(v.source_end)
        self.env.values[op.results[0]] = self.res(v.source)[so:se].copy()

    def _stream_async_clone(self, op: Op, v) -> None:  # type: ignore[no-untyped-def]
        self.env.values[op.results[0]] = self.res(v.source).copy()

    _stream_async_transfer = _stream_async_clone

    def _stream_resource_subview(self, op: Op, v) -> None:  # type: ignore[no-untyped-def]
        o, n = self.env.scalar(v.source_offset), self.env.scalar(v.result_size)
        self.env.values[op.results[0]] = self.res(v.source)[o : o + n].copy()

    def _stream_async_store(self, op: Op, v) -> None:  # type: ignore[no-untyped-def]
        data = _scalar_bytes(self.env.scalars[v.value], v.value.type)
        self.env.values[op.results[0]] = self._copy_into(self.res(v.target), self.env.scalar(v.target_offset), data)

    def _stream_async_load(self, op: Op, v) -> None:  # type: ignore[no-untyped-def]
        o = self.env.scalar(v.source_offset)
        self.env.scalars[op.results[0]] = _from_bytes(self.res(v.source), o, op.results[0].type)

    def _stream_async_barrier(self, op: Op, v) -> None:  # type: ignore[no-untyped-def]
        self.env.values[op.results[0]] = self.res(v.source)

    def _stream_async_dispatch(self, op: Op, v) -> None:  # type: ignore[no-untyped-def]
        spec = v.spec
        first = spec.operand_offset(op, "resource_operands")
        tied = {spec.tied_operand(op, i): i for i in range(len(op.results))}
        uniforms, reads, ranges = [], [], []
        k = 0
        for i, x in enumerate(v.resource_operands):
            if not isinstance(x.type, ResourceType):
                uniforms.append(self.env.scalars[x])
                continue
            o, n = self.env.scalar(v.resource_operand_offsets[k]), self.env.scalar(v.resource_operand_lengths[k])
            reads.append(self.res(x)[o : o + n])
            ranges.append((first + i, o, n))
            k += 1
        key = _dispatch_inputs(str(v.entry_points), uniforms, reads)
        binding = 0
        for index, o, n in ranges:
            if index in tied:
                self.env.values[op.results[tied[index]]] = self._copy_into(self.res(op.operands[index]), o, _hash(*key, binding, length=n))
            binding += 1
        for i, r in enumerate(op.results):
            if spec.tied_operand(op, i) is None:
                self.env.values[r] = _hash(*key, binding, length=self.env.scalar(v.result_sizes[i]))
                binding += 1


# -- cmd level -------------------------------------------------------------------------------------
@dataclass
class _Ref:
    alloc: int
    offset: int
    size: int


class CmdInterpreter:
    def __init__(self, reverse_waves: bool = False) -> None:
        self.env = _Env()
        self.memory: dict[int, Bytes] = {}
        self.freed: set[int] = set()
        self.reverse_waves = reverse_waves

    def new(self, data: Bytes) -> _Ref:
        key = len(self.memory)
        self.memory[key] = data.copy()
        return _Ref(key, 0, len(data))

    def ref(self, v: Value) -> _Ref:
        return self.env.values[v]  # type: ignore[return-value]

    def read(self, r: _Ref, offset: int, n: int) -> Bytes:
        self._check(r, offset, n)
        return self.memory[r.alloc][r.offset + offset : r.offset + offset + n].copy()

    def write(self, r: _Ref, offset: int, data: Bytes) -> None:
        self._check(r, offset, len(data))
        self.memory[r.alloc][r.offset + offset : r.offset + offset + len(data)] = data

    def _check(self, r: _Ref, offset: int, n: int) -> None:
        if r.alloc in self.freed:
            raise Fault("use after free")
        if offset < 0 or offset + n > r.size:
            raise Fault(f"access [{offset}, {offset + n}) outside {r.size} bytes")

    def run(self, block: Block, args: list[object]) -> list[object]:
        for a, v in zip(block.arguments, args):
            if isinstance(v, np.ndarray):
                self.env.values[a] = self.new(v)
            else:
                self.env.scalars[a] = v
        for op in block.ops:
            if op.name in ("util.return", "func.return"):
                out: list[object] = []
                for v in op.operands:
                    r = self.env.values.get(v)
                    out.append(self.read(r, 0, r.size) if isinstance(r, _Ref) else self.env.scalars.get(v))
                return out
            self.op(op)
        raise Fault("no return")

    def op(self, op: Op) -> None:
        if _eval_scalar(self.env, op):
            return
        rule = getattr(self, "_" + op.name.replace(".", "_"), None)
        if rule is None:
            if op.name in ("stream.timepoint.join", "stream.timepoint.immediate", "stream.yield", "stream.resource.retain"):
                return
            raise Fault(f"cmd interpreter: no rule for {op.name}")
        rule(op, view(op))

    def _stream_tensor_import(self, op: Op, v) -> None:  # type: ignore[no-untyped-def]
        self.env.values[op.results[0]] = self.env.values[v.source]

    def _stream_tensor_export(self, op: Op, v) -> None:  # type: ignore[no-untyped-def]
        self.env.values[op.results[0]] = self.ref(v.source)

    def _stream_timepoint_await(self, op: Op, v) -> None:  # type: ignore[no-untyped-def]
        for r, x in zip(op.results, v.resource_operands):
            self.env.values[r] = self.ref(x)

    def _stream_resource_alloca(self, op: Op, v) -> None:  # type: ignore[no-untyped-def]
        self.env.values[op.results[0]] = self.new(np.full(self.env.scalar(v.storage_size), -1, np.int16))

    def _stream_resource_dealloca(self, op: Op, v) -> None:  # type: ignore[no-untyped-def]
        r = self.ref(v.operand)
        if r.alloc in self.freed:
            raise Fault("double free")
        self.freed.add(r.alloc)

    def _stream_resource_constants(self, op: Op, v) -> None:  # type: ignore[no-untyped-def]
        values = v.values
        assert isinstance(values, ArrayAttr)
        for r, attr in zip(v.results, values.elements):
            self.env.values[r] = self.new(dense_bytes(attr))

    def _stream_resource_pack(self, op: Op, v) -> None:  # type: ignore[no-untyped-def]
        # The simplest correct layout: every slice gets bytes of its own, 64-byte aligned.
        cursor = self.env.scalar(v.offset) if v.offset is not None else 0
        for result, size in zip(op.results[1:], v.dynamic_slice_sizes):
            self.env.scalars[result] = cursor
            cursor += -(-self.env.scalar(size) // 64) * 64
        self.env.scalars[op.results[0]] = cursor

    def _stream_resource_subview(self, op: Op, v) -> None:  # type: ignore[no-untyped-def]
        base = self.ref(v.source)
        o, n = self.env.scalar(v.source_offset), self.env.scalar(v.result_size)
        self.env.values[op.results[0]] = _Ref(base.alloc, base.offset + o, n)

    def _stream_resource_load(self, op: Op, v) -> None:  # type: ignore[no-untyped-def]
        ref = self.ref(v.source)
        self.env.scalars[op.results[0]] = _from_bytes(self.read(ref, 0, ref.size), self.env.scalar(v.source_offset), op.results[0].type)

    def _stream_resource_store(self, op: Op, v) -> None:  # type: ignore[no-untyped-def]
        self.write(self.ref(v.target), self.env.scalar(v.target_offset), _scalar_bytes(self.env.scalars[v.value], v.value.type))

    def _stream_cmd_execute(self, op: Op, v) -> None:  # type: ignore[no-untyped-def]
        body = op.regions[0].blocks[0]
        for arg, outer in zip(body.arguments, v.resource_operands):
            self.env.values[arg] = self.ref(outer)
        self._block(body.ops[:-1])

    def _block(self, ops: tuple[Op, ...] | list[Op]) -> None:
        for inner in ops:
            self.op(inner)

    def _stream_cmd_serial(self, op: Op, v) -> None:  # type: ignore[no-untyped-def]
        self._block(op.regions[0].blocks[0].ops[:-1])

    def _stream_cmd_concurrent(self, op: Op, v) -> None:  # type: ignore[no-untyped-def]
        children = list(op.regions[0].blocks[0].ops[:-1])
        self._block(children[::-1] if self.reverse_waves else children)

    def _stream_cmd_fill(self, op: Op, v) -> None:  # type: ignore[no-untyped-def]
        n = self.env.scalar(v.target_length)
        pattern = _scalar_bytes(self.env.scalars[v.value], v.value.type)
        self.write(self.ref(v.target), self.env.scalar(v.target_offset), np.resize(pattern, n).astype(np.int16))

    def _stream_cmd_copy(self, op: Op, v) -> None:  # type: ignore[no-untyped-def]
        n = self.env.scalar(v.length)
        data = self.read(self.ref(v.source), self.env.scalar(v.source_offset), n)
        self.write(self.ref(v.target), self.env.scalar(v.target_offset), data)

    def _stream_cmd_flush(self, op: Op, v) -> None:  # type: ignore[no-untyped-def]
        self.read(self.ref(v.target), self.env.scalar(v.target_offset), self.env.scalar(v.target_length))

    _stream_cmd_invalidate = _stream_cmd_flush
    _stream_cmd_discard = _stream_cmd_flush

    def _stream_cmd_dispatch(self, op: Op, v) -> None:  # type: ignore[no-untyped-def]
        uniforms = [self.env.scalars[u] for u in v.uniform_operands]
        bindings = []
        for r, o, n, access in zip(v.resources, v.resource_offsets, v.resource_lengths, v.resource_accesses.elements):
            bindings.append((self.ref(r), self.env.scalar(o), self.env.scalar(n), access.value))
        reads = [self.read(ref, o, n) for ref, o, n, access in bindings if access & 1]
        key = _dispatch_inputs(str(v.entry_points), uniforms, reads)
        for i, (ref, o, n, access) in enumerate(bindings):
            if access & 2:
                self.write(ref, o, _hash(*key, i, length=n))


def run_function(module: Module, name: str, args: list[object], level: str, reverse_waves: bool = False) -> list[object]:
    f = function(module, name)
    assert f is not None, name
    interp: AsyncInterpreter | CmdInterpreter = AsyncInterpreter() if level == "async" else CmdInterpreter(reverse_waves)
    return interp.run(f.body, args)


def random_inputs(module: Module, name: str, sizes: dict[int, int], scalars: dict[int, int] | None = None, seed: int = 0) -> list[object]:
    """Arguments for `name`: random bytes for resource/buffer-view arguments (`sizes[i]` bytes for
    argument i), `scalars[i]` (default 3) for index and integer arguments."""
    f = function(module, name)
    assert f is not None
    rng = np.random.default_rng(seed)
    out: list[object] = []
    for i, a in enumerate(f.arguments):
        if _is_scalar(a.type):
            out.append((scalars or {}).get(i, 3))
        else:
            out.append(rng.integers(0, 256, sizes.get(i, 0)).astype(np.int16))
    return out


def _is_scalar(t: Type) -> bool:
    from stream.ir.types import IndexType

    return isinstance(t, (IndexType, IntegerType))


def assert_refines(before: Module, after: Module, name: str, args: list[object]) -> None:
    """`after` (cmd level) returns exactly what `before` (async level) returns, whatever order
    the commands of each wave run in."""
    expected = run_function(before, name, args, "async")
    for reverse in (False, True):
        got = run_function(after, name, args, "cmd", reverse_waves=reverse)
        assert len(got) == len(expected)
        for i, (e, g) in enumerate(zip(expected, got)):
            if isinstance(e, np.ndarray):
                assert isinstance(g, np.ndarray) and np.array_equal(e, g), f"result #{i} differs (reverse_waves={reverse})"
            else:
                assert e == g, f"result #{i}: {e} != {g}"


def infer_arg_sizes(module: Module, name: str, scalars: dict[int, int] | None = None) -> dict[int, int]:
    """Byte sizes of a function's resource (or buffer view) arguments, read off the ops that
    pair them with a size: captures, awaits and imports. `scalars` gives the index arguments."""
    from stream.ir.spec import spec_of
    from stream.ir.walk import constant_int, defining_ops

    f = function(module, name)
    assert f is not None
    defs = defining_ops(f.body)
    env = {a: (scalars or {}).get(i, 3) for i, a in enumerate(f.arguments) if _is_scalar(a.type)}

    def value_of(v: Value) -> int | None:
        if v in env:
            return env[v]
        op = defs.get(v)
        if op is not None and op.name in ("arith.muli", "arith.addi"):
            a, b = (value_of(x) for x in op.operands)
            if a is not None and b is not None:
                return a * b if op.name == "arith.muli" else a + b
        return constant_int(v, defs)

    sizes: dict[int, int] = {}
    for op in f.body.ops:
        spec = spec_of(op)
        if spec is None:
            continue
        pairs: list[tuple[Value, Value]] = []
        if op.name == "stream.tensor.import":
            v = view(op)
            pairs.append((v.source, v.result_size))
        elif "resource_operands" in spec._operand_index and "resource_operand_sizes" in spec._operand_index:
            resources = [x for x in spec.operand_group(op, "resource_operands") if isinstance(x.type, ResourceType)]
            pairs.extend(zip(resources, spec.operand_group(op, "resource_operand_sizes")))
        else:
            for group in ("source", "target", "update", "operand"):
                if group in spec._operand_index and f"{group}_size" in spec._operand_index:
                    pairs.append((spec.operand_group(op, group)[0], spec.operand_group(op, f"{group}_size")[0]))
        for value, size in pairs:
            if value in f.arguments:
                n = value_of(size)
                if n is not None:
                    sizes.setdefault(f.arguments.index(value), n)
    return sizes
