"""The reference interpreter: runs an input-level program sequentially with numpy.

It gives an input program its meaning - value semantics, one op after the other, no devices, no
timepoints - with the same kernels the executor uses (runtime.kernels), so `streamproof run --check`
can compare a compiled, scheduled execution against it. Per-op behaviour lives in `REFERENCE_RULES`,
keyed by op name. Control flow - several blocks with `cf.br` / `cf.cond_br` / `cf.switch`, and
`scf.for` / `if` / `while` / `execute_region` / `index_switch` - has the executor's meaning: both run
the rules of `runtime.control_flow`.

Globals: a `ReferenceInterpreter` is one loaded module. Its `util.initializer`s run once, in
module order, before the first call from outside; `util.global.load` / `util.global.store` read
and write its globals (a global nothing stored yet holds its `initial_value`), so a sequence of
calls on one interpreter (`run_reference_calls`) carries the state of mutable globals from one
call to the next, as the executor's session does.

Value semantics: a tensor value never changes. A dispatch result tied to an operand (`-> %x`) is
computed in place in a *copy* of the operand, so a program that (wrongly) keeps using `%x` still
sees its old value here; the compiled program must do the same (MaterializeCopyOnWrite clones when
needed). `flow.tensor.empty` and untied dispatch outputs start as the same POISON bytes the
executor uses for fresh storage, so reading them behaves the same in both.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from runtime.control_flow import REGION_RULES, run_blocks
from runtime.host_ops import global_initial_value, global_name
from runtime.kernels import DEFAULT_REGISTRY, KernelRegistry
from runtime.memory import POISON, dtype_of
from runtime.scalars import ARITH_OPS, COMPARE_OPS, eval_arith, eval_compare, host_value_of_constant
from runtime.status import MAX_CALL_DEPTH, call_depth_exceeded
from runtime.values import InputError
from stream.dialect.common import SYNTAX_ONLY
from stream.ir.attributes import ArrayAttr, StringAttr, SymbolRefAttr
from stream.ir.core import UNKNOWN_LOC, Location, Module, Op, Value
from stream.ir.diagnostics import DiagnosticError
from stream.ir.rule_table import Requirement, RuleTable, levels_of, traits_of
from stream.ir.spec import spec_of, view
from stream.ir.types import TensorType
from stream.ir.walk import Function, function, functions

__all__ = ["run_reference", "run_reference_calls", "REFERENCE_RULES", "ReferenceInterpreter", "ReferenceKernelError", "Activation"]


class ReferenceKernelError(RuntimeError):
    """A kernel raised while the reference interpreter ran it."""


class _Return(Exception):
    def __init__(self, values: list[Any]) -> None:
        self.values = values


def _poison(t: TensorType, shape: tuple[int, ...]) -> np.ndarray:
    dtype = dtype_of(t.element)
    n = int(np.prod(shape, dtype=np.int64))
    return np.full(n * dtype.itemsize, POISON, dtype=np.uint8).view(dtype).reshape(shape)


class ReferenceInterpreter:
    """Sequential numpy execution of input-level functions."""

    def __init__(self, module: Module, kernels: KernelRegistry | None = None) -> None:
        self.module = module
        self.kernels = kernels if kernels is not None else DEFAULT_REGISTRY
        self.call_stack: list[str] = []  # the functions being run, outermost first
        self.globals: dict[str, Any] = {}  # util.global name -> its value (value semantics: never written in place)
        self.initialized = False

    def initialize(self) -> None:
        """Run the module's `util.initializer`s, in module order (once; `call` does it first)."""
        if self.initialized:
            return
        self.initialized = True
        for op in self.module.ops:
            if op.name != "util.initializer" or not op.regions:
                continue
            what = f"the util.initializer at {op.location}"
            self.call_stack.append(what)
            try:
                out = run_blocks(Activation(self, {}, op.location), op.regions[0], what, op.location)
            except _Return:
                continue
            finally:
                self.call_stack.pop()
            raise DiagnosticError.at(out.op.location, f"{what} ends with '{out.op.name}', not a return")

    def call(self, name: str, args: list[Any], where: str = "") -> list[Any]:
        """Run function `name` on `args`; `where` is the calling op (for a call from the program).
        The module's initializers run before the first call."""
        if not self.initialized:
            self.initialize()
        f = function(self.module, name)
        if f is None:
            known = ", ".join("@" + g.name for g in functions(self.module)) or "none"
            raise DiagnosticError.at(self.module.location, f"no function @{name} in the module (functions: {known})")
        if len(self.call_stack) >= MAX_CALL_DEPTH:
            raise call_depth_exceeded(self.call_stack, name, where)
        if len(args) != len(f.arguments):
            raise InputError(f"@{name} takes {len(f.arguments)} argument(s), {len(args)} given")
        env: dict[Value, Any] = {}
        for i, (arg, value) in enumerate(zip(f.arguments, args)):
            env[arg] = _check_argument(f, i, arg, value)
        self.call_stack.append(name)
        try:
            out = run_blocks(Activation(self, env, f.op.location), f.op.regions[0], f"@{name}", f.op.location)
        except _Return as r:
            return r.values
        finally:
            self.call_stack.pop()
        raise DiagnosticError.at(out.op.location, f"@{name} ends with '{out.op.name}', not a return")


