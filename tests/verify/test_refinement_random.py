"""Property test: random dispatch DAGs at the async level (execute regions, concurrent waves, ties)
against a hand-rolled cmd-level lowering (a slab per region at concrete offsets, an alloca per
escaping value) refine; dropping one write or swapping two bindings of a dispatch that feeds a
result breaks refinement. The lowering is `bench/bench_refinement.py`'s, written independently of
the checker."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stream.ir import parse_module
from stream.ir.verifier import verify_structure
from verify.refinement import check_refinement

_BENCH = Path(__file__).resolve().parents[2] / "bench" / "bench_refinement.py"
_spec = importlib.util.spec_from_file_location("bench_refinement", _BENCH)
assert _spec is not None and _spec.loader is not None
gen = importlib.util.module_from_spec(_spec)
sys.modules["bench_refinement"] = gen
_spec.loader.exec_module(gen)


@st.composite
def dags(draw: st.DrawFn) -> gen.Dag:
    args = draw(st.integers(1, 3))
    dag = gen.Dag(args, region_size=draw(st.integers(1, 6)))
    count = args
    for _ in range(draw(st.integers(1, 14))):
        pool = list(range(max(0, count - 8), count))
        inputs = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=min(3, len(pool)), unique=True))
        results = draw(st.integers(1, 2))
        dag.ops.append(gen.DagOp(f"k{draw(st.integers(0, 3))}", inputs, results))
        count += results
    # Tie some ops to an input they are the last user of (never an argument; not the last op,
    # whose result is returned). Ties add a value, so value ids are taken from `values()` after.
    last_use: dict[int, int] = {}
    ids = dag.args
    for i, op in enumerate(dag.ops):
        for v in op.inputs:
            last_use[v] = i
    for i, op in enumerate(dag.ops[:-1]):
        candidates = [p for p, v in enumerate(op.inputs) if v >= args and last_use[v] == i]
        if candidates and draw(st.booleans()):
            op.tied = candidates[0]
            # Renumber: values after this op's results move up by one (the tied result).
            shift = ids + op.results
            for later in dag.ops[i + 1 :]:
                later.inputs = [v + 1 if v >= shift else v for v in later.inputs]
            last_use = {(v + 1 if v >= shift else v): j for v, j in last_use.items()}
        ids += op.results + (op.tied is not None)
    info = dag.values()
    consumed = {op.inputs[op.tied] for op in dag.ops if op.tied is not None}
    tied_results = {tv for _, _, tv in info if tv >= 0}
    last = dag.num_values - 1
    others = [v for v in range(args, last) if v not in consumed and v not in tied_results]
    dag.outputs = [last]
    if others and draw(st.booleans()):
        dag.outputs.append(draw(st.sampled_from(others)))
    return dag


def _cone(dag: gen.Dag) -> list[int]:
    """Ops whose outputs reach a function result."""
    producer = {v: i for i, (first, n, _) in enumerate(dag.values()) for v in range(first, first + n)}
    needed, todo, ops = set(dag.outputs), list(dag.outputs), set()
    while todo:
        v = todo.pop()
        i = producer.get(v)
        if i is None or i in ops:
            continue
        ops.add(i)
        for x in dag.ops[i].inputs:
            if x not in needed:
                needed.add(x)
                todo.append(x)
    return sorted(ops)


def _pair(dag: gen.Dag, **mutation: object) -> tuple[object, object]:
    before = parse_module(gen.print_async(dag), "async.mlir")
    after = parse_module(gen.print_cmd(dag, **mutation), "cmd.mlir")  # type: ignore[arg-type]
    return before, after


# REFINEMENT_EXAMPLES=400 for a longer run.
SETTINGS = settings(max_examples=int(os.environ.get("REFINEMENT_EXAMPLES", "40")), deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(dags())
def test_lowering_refines(dag: gen.Dag) -> None:
    before, after = _pair(dag)
    verify_structure(before)  # type: ignore[arg-type]
    verify_structure(after)  # type: ignore[arg-type]
    report = check_refinement(before, after)  # type: ignore[arg-type]
    assert report.ok, report.render_text()


@SETTINGS
@given(dags(), st.data())
def test_dropping_a_write_breaks_refinement(dag: gen.Dag, data: st.DataObject) -> None:
    victim = data.draw(st.sampled_from(_cone(dag)))
    report = check_refinement(*_pair(dag, drop=victim))  # type: ignore[misc]
    assert report.status == "mismatch", report.render_text()
    assert report.mismatches[0].observable == "result"


@SETTINGS
@given(dags(), st.data())
def test_swapping_two_bindings_breaks_refinement(dag: gen.Dag, data: st.DataObject) -> None:
    cone = set(_cone(dag))
    info = dag.values()
    producer = {v: i for i, (first, n, _) in enumerate(info) for v in range(first, first + n)}
    reaching = {v for v in range(dag.num_values) if producer.get(v) in cone and _reaches(dag, v)}
    sig = _signatures(dag)
    choices = []
    for i in sorted(cone):
        op = dag.ops[i]
        first, _, tied_value = info[i]
        reads = len(op.inputs)
        writes = [first + k for k in range(op.results)]
        # Two inputs with different contents in swapped order change every output; moving a
        # written binding changes the value written there (which must reach a result).
        choices += [(i, a, b) for a in range(reads) for b in range(a + 1, reads) if sig[op.inputs[a]] != sig[op.inputs[b]]]
        for k, v in enumerate(writes):
            moved = v in reaching or (op.tied is not None and tied_value in reaching)
            if moved:
                choices += [(i, a, reads + k) for a in range(reads + k)]
    if not choices:
        return
    swap = data.draw(st.sampled_from(choices))
    report = check_refinement(*_pair(dag, swap=swap))  # type: ignore[misc]
    assert report.status == "mismatch", (swap, report.render_text())


def _signatures(dag: gen.Dag) -> dict[int, object]:
    """The term each value holds, up to renaming: two ops of one kernel on equal inputs compute
    equal outputs (kernels are functions), so swapping such inputs changes nothing."""
    sig: dict[int, object] = {v: ("arg", v) for v in range(dag.args)}
    for op, (first, _, tied_value) in zip(dag.ops, dag.values()):
        ins = tuple(sig[v] for v in op.inputs)
        for k in range(op.results):
            sig[first + k] = (op.kernel, len(op.inputs) + k, ins)
        if op.tied is not None:
            sig[tied_value] = (op.kernel, op.tied, ins)
    return sig


def _reaches(dag: gen.Dag, v: int) -> bool:
    """Does value `v` flow into a result (through dispatches that read it)?"""
    info = dag.values()
    seen, todo = {v}, [v]
    while todo:
        x = todo.pop()
        if x in dag.outputs:
            return True
        for i, op in enumerate(dag.ops):
            if x in op.inputs:
                first, n, _ = info[i]
                for y in range(first, first + n):
                    if y not in seen:
                        seen.add(y)
                        todo.append(y)
    return False
