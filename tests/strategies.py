"""Hypothesis strategies for random input-level programs.

`programs()` builds acyclic programs *by construction* (every op only uses values that already
exist), so each drawn program is well formed and every failure it provokes is a bug in a pass,
the verifier or the runtime, not in the program. Programs use the kernels of the runtime's
registry (`matmul`, `add`, `mul`, `relu`, `tanh`, `gelu`, `scale`), random shapes (static and
dynamic), several devices with explicit transfers, in-place ties, slices, updates, splats and
dense constants. Shrinking minimises the op count and the shapes.

A drawn `RandomProgram` carries its text (a `func.func @main`) and the arguments a caller must
pass (`ArgSpec`: a tensor shape, or the concrete value of an index argument used as a dynamic
dim), so the runtime can feed it random inputs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hypothesis import strategies as st

__all__ = ["ArgSpec", "RandomProgram", "programs"]

DIMS = (1, 2, 3, 4, 8)
UNARY = ("relu", "tanh", "gelu", "scale")
BINARY = ("add", "mul")


@dataclass(frozen=True)
class ArgSpec:
    """One function argument: a tensor (`shape`, with None for dynamic dims whose values are
    given by the index arguments named in `dims`) or an index argument with a concrete value."""

    name: str
    kind: str  # "tensor" | "index"
    shape: tuple[int | None, ...] = ()
    dims: tuple[str, ...] = ()
    value: int = 0
    attrs: str = ""

    def concrete_shape(self, index_values: dict[str, int]) -> tuple[int, ...]:
        it = iter(self.dims)
        return tuple(index_values[next(it)] if d is None else d for d in self.shape)


@dataclass(frozen=True)
class RandomProgram:
    text: str
    function: str
    args: tuple[ArgSpec, ...]
    results: int
    devices: tuple[str, ...]
    ops: int

    def index_values(self) -> dict[str, int]:
        return {a.name: a.value for a in self.args if a.kind == "index"}


@dataclass
class _Value:
    name: str
    shape: tuple[int | None, ...]  # None = dynamic
    dims: tuple[str, ...]  # index value names for the dynamic dims, in order
    device: str

    @property
    def type(self) -> str:
        return "tensor<" + "".join(("?" if d is None else str(d)) + "x" for d in self.shape) + "f32>"

    @property
    def typed(self) -> str:
        """The type with its dynamic dims, as operands spell it: `tensor<?x4xf32>{%n}`."""
        return self.type + ("{" + ", ".join(self.dims) + "}" if self.dims else "")


@dataclass
class _Builder:
    devices: tuple[str, ...]
    lines: list[str] = field(default_factory=list)
    values: list[_Value] = field(default_factory=list)
    args: list[ArgSpec] = field(default_factory=list)
    consts: dict[str, str] = field(default_factory=dict)
    counter: int = 0
    ops: int = 0

    def fresh(self, prefix: str = "v") -> str:
        self.counter += 1
        return f"%{prefix}{self.counter}"

    def index(self, value: int) -> str:
        name = f"%c{value}"
        if name not in self.consts:
            self.consts[name] = f"  {name} = arith.constant {value} : index"
        return name

    def scalar(self, value: float) -> str:
        name = f"%s{len(self.consts)}"
        self.consts[name] = f"  {name} = arith.constant {value:.6e} : f32"
        return name

    def placement(self, device: str) -> str:
        """The `{stream.affinity = ...}` of an op on `device` (none on the default device)."""
        return "" if device == self.devices[0] else f" {{stream.affinity = #hal.device.affinity<@{device}>}}"

    def trailing(self, device: str) -> str:
        """The same for ops whose syntax ends with `attributes {...}` (flow.tensor.*)."""
        return "" if device == self.devices[0] else f" attributes {{stream.affinity = #hal.device.affinity<@{device}>}}"

    def on(self, v: _Value, device: str) -> _Value:
        """`v` on `device`, inserting an explicit transfer when it lives elsewhere."""
        if v.device == device:
            return v
        name = self.fresh("t")
        self.lines.append(f"  {name} = flow.tensor.transfer {v.name} : {v.typed} to #hal.device.affinity<@{device}>")
        out = _Value(name, v.shape, v.dims, device)
        self.values.append(out)
        self.ops += 1
        return out


def _static(shape: tuple[int | None, ...]) -> bool:
    return all(d is not None for d in shape)


@st.composite
def _op(draw: st.DrawFn, b: _Builder) -> None:
    kind = draw(st.sampled_from(("unary", "binary", "matmul", "transfer", "slice", "update", "splat", "constant")))
    device = draw(st.sampled_from(b.devices))
    if kind == "unary":
        x = b.on(draw(st.sampled_from(b.values)), device)
        kernel = draw(st.sampled_from(UNARY))
        tied = draw(st.booleans())
        operands, types = x.name, x.typed
        if kernel == "scale":  # scale(x, s): a scalar operand
            factor = b.scalar(draw(st.sampled_from((0.5, 2.0, -1.0))))
            operands, types = f"{x.name}, {factor}", f"{x.typed}, f32"
        name = b.fresh()
        dims = "{" + ", ".join(x.dims) + "}" if x.dims else ""
        result = (x.name if tied else x.type) + dims
        b.lines.append(f"  {name} = flow.dispatch @{kernel}({operands}){b.placement(device)} : ({types}) -> {result}")
        b.values.append(_Value(name, x.shape, x.dims, device))
    elif kind == "binary":
        x = draw(st.sampled_from(b.values))
        same = [v for v in b.values if v.shape == x.shape and v.dims == x.dims]
        y = draw(st.sampled_from(same))
        x, y = b.on(x, device), b.on(y, device)
        kernel = draw(st.sampled_from(BINARY))
        tied = draw(st.booleans())  # also `add(%a, %a) -> %a`: an in-place write of a value it reads
        name = b.fresh()
        result = x.name + ("{" + ", ".join(x.dims) + "}" if x.dims else "") if tied else x.typed
        b.lines.append(f"  {name} = flow.dispatch @{kernel}({x.name}, {y.name}){b.placement(device)} : ({x.typed}, {y.typed}) -> {result}")
        b.values.append(_Value(name, x.shape, x.dims, device))
    elif kind == "matmul":
        statics = [v for v in b.values if _static(v.shape)]
        if not statics:
            return
        x = draw(st.sampled_from(statics))
        k = x.shape[1]
        partners = [v for v in statics if v.shape[0] == k]
        n = draw(st.sampled_from(DIMS))
        y = draw(st.sampled_from(partners)) if partners and draw(st.booleans()) else _new_arg(b, (k, n), device)
        x, y = b.on(x, device), b.on(y, device)
        name = b.fresh()
        out = _Value(name, (x.shape[0], y.shape[1]), (), device)
        b.lines.append(f"  {name} = flow.dispatch @matmul({x.name}, {y.name}){b.placement(device)} : ({x.typed}, {y.typed}) -> {out.type}")
        b.values.append(out)
    elif kind == "transfer":
        if len(b.devices) < 2:
            return
        x = draw(st.sampled_from(b.values))
        target = draw(st.sampled_from([d for d in b.devices if d != x.device]))
        b.on(x, target)
        return
    elif kind == "slice":
        statics = [v for v in b.values if _static(v.shape)]
        if not statics:
            return
        x = b.on(draw(st.sampled_from(statics)), device)
        starts, lengths = [], []
        for d in x.shape:
            assert d is not None
            length = draw(st.integers(1, d))
            starts.append(draw(st.integers(0, d - length)))
            lengths.append(length)
        name = b.fresh()
        out = _Value(name, tuple(lengths), (), device)
        idx = ", ".join(b.index(s) for s in starts)
        lens = ", ".join(b.index(n) for n in lengths)
        b.lines.append(f"  {name} = flow.tensor.slice {x.name}[{idx} for {lens}] : {x.type} -> {out.type}{b.trailing(device)}")
        b.values.append(out)
    elif kind == "update":
        statics = [v for v in b.values if _static(v.shape)]
        if len(statics) < 1:
            return
        target = draw(st.sampled_from(statics))
        # The target itself fits too: an update of a value into itself.
        fits = [v for v in statics if all(a <= t for a, t in zip(v.shape, target.shape))]  # type: ignore[operator]
        if not fits:
            return
        update = b.on(draw(st.sampled_from(fits)), device)
        target = b.on(target, device)
        starts = [draw(st.integers(0, t - u)) for u, t in zip(update.shape, target.shape)]  # type: ignore[operator]
        name = b.fresh()
        idx = ", ".join(b.index(s) for s in starts)
        b.lines.append(
            f"  {name} = flow.tensor.update {update.name}, {target.name}[{idx}] : "
            f"{update.type} -> {target.name} as {target.type}{b.trailing(device)}"
        )
        b.values.append(_Value(name, target.shape, (), device))
    elif kind == "splat":
        shape = (draw(st.sampled_from(DIMS)), draw(st.sampled_from(DIMS)))
        value = draw(st.sampled_from((0.0, 1.0, 0.5, -2.0)))
        cst = f"%cst{b.counter + 1}"
        b.consts[cst] = f"  {cst} = arith.constant {value:.6e} : f32"
        name = b.fresh()
        out = _Value(name, shape, (), device)
        b.lines.append(f"  {name} = flow.tensor.splat {cst} : {out.type}{b.trailing(device)}")
        b.values.append(out)
    else:  # constant
        shape = (draw(st.sampled_from((1, 2, 3))), draw(st.sampled_from((1, 2, 3))))
        numbers = [[draw(st.sampled_from((0.0, 1.0, -1.0, 2.5, 0.25))) for _ in range(shape[1])] for _ in range(shape[0])]
        body = "[" + ", ".join("[" + ", ".join(f"{x:.6e}" for x in row) + "]" for row in numbers) + "]"
        name = b.fresh()
        out = _Value(name, shape, (), device)
        b.lines.append(f"  {name} = arith.constant{b.placement(device)} dense<{body}> : {out.type}")
        b.values.append(out)
    b.ops += 1


def _new_arg(b: _Builder, shape: tuple[int, ...], device: str) -> _Value:
    name = f"%arg{len(b.args)}"
    b.args.append(ArgSpec(name, "tensor", shape))
    v = _Value(name, shape, (), b.devices[0])
    b.values.append(v)
    return b.on(v, device) if device != b.devices[0] else v


@st.composite
def programs(
    draw: st.DrawFn,
    max_ops: int = 8,
    devices: tuple[str, ...] = ("dev0", "dev1"),
    dynamic: bool = True,
    in_place_args: bool = True,
) -> RandomProgram:
    """A random input-level program `func.func @main` (see the module docstring)."""
    ndev = draw(st.integers(1, len(devices)))
    b = _Builder(devices[:ndev])
    for _ in range(draw(st.integers(1, 3))):
        _new_arg(b, (draw(st.sampled_from(DIMS)), draw(st.sampled_from(DIMS))), b.devices[0])
    if dynamic and draw(st.booleans()):
        n = f"%n{len(b.args)}"
        b.args.append(ArgSpec(n, "index", value=draw(st.sampled_from(DIMS))))
        name = f"%arg{len(b.args)}"
        width = draw(st.sampled_from(DIMS))
        b.args.append(ArgSpec(name, "tensor", (None, width), (n,)))
        b.values.append(_Value(name, (None, width), (n,), b.devices[0]))
    if in_place_args and draw(st.booleans()):
        tensors = [i for i, a in enumerate(b.args) if a.kind == "tensor"]
        i = draw(st.sampled_from(tensors))
        a = b.args[i]
        b.args[i] = ArgSpec(a.name, a.kind, a.shape, a.dims, a.value, " {iree.abi.consume}")
    for _ in range(draw(st.integers(1, max_ops))):
        draw(_op(b))
    produced = [v for v in b.values if not v.name.startswith("%arg")] or b.values
    results = [produced[-1]]
    if len(produced) > 1 and draw(st.booleans()):
        other = draw(st.sampled_from(produced[:-1]))
        if other.name != results[0].name:
            results.append(other)
    params = ", ".join(
        f"{a.name}: " + ("index" if a.kind == "index" else _Value(a.name, a.shape, a.dims, "").type) + a.attrs for a in b.args
    )
    rtypes = ", ".join(r.type for r in results)
    body = list(b.consts.values()) + b.lines
    ret = f"  return {', '.join(r.name for r in results)} : {', '.join(r.type for r in results)}"
    text = "\n".join([f"func.func @main({params}) -> ({rtypes}) {{", *body, ret, "}", ""])
    return RandomProgram(text, "main", tuple(b.args), len(results), b.devices, b.ops)
