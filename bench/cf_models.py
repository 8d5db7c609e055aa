"""Small ONNX models with control flow, to make more IREE dumps of the kind of `rnn_loop`.

    python bench/cf_models.py OUTDIR            # writes OUTDIR/<name>.onnx for each model below
    for m in OUTDIR/*.onnx; do python bench/iree_dumps.py $m OUTDIR/$(basename $m .onnx); done
    python bench/conformance.py OUTDIR/*/

Each model is built with `onnx.helper` (the `iree` extra installs `onnx`); weights are drawn from a
fixed seed. What each one exercises in IREE's Stream IR:

| model | what |
|---|---|
| loop_two_carried | an ONNX `Loop` with a run-time trip count carrying two tensors (two resources per iteration) |
| if_matmul | an `If` on a run-time flag with a matmul in one branch and an add in the other |
| loop_in_if | a `Loop` inside the `then` branch of an `If` |
| nested_loops | a `Loop` inside a `Loop` (an `scf.for` in an `scf.for`: the verifier's induction, loop in loop) |

(A `Loop` with scan outputs is not here: IREE 3.13's ONNX import does not lower it.)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np


def _models():  # type: ignore[no-untyped-def]
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(7)
    f32 = TensorProto.FLOAT

    def weight(name: str, shape: tuple[int, ...]):  # type: ignore[no-untyped-def]
        return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32) * 0.1, name)

    def value(name: str, elem: int, shape: list[int]):  # type: ignore[no-untyped-def]
        return helper.make_tensor_value_info(name, elem, shape)

    trip, cond = value("trip", TensorProto.INT64, []), value("cond", TensorProto.BOOL, [])

    def body(name: str, carried: list[str], nodes: list, outputs: list[str], extra_outputs=()):  # type: ignore[no-untyped-def]
        # Names are unique across nested graphs (ONNX's SSA rule): the body's own carry a prefix.
        ins = [value(f"{name}_i", TensorProto.INT64, []), value(f"{name}_cin", TensorProto.BOOL, [])] + [value(c, f32, [4, 16]) for c in carried]
        outs = [value(f"{name}_cout", TensorProto.BOOL, [])] + [value(o, f32, [4, 16]) for o in outputs] + list(extra_outputs)
        return helper.make_graph([helper.make_node("Identity", [f"{name}_cin"], [f"{name}_cout"]), *nodes], name, ins, outs)

    def model(graph):  # type: ignore[no-untyped-def]
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])

    out = {}
    w = weight("W", (16, 16))

    # Two carried tensors: h' = tanh(h W + x), x' = x + h'.
    g = body("b", ["h", "x"], [
        helper.make_node("MatMul", ["h", "W"], ["hw"]),
        helper.make_node("Add", ["hw", "x"], ["s"]),
        helper.make_node("Tanh", ["s"], ["h2"]),
        helper.make_node("Add", ["x", "h2"], ["x2"]),
    ], ["h2", "x2"])
    out["loop_two_carried"] = model(helper.make_graph(
        [helper.make_node("Loop", ["trip", "cond", "h0", "x0"], ["hN", "xN"], body=g)], "loop_two_carried",
        [trip, cond, value("h0", f32, [4, 16]), value("x0", f32, [4, 16])], [value("hN", f32, [4, 16]), value("xN", f32, [4, 16])], [w]))

    # If: a matmul on one side, an add on the other.
    then = helper.make_graph([helper.make_node("MatMul", ["x", "W"], ["t"])], "then", [], [value("t", f32, [4, 16])])
    other = helper.make_graph([helper.make_node("Add", ["x", "x"], ["e"])], "else", [], [value("e", f32, [4, 16])])
    out["if_matmul"] = model(helper.make_graph(
        [helper.make_node("If", ["flag"], ["y"], then_branch=then, else_branch=other)], "if_matmul",
        [value("flag", TensorProto.BOOL, []), value("x", f32, [4, 16])], [value("y", f32, [4, 16])], [w]))

    # A loop inside the then branch of an If.
    g = body("b", ["h"], [helper.make_node("MatMul", ["h", "W"], ["hw"]), helper.make_node("Tanh", ["hw"], ["h2"])], ["h2"])
    then = helper.make_graph([helper.make_node("Loop", ["trip", "cond", "x"], ["l"], body=g)], "then", [], [value("l", f32, [4, 16])])
    other = helper.make_graph([helper.make_node("Identity", ["x"], ["e"])], "else", [], [value("e", f32, [4, 16])])
    out["loop_in_if"] = model(helper.make_graph(
        [helper.make_node("If", ["flag"], ["y"], then_branch=then, else_branch=other)], "loop_in_if",
        [value("flag", TensorProto.BOOL, []), trip, cond, value("x", f32, [4, 16])], [value("y", f32, [4, 16])], [w]))

    # A loop inside a loop.
    inner = body("inner", ["h"], [helper.make_node("MatMul", ["h", "W"], ["hw"]), helper.make_node("Tanh", ["hw"], ["h2"])], ["h2"])
    outer = body("outer", ["g"], [helper.make_node("Loop", ["trip", "cond", "g"], ["g2"], body=inner)], ["g2"])
    out["nested_loops"] = model(helper.make_graph(
        [helper.make_node("Loop", ["trip", "cond", "x"], ["y"], body=outer)], "nested_loops",
        [trip, cond, value("x", f32, [4, 16])], [value("y", f32, [4, 16])], [w]))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    args = ap.parse_args(argv)
    try:
        import onnx
    except ImportError:
        print("cf_models: needs the onnx package (pip install -e '.[iree]')", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    for name, m in _models().items():
        onnx.checker.check_model(m)
        onnx.save(m, str(args.out / f"{name}.onnx"))
        print(args.out / f"{name}.onnx")
    return 0


if __name__ == "__main__":
    sys.exit(main())
