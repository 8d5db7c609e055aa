"""Random input-level programs with an `scf.for` loop and `scf.if` branches.

A drawn program (`input_loop_programs()`) is a `func.func @main` on statically shaped tensors of
one shape `SxT` (so that any value can stand for any other), on one or two devices:

    values computed before the loop (dispatches on the arguments)
    %r:K = scf.for %i = %c0 to %n step %c1 iter_args(...) -> (...) {
      dispatches on the carried values, on values from before the loop, on one another;
      in-place (tied) dispatches, row updates `flow.tensor.update` at row min(%i, S-1),
      transfers to the other device and work there, and optionally an `scf.if` on a value
      read back from a device (`flow.tensor.load`, `arith.cmpf`)
      scf.yield ...
    }
    optionally an `scf.if` after the loop, on a value read back from a loop result
    return ...

Everything is valid by construction (indices are clamped, shapes agree), so a pass or the
verifier rejecting one is a bug. The trip count is an argument (`RandomProgram.args`, drawn in
0..3), so zero-trip loops are drawn too.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hypothesis import strategies as st
from strategies import ArgSpec, RandomProgram

__all__ = ["input_loop_programs"]

UNARY = ("relu", "tanh", "gelu")  # the one-operand kernels of the builtin registry
BINARY = ("add", "mul")


@dataclass
class _Value:
    name: str
    device: str


@dataclass
class _Builder:
    shape: tuple[int, int]
    devices: tuple[str, ...]
    consts: dict[str, str] = field(default_factory=dict)
    counter: int = 0

    @property
    def type(self) -> str:
        return f"tensor<{self.shape[0]}x{self.shape[1]}xf32>"

    @property
    def row_type(self) -> str:
        return f"tensor<1x{self.shape[1]}xf32>"

    def fresh(self, prefix: str = "v") -> str:
        self.counter += 1
        return f"%{prefix}{self.counter}"

    def index(self, value: int) -> str:
        name = f"%c{value}"
        self.consts.setdefault(name, f"  {name} = arith.constant {value} : index")
        return name

    def on_attr(self, device: str, trailing: bool = False) -> str:
        if device == self.devices[0]:
            return ""
        attr = f"{{stream.affinity = #hal.device.affinity<@{device}>}}"
        return f" attributes {attr}" if trailing else f" {attr}"

    def on(self, lines: list[str], pool: list[_Value], v: _Value, device: str) -> _Value:
        """`v` on `device` (an explicit transfer when it lives elsewhere)."""
        if v.device == device:
            return v
        name = self.fresh("t")
        lines.append(f"  {name} = flow.tensor.transfer {v.name} : {self.type} to #hal.device.affinity<@{device}>")
        out = _Value(name, device)
        pool.append(out)
        return out


@st.composite
def _op(draw: st.DrawFn, b: _Builder, lines: list[str], pool: list[_Value], row_index: str | None) -> None:
    """One op on values of `pool`, appended to `lines`; its result joins the pool."""
    kinds = ["unary", "binary", "tied"] + (["update"] if row_index is not None else [])
    kind = draw(st.sampled_from(kinds))
    device = draw(st.sampled_from(b.devices))
    x = b.on(lines, pool, draw(st.sampled_from(pool)), device)
    name = b.fresh()
    if kind == "unary":
        lines.append(f"  {name} = flow.dispatch @{draw(st.sampled_from(UNARY))}({x.name}){b.on_attr(device)} : ({b.type}) -> {b.type}")
    elif kind == "tied":
        lines.append(f"  {name} = flow.dispatch @{draw(st.sampled_from(UNARY))}({x.name}){b.on_attr(device)} : ({b.type}) -> {x.name}")
    elif kind == "binary":
        y = b.on(lines, pool, draw(st.sampled_from(pool)), device)
        lines.append(f"  {name} = flow.dispatch @{draw(st.sampled_from(BINARY))}({x.name}, {y.name}){b.on_attr(device)} : ({b.type}, {b.type}) -> {b.type}")
    else:
        # A row of another value written into row min(%i, S-1) of `x`, in place.
        y = b.on(lines, pool, draw(st.sampled_from(pool)), device)
        row = b.fresh("row")
        c0, c1, ct = b.index(0), b.index(1), b.index(b.shape[1])
        lines.append(f"  {row} = flow.tensor.slice {y.name}[{c0}, {c0} for {c1}, {ct}] : {b.type} -> {b.row_type}{b.on_attr(device, True)}")
        lines.append(f"  {name} = flow.tensor.update {row}, {x.name}[{row_index}, {c0}] : {b.row_type} -> {x.name} as {b.type}{b.on_attr(device, True)}")
    pool.append(_Value(name, device))


@st.composite
def _branch(draw: st.DrawFn, b: _Builder, lines: list[str], pool: list[_Value]) -> _Value:
    """An `scf.if` on a value read back from a device: the `then` branch computes, the `else`
    branch yields a value from outside (or computes too)."""
    tested = draw(st.sampled_from(pool))
    c0 = b.index(0)
    loaded, p, zero = b.fresh("l"), b.fresh("p"), b.fresh("z")
    lines.append(f"  {loaded} = flow.tensor.load {tested.name}[{c0}, {c0}] : {b.type}")
    lines.append(f"  {zero} = arith.constant 0.000000e+00 : f32")
    lines.append(f"  {p} = arith.cmpf ogt, {loaded}, {zero} : f32")
    result = b.fresh("if")
    branches: list[list[str]] = []
    yielded: list[_Value] = []
    for _ in range(2):
        inner: list[str] = []
        inner_pool = list(pool)
        for _ in range(draw(st.integers(0, 2))):
            draw(_op(b, inner, inner_pool, None))
        y = draw(st.sampled_from(inner_pool))
        inner.append(f"  scf.yield {y.name} : {b.type}")
        branches.append(inner)
        yielded.append(y)
    lines.append(f"  {result} = scf.if {p} -> ({b.type}) {{")
    lines += ["  " + line for line in branches[0]]
    lines.append("  } else {")
    lines += ["  " + line for line in branches[1]]
    lines.append("  }")
    out = _Value(result, yielded[0].device)
    pool.append(out)
    return out


@st.composite
def input_loop_programs(draw: st.DrawFn, devices: tuple[str, ...] = ("dev0", "dev1")) -> RandomProgram:
    """A random input-level program with a loop (see the module docstring)."""
    ndev = draw(st.integers(1, len(devices)))
    b = _Builder((draw(st.sampled_from((2, 4))), draw(st.sampled_from((1, 4, 8)))), devices[:ndev])
    nargs = draw(st.integers(1, 3))
    args = [ArgSpec(f"%arg{i}", "tensor", b.shape, attrs=" {iree.abi.consume}" if i == 0 and draw(st.booleans()) else "") for i in range(nargs)]
    args.append(ArgSpec("%n", "index", value=draw(st.integers(0, 3))))
    pool = [_Value(a.name, b.devices[0]) for a in args if a.kind == "tensor"]
    lines: list[str] = []
    for _ in range(draw(st.integers(0, 2))):
        draw(_op(b, lines, pool, None))
    carried = draw(st.integers(1, 2))
    inits = [draw(st.sampled_from(pool)) for _ in range(carried)]
    iter_args = [_Value(b.fresh("acc"), init.device) for init in inits]
    body: list[str] = []
    body_pool = list(pool) + iter_args
    row_index = b.fresh("idx")
    body.append(f"  {row_index} = arith.minui %i, {b.index(b.shape[0] - 1)} : index")
    for _ in range(draw(st.integers(1, 4))):
        draw(_op(b, body, body_pool, row_index))
    if draw(st.booleans()):
        draw(_branch(b, body, body_pool))
    yields = [draw(st.sampled_from(body_pool)) for _ in range(carried)]
    types = ", ".join([b.type] * carried)
    results = b.fresh("r")
    names = [f"{results}#{k}" for k in range(carried)] if carried > 1 else [results]
    head = f"  {results}{':' + str(carried) if carried > 1 else ''} = scf.for %i = {b.index(0)} to %n step {b.index(1)} iter_args("
    head += ", ".join(f"{a.name} = {i.name}" for a, i in zip(iter_args, inits)) + f") -> ({types}) {{"
    lines.append(head)
    lines += ["  " + line for line in body]
    lines.append(f"    scf.yield {', '.join(y.name for y in yields)} : {types}")
    lines.append("  }")
    after = [_Value(n, i.device) for n, i in zip(names, inits)]
    pool += after
    returned = list(after)
    if draw(st.booleans()):
        returned.append(draw(_branch(b, lines, pool)))
    if draw(st.booleans()):
        draw(_op(b, lines, pool, None))
        returned.append(pool[-1])
    params = ", ".join(f"{a.name}: " + ("index" if a.kind == "index" else b.type) + a.attrs for a in args)
    rtypes = ", ".join([b.type] * len(returned))
    text = "\n".join([
        f"func.func @main({params}) -> ({rtypes}) {{",
        *b.consts.values(),
        *lines,
        f"  return {', '.join(v.name for v in returned)} : {rtypes}",
        "}",
        "",
    ])
    return RandomProgram(text, "main", tuple(args), len(returned), b.devices, b.counter)