class Activation:
    """One activation of a function in the reference interpreter: the `runtime.control_flow.Machine`
    its blocks and `scf` regions run on (values in `env`, ops by `REFERENCE_RULES`)."""

    __slots__ = ("interpreter", "env", "location")

    def __init__(self, interpreter: ReferenceInterpreter, env: dict[Value, Any], location: Location = UNKNOWN_LOC) -> None:
        self.interpreter = interpreter
        self.env = env
        self.location = location  # the op running (for diagnostics)

    def value(self, v: Value) -> Any:
        try:
            return self.env[v]
        except KeyError:
            raise DiagnosticError.at(self.location, f"value {v} used before it is defined") from None

    def execute(self, op: Op) -> None:
        rule = REFERENCE_RULES.get(op.name)
        if rule is None:
            raise DiagnosticError.at(op.location, f"'{op.name}' is not an input-level op the reference interpreter runs")
        rule(self.interpreter, self.env, op)

    def run_ops(self, ops: Sequence[Op]) -> None:
        for op in ops:
            self.execute(op)

    def bind(self, targets: Sequence[Value], values: Sequence[Any], sources: Sequence[Value | None]) -> None:
        env = self.env
        for t, v in zip(targets, values):
            env[t] = v

    def decide(self, v: Value) -> Any:
        return self.value(v)


def _check_argument(f: Function, i: int, arg: Value, value: Any) -> Any:
    t = arg.type
    if isinstance(t, TensorType):
        arr = np.asarray(value)
        if t.shape is not None and (arr.ndim != len(t.shape) or any(d is not None and d != s for d, s in zip(t.shape, arr.shape))):
            raise InputError(f"argument {i} of @{f.name} must be {t}, got an array of shape {arr.shape}")
        want = dtype_of(t.element)
        if arr.dtype != want:
            raise InputError(f"argument {i} of @{f.name} must hold {t.element} ({want}), got {arr.dtype}")
        view_ = arr.view()
        view_.flags.writeable = False
        return view_
    return value


def run_reference(module: Module, args: list[Any], function_name: str, kernels: KernelRegistry | None = None) -> list[Any]:
    """Run `function_name` of an input-level module on `args` (numpy arrays and scalars)."""
    return ReferenceInterpreter(module, kernels).call(function_name, args)


def run_reference_calls(module: Module, calls: Sequence[Sequence[Any]], function_name: str,
                        kernels: KernelRegistry | None = None) -> list[list[Any]]:
    """Call `function_name` once per argument list of `calls`, in order, on one loaded module:
    the initializers run once, and mutable globals keep what one call stored for the next."""
    interpreter = ReferenceInterpreter(module, kernels)
    return [interpreter.call(function_name, list(args)) for args in calls]


# -- rules ---------------------------------------------------------------------------------------
Rule = Callable[[ReferenceInterpreter, dict[Value, Any], Op], None]


def input_op(spec: Any) -> bool:
    """ops of the input level (not symbols, executable contents or non-return terminators)"""
    traits = traits_of(spec)
    if "input" not in levels_of(spec) or traits & {"symbol", "isolated"}:
        return False
    return "return" in traits or "terminator" not in traits


REFERENCE_RULES: RuleTable[Rule] = RuleTable(
    "REFERENCE_RULES",
    """Evaluate the input-level op on numpy values: read its operands from `env`, bind its
    results (`fn(interpreter, env, op)`, registered with `@rule(name)`). An op without a rule is
    refused (exit 2, "not an input-level op the reference interpreter runs").""",
    policy="refuse",
    requires=Requirement(where=input_op, unless=frozenset({
        "stream.binding.subspan", "stream.dispatch.workgroup.count", "stream.dispatch.workgroup.id", "stream.dispatch.workgroup.size",
        "hal.element_type", "hal.encoding_type", "hal.buffer_view.assert", "util.optimization_barrier",
    }) | SYNTAX_ONLY, why="executable contents; the hal helpers and optimization barriers appear only in lowered programs; "
        "SYNTAX_ONLY ops (stream.dialect.common) are refused as unknown ops"),
)

