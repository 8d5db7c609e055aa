"""Refinement (translation validation) time on generated async-vs-cmd program pairs.

    python bench/bench_refinement.py [--sizes 1000 10000] [--repeat 3]

A generated program is a DAG of dispatches (each reads two or three earlier values, every fifth
writes one of its inputs in place when that is the input's last use) split into
`stream.async.execute` regions of 100 dispatches with `stream.async.concurrent` waves of
independent dispatches; its cmd-level lowering gives every value a byte range of one slab per
region, or its own `resource.alloca` when it escapes the region, and turns each dispatch into a
`stream.cmd.dispatch` with `ro`/`rw`/`wo` bindings. The slab offsets are concrete (as after
layout) or the symbolic offsets of a `stream.resource.pack` (as in IREE's stage 07, where the
check relies on the pack's disjointness facts). The script checks `check_refinement(async, cmd)`
and prints parse and check times (medians) and the peak Python allocation of one check.

`Dag`, `print_async` and `print_cmd` are also used by the Hypothesis test of refinement
(`tests/verify/test_refinement_random.py`).
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import time
import tracemalloc
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

SIZE = 256  # bytes per value
AFF = "#hal.device.affinity<@dev0>"
EXT = f"!stream.resource<external>{{%c{SIZE}}}"
TR = f"!stream.resource<transient>{{%c{SIZE}}}"


@dataclass
class DagOp:
    """A dispatch: reads `inputs` (value ids), produces `results` fresh values, and writes input
    `tied` (a position in `inputs`) in place when not None, producing one more value."""

    kernel: str
    inputs: list[int]
    results: int = 1
    tied: int | None = None


@dataclass
class Dag:
    args: int
    ops: list[DagOp] = field(default_factory=list)
    outputs: list[int] = field(default_factory=list)
    region_size: int = 100

    def values(self) -> list[tuple[int, int, int]]:
        """For each op: (first value id it produces, number of values, id of its tied result or -1)."""
        out = []
        nxt = self.args
        for op in self.ops:
            count = op.results + (1 if op.tied is not None else 0)
            out.append((nxt, count, nxt + op.results if op.tied is not None else -1))
            nxt += count
        return out

    @property
    def num_values(self) -> int:
        return self.args + sum(op.results + (op.tied is not None) for op in self.ops)


def random_dag(n: int, seed: int = 0, args: int = 4, region_size: int = 100) -> Dag:
    rnd = random.Random(seed)
    dag = Dag(args, region_size=region_size)
    live = list(range(args))
    nxt = args
    last_use: dict[int, int] = {}
    for i in range(n):
        inputs = rnd.sample(live[-24:], min(len(live), rnd.choice((2, 2, 3))))
        dag.ops.append(DagOp(f"k{i % 7}", inputs, 1 if rnd.random() < 0.85 else 2))
        for v in inputs:
            last_use[v] = i
        produced = dag.ops[-1].results
        live.extend(range(nxt, nxt + produced))
        nxt += produced
    # Tie every fifth dispatch to an input it is the last user of (never an argument).
    for i, op in enumerate(dag.ops[:-1]):
        if i % 5 == 4:
            for pos, v in enumerate(op.inputs):
                if v >= args and last_use.get(v) == i:
                    op.tied = pos
                    break
    dag.outputs = [dag.num_values - 1]
    return dag


def _uses(dag: Dag) -> dict[int, list[int]]:
    uses: dict[int, list[int]] = {}
    for i, op in enumerate(dag.ops):
        for v in op.inputs:
            uses.setdefault(v, []).append(i)
    return uses


def _regions(dag: Dag) -> list[range]:
    n = len(dag.ops)
    return [range(s, min(s + dag.region_size, n)) for s in range(0, n, dag.region_size)]


def _producer(dag: Dag) -> dict[int, int]:
    out = {}
    for i, (first, count, _) in enumerate(dag.values()):
        for v in range(first, first + count):
            out[v] = i
    return out


def _waves(dag: Dag, region: range) -> list[list[int]]:
    """Group consecutive ops of a region into waves of ops that do not depend on each other and
    do not touch a value another op of the wave writes."""
    prod = _producer(dag)
    waves: list[list[int]] = []
    current: list[int] = []
    written: set[int] = set()
    for i in region:
        op = dag.ops[i]
        deps = {prod.get(v) for v in op.inputs}
        writes = {op.inputs[op.tied]} if op.tied is not None else set()
        touches = set(op.inputs)
        if current and (deps & set(current) or touches & written or writes & {v for j in current for v in dag.ops[j].inputs}):
            waves.append(current)
            current, written = [], set()
        current.append(i)
        written |= writes
    if current:
        waves.append(current)
    return waves


def _escaping(dag: Dag, region: range, inside: list[int] | set[int], uses: dict[int, list[int]]) -> list[int]:
    """Values of a region used after it, or returned; always at least the region's last value."""
    out = {v for v in inside if v in dag.outputs or any(u > region[-1] for u in uses.get(v, []))}
    out.add(max(inside))
    return sorted(out)


