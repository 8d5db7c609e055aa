"""Random input-level programs for differential testing of the runtime (a Hypothesis strategy).

Well formed by construction (Csmith-style): an acyclic dataflow graph in index order of
dispatches on square f32 tensors, each op on a random device; an operand living on another
device is moved with an explicit `flow.tensor.transfer`; results may be tied to their first
operand (in place), including operands used again later (the compiler must copy on write).
Values stay bounded (tanh, relu, scale by 0.5, adds of bounded values), so comparisons are exact
or near-exact. The strategy returns (MLIR text, number of arguments, N).
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st

UNARY = ("relu", "tanh", "neg", "sigmoid", "softmax")
BINARY = ("add", "sub", "mul", "matmul", "maximum")


@dataclass
class _Value:
    name: str
    device: int


@st.composite
def random_programs(draw: st.DrawFn, max_ops: int = 6, max_devices: int = 3) -> tuple[str, int, int]:
    n = draw(st.sampled_from([4, 8]))
    ty = f"tensor<{n}x{n}xf32>"
    n_args = draw(st.integers(1, 3))
    values = [_Value(f"%a{i}", 0) for i in range(n_args)]
    lines: list[str] = []
    counter = [0]

    def fresh() -> str:
        counter[0] += 1
        return f"%v{counter[0]}"

    def on(device: int) -> str:
        return "" if device == 0 else f" {{stream.affinity = #hal.device.affinity<@dev{device}>}}"

    def local(v: _Value, device: int) -> _Value:
        if v.device == device:
            return v
        moved = _Value(fresh(), device)
        lines.append(f"  {moved.name} = flow.tensor.transfer {v.name} : {ty} to #hal.device.affinity<@dev{device}>")
        return moved

    for _ in range(draw(st.integers(1, max_ops))):
        device = draw(st.integers(0, max_devices - 1))
        kind = draw(st.sampled_from(("unary", "binary", "scale")))
        a = local(draw(st.sampled_from(values)), device)
        tied = draw(st.booleans()) and kind != "binary" or (kind == "binary" and draw(st.integers(0, 3)) == 0)
        result_type = a.name if tied else ty
        out = _Value(fresh(), device)
        if kind == "unary":
            op = draw(st.sampled_from(UNARY))
            lines.append(f"  {out.name} = flow.dispatch @{op}({a.name}){on(device)} : ({ty}) -> {result_type}")
        elif kind == "scale":
            lines.append(f"  {out.name} = flow.dispatch @scale({a.name}, %half){on(device)} : ({ty}, f32) -> {result_type}")
        else:
            b = local(draw(st.sampled_from(values)), device)
            op = draw(st.sampled_from(BINARY))
            lines.append(f"  {out.name} = flow.dispatch @{op}({a.name}, {b.name}){on(device)} : ({ty}, {ty}) -> {result_type}")
        values.append(out)
    results = draw(st.lists(st.sampled_from(values[n_args:]), min_size=1, max_size=2, unique_by=lambda v: v.name))
    args = ", ".join(f"%a{i}: {ty}" for i in range(n_args))
    rtypes = ", ".join(ty for _ in results)
    text = (f"func.func @rand({args}) -> ({rtypes}) {{\n  %half = arith.constant 0.5 : f32\n" + "\n".join(lines)
            + f"\n  return {', '.join(v.name for v in results)} : {rtypes}\n}}\n")
    return text, n_args, n