def rule(*names: str) -> Callable[[Rule], Rule]:
    """Register the rule of the named ops in `REFERENCE_RULES`."""
    return REFERENCE_RULES.register(*names)


def _shape(t: TensorType, dims: list[int]) -> tuple[int, ...]:
    it = iter(dims)
    return tuple(d if d is not None else int(next(it)) for d in t.shape or ())


@rule("arith.constant")
def _constant(ri: ReferenceInterpreter, env: dict[Value, Any], op: Op) -> None:
    value = host_value_of_constant(op.properties["value"], op.results[0].type)
    if isinstance(value, np.ndarray):
        value.flags.writeable = False
    env[op.results[0]] = value


@rule("util.buffer.constant")
def _buffer_constant(ri: ReferenceInterpreter, env: dict[Value, Any], op: Op) -> None:
    value = op.properties.get("value")
    env[op.results[0]] = value.value.encode() if isinstance(value, StringAttr) else str(value).encode()


def _arith(ri: ReferenceInterpreter, env: dict[Value, Any], op: Op) -> None:
    env[op.results[0]] = eval_arith(op, [env[v] for v in op.operands])


for _name in sorted(ARITH_OPS):
    REFERENCE_RULES.add(_name, _arith)


def _compare(ri: ReferenceInterpreter, env: dict[Value, Any], op: Op) -> None:
    env[op.results[0]] = eval_compare(op, [env[v] for v in op.operands])


for _name in sorted(COMPARE_OPS):
    REFERENCE_RULES.add(_name, _compare)


def _region_op(ri: ReferenceInterpreter, env: dict[Value, Any], op: Op) -> None:
    REGION_RULES[op.name](Activation(ri, env, op.location), op)


for _name in sorted(REGION_RULES):  # scf: the executor's rules (runtime.control_flow)
    REFERENCE_RULES.add(_name, _region_op)


@rule("func.return", "util.return")
def _return(ri: ReferenceInterpreter, env: dict[Value, Any], op: Op) -> None:
    raise _Return([np.array(env[v]) if isinstance(env[v], np.ndarray) else env[v] for v in op.operands])


@rule("func.call", "util.call")
def _call(ri: ReferenceInterpreter, env: dict[Value, Any], op: Op) -> None:
    callee = op.properties["callee"]
    name = callee.root if isinstance(callee, SymbolRefAttr) else str(callee)
    for r, value in zip(op.results, ri.call(name, [env[v] for v in op.operands], f"{op.name} @{name} at {op.location}")):
        env[r] = value


@rule("util.global.load")
def _global_load(ri: ReferenceInterpreter, env: dict[Value, Any], op: Op) -> None:
    name = global_name(op)
    if name not in ri.globals:
        ri.globals[name] = _initial_value(ri, op, name)
    env[op.results[0]] = ri.globals[name]


@rule("util.global.store")
def _global_store(ri: ReferenceInterpreter, env: dict[Value, Any], op: Op) -> None:
    value = env[op.operands[0]]
    if isinstance(value, np.ndarray) and value.flags.writeable:
        value = _frozen(np.array(value))
    ri.globals[global_name(op)] = value


def _initial_value(ri: ReferenceInterpreter, op: Op, name: str) -> Any:
    """What a global holds before anything stores it: its `initial_value` (frozen: a value)."""
    value = global_initial_value(ri.module, op, name)
    return _frozen(value) if isinstance(value, np.ndarray) else value