def _header(dag: Dag) -> list[str]:
    params = ", ".join(f"%arg{i}: !hal.buffer_view" for i in range(dag.args))
    results = ", ".join("!hal.buffer_view" for _ in dag.outputs)
    lines = [f"util.func public @main({params}) -> ({results}) {{", "  %c0 = arith.constant 0 : index", f"  %c{SIZE} = arith.constant {SIZE} : index"]
    for i in range(dag.args):
        lines.append(f"  %v{i} = stream.tensor.import on({AFF}) consume %arg{i} : !hal.buffer_view -> tensor<64xf32> in {EXT}")
    return lines


def _rtype(dag: Dag, v: int) -> str:
    return EXT if v < dag.args or v in dag.outputs else TR


def print_async(dag: Dag) -> str:
    """The async-level program: one `stream.async.execute` per region, waves as
    `stream.async.concurrent`, escaping values awaited on the host."""
    lines = _header(dag)
    info = dag.values()
    uses = _uses(dag)
    name = {v: f"%v{v}" for v in range(dag.args)}  # value id -> host-level SSA name
    for r, region in enumerate(_regions(dag)):
        inside = {v for i in region for v in range(info[i][0], info[i][0] + info[i][1])}
        captured = sorted({v for i in region for v in dag.ops[i].inputs if v not in inside})
        escaping = _escaping(dag, region, inside, uses)
        local = {v: f"%c{r}_{v}" for v in captured}
        caps = ", ".join(f"{name[v]} as {local[v]}: {_rtype(dag, v)}" for v in captured)
        lines.append(f"  %r{r}:{len(escaping)}, %t{r} = stream.async.execute on({AFF}) with({caps}) -> ({', '.join(_rtype(dag, v) for v in escaping)}) {{")
        for wave in _waves(dag, region):
            indent = "    "
            if len(wave) > 1:
                wave_in = sorted({v for i in wave for v in dag.ops[i].inputs})
                wave_out = [v for i in wave for v in range(info[i][0], info[i][0] + info[i][1])]
                wlocal = {v: f"%w{r}_{wave[0]}_{v}" for v in wave_in}
                wcaps = ", ".join(f"{local[v]} as {wlocal[v]}: {_rtype(dag, v)}" for v in wave_in)
                lines.append(f"    %q{r}_{wave[0]}:{len(wave_out)} = stream.async.concurrent with({wcaps}) -> ({', '.join(_rtype(dag, v) for v in wave_out)}) {{")
                inner = dict(local)  # inside the wave, captured values go by their wave names
                inner.update(wlocal)
                indent = "      "
            else:
                inner = local
            for i in wave:
                op = dag.ops[i]
                first, count, tied_v = info[i]
                args = ", ".join(f"{inner[v]}[%c0 to %c{SIZE} for %c{SIZE}]" for v in op.inputs)
                types = ", ".join(_rtype(dag, v) for v in op.inputs)
                res = [_rtype(dag, v) for v in range(first, first + op.results)]
                if op.tied is not None:
                    res.append(f"{inner[op.inputs[op.tied]]}{{%c{SIZE}}}")
                outs = [f"%x{v}" for v in range(first, first + count)]
                lhs = outs[0] if count == 1 else f"%x{first}_:{count}"
                rtypes = res[0] if len(res) == 1 else "(" + ", ".join(res) + ")"
                lines.append(f"{indent}{lhs} = stream.async.dispatch @ex::@{op.kernel}({args}) : ({types}) -> {rtypes}")
                for k, v in enumerate(range(first, first + count)):
                    inner[v] = outs[k] if count == 1 else f"%x{first}_#{k}"
            if len(wave) > 1:
                wave_out = [v for i in wave for v in range(info[i][0], info[i][0] + info[i][1])]
                lines.append(f"      stream.yield {', '.join(inner[v] for v in wave_out)} : {', '.join(_rtype(dag, v) for v in wave_out)}")
                lines.append("    }")
                for k, v in enumerate(wave_out):
                    local[v] = f"%q{r}_{wave[0]}#{k}"
            else:
                local.update({v: inner[v] for v in inner if v not in local})
        lines.append(f"    stream.yield {', '.join(local[v] for v in escaping)} : {', '.join(_rtype(dag, v) for v in escaping)}")
        lines.append("  } => !stream.timepoint")
        results = ", ".join(f"%r{r}#{k}" for k in range(len(escaping)))
        lines.append(f"  %h{r}:{len(escaping)} = stream.timepoint.await %t{r} => {results} : {', '.join(_rtype(dag, v) for v in escaping)}")
        for k, v in enumerate(escaping):
            name[v] = f"%h{r}#{k}"
    return _footer(dag, lines, name)