@rule("flow.dispatch")
def _dispatch(ri: ReferenceInterpreter, env: dict[Value, Any], op: Op) -> None:
    v = view(op)
    spec = spec_of(op)
    assert spec is not None
    entries = op.properties.get("entry_points")
    sym = entries.elements[0] if isinstance(entries, ArrayAttr) else entries
    assert isinstance(sym, SymbolRefAttr)
    kernel = ri.kernels.lookup(sym)
    if kernel is None:
        tried = ", ".join(f"'{n}'" for n in KernelRegistry.candidates(sym))
        raise DiagnosticError.at(op.location, f"no kernel for dispatch {sym} (tried {tried}); register one with @streamproof.kernel "
                                 "or pass --kernels FILE.py")
    args = list(v.arguments)
    base = spec.operand_offset(op, "arguments")
    tied: dict[int, int] = {}  # result index -> argument index
    for i in range(len(op.results)):
        t = spec.tied_operand(op, i)
        if t is not None:
            tied[i] = t - base
    inputs: list[np.ndarray] = []
    scalars: list[Any] = []
    in_place: dict[int, np.ndarray] = {}
    for j, a in enumerate(args):
        value = env[a]
        if isinstance(a.type, TensorType):
            if j in tied.values():
                value = np.array(value)  # value semantics: the in-place result works on a copy
                in_place[j] = value
            inputs.append(value)
        else:
            scalars.append(value)
    dims = [int(env[d]) for d in v.result_dims]
    results: list[np.ndarray | None] = [None] * len(op.results)
    for i, r in enumerate(op.results):
        if i in tied:
            results[i] = in_place[tied[i]]
        else:
            rt = r.type
            assert isinstance(rt, TensorType)
            results[i] = _poison(rt, _shape(rt, [dims.pop(0) for _ in range(rt.dynamic_dims)]))
    # Outputs in binding order: in-place results by operand position, then the others in order.
    order = sorted(tied, key=lambda i: tied[i]) + [i for i in range(len(op.results)) if i not in tied]
    outputs = [results[i] for i in order]
    try:
        kernel(inputs, scalars, outputs)  # type: ignore[arg-type]
    except Exception as e:
        raise ReferenceKernelError(f"kernel '{kernel.name}' failed in the reference interpreter at {op.location}: "
                              f"{type(e).__name__}: {e}") from e
    for r, value in zip(op.results, results):
        assert value is not None
        value.flags.writeable = False
        env[r] = value


def _frozen(arr: np.ndarray) -> np.ndarray:
    arr.flags.writeable = False
    return arr


@rule("flow.tensor.transfer", "flow.tensor.clone")
def _copy(ri: ReferenceInterpreter, env: dict[Value, Any], op: Op) -> None:
    env[op.results[0]] = _frozen(np.array(env[op.operands[0]]))


@rule("flow.tensor.splat")
def _splat(ri: ReferenceInterpreter, env: dict[Value, Any], op: Op) -> None:
    v = view(op)
    t = op.results[0].type
    assert isinstance(t, TensorType)
    shape = _shape(t, [int(env[d]) for d in v.result_dims])
    env[op.results[0]] = _frozen(np.full(shape, env[v.value], dtype=dtype_of(t.element)))


@rule("flow.tensor.empty")
def _empty(ri: ReferenceInterpreter, env: dict[Value, Any], op: Op) -> None:
    t = op.results[0].type
    assert isinstance(t, TensorType)
    env[op.results[0]] = _frozen(_poison(t, _shape(t, [int(env[d]) for d in view(op).result_dims])))


def _window(starts: list[int], lengths: list[int], shape: tuple[int, ...], op: Op) -> tuple[slice, ...]:
    for s, n, d in zip(starts, lengths, shape):
        if s < 0 or n < 0 or s + n > d:
            raise DiagnosticError.at(op.location, f"OUT_OF_BOUNDS: [{s}, {s + n}) is outside a dimension of size {d}")
    return tuple(slice(s, s + n) for s, n in zip(starts, lengths))


@rule("flow.tensor.slice")
def _slice(ri: ReferenceInterpreter, env: dict[Value, Any], op: Op) -> None:
    v = view(op)
    src = env[v.source]
    window = _window([int(env[x]) for x in v.start_indices], [int(env[x]) for x in v.lengths], src.shape, op)
    env[op.results[0]] = _frozen(np.array(src[window]))


@rule("flow.tensor.update")
def _update(ri: ReferenceInterpreter, env: dict[Value, Any], op: Op) -> None:
    v = view(op)
    target = np.array(env[v.target])
    update = env[v.update]
    window = _window([int(env[x]) for x in v.start_indices], list(update.shape), target.shape, op)
    target[window] = update
    env[op.results[0]] = _frozen(target)


@rule("flow.tensor.load")
def _load(ri: ReferenceInterpreter, env: dict[Value, Any], op: Op) -> None:
    v = view(op)
    src = env[v.source]
    idx = tuple(int(env[x]) for x in v.indices)
    env[op.results[0]] = src[idx]


@rule("flow.tensor.store")
def _store(ri: ReferenceInterpreter, env: dict[Value, Any], op: Op) -> None:
    v = view(op)
    target = np.array(env[v.target])
    target[tuple(int(env[x]) for x in v.indices)] = env[v.value]
    env[op.results[0]] = _frozen(target)