def _footer(dag: Dag, lines: list[str], name: dict[int, str]) -> str:
    outs = []
    for k, v in enumerate(dag.outputs):
        lines.append(f"  %out{k} = stream.tensor.export on({AFF}) {name[v]} : tensor<64xf32> in {EXT} -> !hal.buffer_view")
        outs.append(f"%out{k}")
    lines.append(f"  util.return {', '.join(outs)} : {', '.join('!hal.buffer_view' for _ in outs)}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def print_cmd(dag: Dag, drop: int | None = None, swap: tuple[int, int, int] | None = None, packed: bool = False) -> str:
    """The cmd-level lowering: per region, one transient slab for values that stay inside, one
    `resource.alloca` per escaping value, one `stream.cmd.execute`, waves as
    `stream.cmd.concurrent`. The slab's slices are at concrete offsets (as after layout) or, with
    `packed`, at the symbolic offsets of a `stream.resource.pack` with the slices' lifetime
    intervals (as IREE's stage 07 prints them). `drop` omits the dispatch of op `drop`;
    `swap=(op, i, j)` swaps its bindings i and j (the mutations of the Hypothesis test)."""
    head = _header(dag)
    body: list[str] = []
    constants = {0, SIZE}
    info = dag.values()
    uses = _uses(dag)
    # value -> (resource, offset token, resource type)
    storage: dict[int, tuple[str, str, str]] = {v: (f"%v{v}", "%c0", EXT) for v in range(dag.args)}
    for r, region in enumerate(_regions(dag)):
        inside = [v for i in region for v in range(info[i][0], info[i][0] + info[i][1])]
        tied_of = {info[i][2]: dag.ops[i].inputs[dag.ops[i].tied] for i in region if dag.ops[i].tied is not None}  # type: ignore[index]
        escaping = _escaping(dag, region, inside, uses)
        local_vals = [v for v in inside if v not in escaping and v not in tied_of]
        slab = f"%slab{r}"
        if packed:
            slab_t = f"!stream.resource<transient>{{%p{r}#0}}"
            intervals = _intervals(dag, region, local_vals, tied_of, escaping, uses)
            slices = ",\n".join(f"    [{a}, {b}] = %c{SIZE}" for a, b in intervals) or f"    [0, 0] = %c{SIZE}"
            body.append(f"  %p{r}:{max(len(local_vals), 1) + 1} = stream.resource.pack on({AFF}) slices({{\n{slices}\n  }}) : index")
        else:
            slab_size = SIZE * max(len(local_vals), 1)
            constants.add(slab_size)
            slab_t = f"!stream.resource<transient>{{%c{slab_size}}}"
        body.append(f"  {slab}, %sa{r} = stream.resource.alloca uninitialized on({AFF}) : {slab_t} => !stream.timepoint")
        for k, v in enumerate(local_vals):
            storage[v] = (slab, f"%p{r}#{k + 1}" if packed else f"%c{k * SIZE}", slab_t)
            constants.add(k * SIZE)
        for v in inside:
            if v in escaping and v not in tied_of:
                body.append(f"  %s{v}, %st{v} = stream.resource.alloca uninitialized on({AFF}) : {_rtype(dag, v)} => !stream.timepoint")
                storage[v] = (f"%s{v}", "%c0", _rtype(dag, v))
        for v in inside:  # a tied result lives in its operand's storage
            if v in tied_of:
                storage[v] = storage[tied_of[v]]
        used = {storage[v][0]: storage[v][2] for i in region for v in [*dag.ops[i].inputs, *range(info[i][0], info[i][0] + info[i][1])]}
        used[slab] = slab_t
        cap = {res: f"%b{r}_{k}" for k, res in enumerate(used)}
        caps = ", ".join(f"{res} as {cap[res]}: {t}" for res, t in used.items())
        body.append(f"  %ct{r} = stream.cmd.execute on({AFF}) with({caps}) {{")
        for wave in _waves(dag, region):
            indent = "    "
            if len(wave) > 1:
                body.append("    stream.cmd.concurrent {")
                indent = "      "
            for i in wave:
                if i == drop:
                    continue
                op = dag.ops[i]
                first = info[i][0]
                binds = []
                for pos, v in enumerate(op.inputs):
                    res, off, t = storage[v]
                    mode = "rw" if pos == op.tied else "ro"
                    binds.append(f"{mode} {cap[res]}[{off} for %c{SIZE}] : {t}")
                for v in range(first, first + op.results):
                    res, off, t = storage[v]
                    binds.append(f"wo {cap[res]}[{off} for %c{SIZE}] : {t}")
                if swap is not None and swap[0] == i:
                    binds[swap[1]], binds[swap[2]] = binds[swap[2]], binds[swap[1]]
                joined = f",\n{indent}  ".join(binds)
                body.append(f"{indent}stream.cmd.dispatch @ex::@{op.kernel} {{\n{indent}  {joined}\n{indent}}}")
            if len(wave) > 1:
                body.append("    }")
        body.append("  } => !stream.timepoint")
    consts = [f"  %c{c} = arith.constant {c} : index" for c in sorted(constants - {0, SIZE})]
    name = {v: storage[v][0] for v in dag.outputs}
    return _footer(dag, head + consts + body, name)


def _intervals(dag: Dag, region: range, local: list[int], tied_of: dict[int, int], escaping: list[int], uses: dict[int, list[int]]) -> list[tuple[int, int]]:
    """Inclusive lifetime intervals (op positions in the region) of the slab slices: from the op
    that writes a slice's value to the last use of it or of a value tied into the same slice."""
    info = dag.values()
    producer = {v: i - region[0] for i in region for v in range(info[i][0], info[i][0] + info[i][1])}
    slot = {v: k for k, v in enumerate(local)}
    for tv, operand in tied_of.items():  # in op order: chains of ties share one slice
        if operand in slot:
            slot[tv] = slot[operand]
    out = [[producer[v], producer[v]] for v in local]
    for v, k in slot.items():
        last = [u - region[0] for u in uses.get(v, []) if u in region]
        end = len(region) if v in escaping else max([producer[v], *last])
        out[k][1] = max(out[k][1], end)
    return [(a, b) for a, b in out]


def generate_pair(n: int, seed: int = 0, packed: bool = False) -> tuple[str, str]:
    dag = random_dag(n, seed)
    return print_async(dag), print_cmd(dag, packed=packed)


def main() -> None:
    import stream.ir as ir
    from verify.refinement import check_refinement

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    print(f"machine: {platform.machine()} {platform.processor() or ''} python {platform.python_version()}, load average {os.getloadavg()[0]:.1f}")
    print(f"{'dispatches':>10} {'slab offsets':>12} {'async ops':>10} {'cmd ops':>8} {'parse s':>8} {'check s':>8} {'us/dispatch':>11} "
          f"{'Z3 queries':>10} {'peak MB':>8} verdict")
    for n in args.sizes:
        for packed in (False, True):
            a_text, c_text = generate_pair(n, packed=packed)
            t0 = time.perf_counter()
            before = ir.parse_module(a_text, "async.mlir")
            after = ir.parse_module(c_text, "cmd.mlir")
            parse_s = time.perf_counter() - t0
            times = []
            for _ in range(args.repeat):
                t1 = time.perf_counter()
                report = check_refinement(before, after)
                times.append(time.perf_counter() - t1)
            tracemalloc.start()  # a separate run: tracing slows Python down
            check_refinement(before, after)
            peak = tracemalloc.get_traced_memory()[1] / 1e6
            tracemalloc.stop()
            a_ops = sum(1 for _ in before.walk())
            c_ops = sum(1 for _ in after.walk())
            med = statistics.median(times)
            kind = "pack (sym)" if packed else "concrete"
            print(f"{n:>10} {kind:>12} {a_ops:>10} {c_ops:>8} {parse_s:>8.2f} {med:>8.3f} {1e6 * med / n:>11.1f} "
                  f"{report.solver_queries:>10} {peak:>8.1f} {report.status}")


if __name__ == "__main__":
    main()
