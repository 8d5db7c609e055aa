"""Runtime benchmarks (SPEC section 9): executor overhead and device parallelism.

    python bench/bench_runtime.py [--nodes 1000] [--repeats 9] [--matmul 1024] [--only overhead|parallel]

1. Overhead: one seeded 1000-node DAG of tiny kernels (add/mul/sub/maximum of two 16-float
   vectors, relu/neg/tanh of one), run side by side by
   * plain sequential numpy (the same kernel functions called in topological order),
   * Dask's threaded scheduler (`dask.threaded.get` on the same graph and functions),
   * the runtime's task driver on two cmd-level forms of the DAG:
       "region":  one `stream.cmd.execute` holding every dispatch, grouped into `cmd.concurrent`
                  waves by depth - what the compiler emits for such a DAG;
       "submits": one execute per node on two devices, each awaiting the join of its producers'
                  timepoints - the worst case for queue overhead;
   and the sync driver on the region form. Overhead per command = (time - numpy time) / nodes.
2. Parallelism: 8 independent matmuls (N x N, f32) on 2 devices (4 per device, one execute
   each), against the same 8 matmuls in a sequential numpy loop. BLAS is pinned to one thread
   (OPENBLAS_NUM_THREADS=1, set before numpy loads) so that the parallelism measured is the
   runtime's, not the BLAS library's.

Times are medians of `--repeats` runs, each a full `run_module` (driver threads started and
joined, every command recorded, submitted, executed, results copied out). The machine's load
average is printed before and after each part: the parallelism figure needs two idle cores, so
re-run `--only parallel` when the load is low if it was not.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import argparse  # noqa: E402
import datetime  # noqa: E402
import platform  # noqa: E402
import random  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import stream.ir as ir  # noqa: E402
from runtime import run_module  # noqa: E402
from runtime.kernels import DEFAULT_REGISTRY  # noqa: E402

VEC = 16  # floats per tiny tensor
BYTES = VEC * 4
BINARY = ("add", "mul", "sub", "maximum")
UNARY = ("relu", "neg", "tanh")
AFF = "#hal.device.affinity<@dev{}>"


# -- the DAG ------------------------------------------------------------------------------------
def make_dag(nodes: int, seed: int = 0) -> list[tuple[str, list[int]]]:
    """Node i: (kernel, operand node ids); ids < 0 name the input. Acyclic by index order."""
    rng = random.Random(seed)
    dag: list[tuple[str, list[int]]] = []
    for i in range(nodes):
        arity = 2 if rng.random() < 0.6 else 1
        operands = [rng.randrange(max(0, i - 32), i) if i else -1 for _ in range(arity)]
        dag.append((rng.choice(BINARY if arity == 2 else UNARY), operands))
    return dag


def depths(dag: list[tuple[str, list[int]]]) -> list[int]:
    out: list[int] = []
    for _, ops in dag:
        out.append(1 + max((out[o] for o in ops if o >= 0), default=-1))
    return out


def kernel_fn(name: str) -> Callable[..., None]:
    """The plain numpy function of a built-in kernel (`fn(*inputs, out)`), without the registry's
    calling-convention wrapper: the baselines pay nothing the runtime adds."""
    k = DEFAULT_REGISTRY.get(name)
    assert k is not None, name
    return k.fn


def run_numpy(dag: list[tuple[str, list[int]]], x: np.ndarray) -> np.ndarray:
    fns = {name: kernel_fn(name) for name in (*BINARY, *UNARY)}
    vals: list[np.ndarray] = []
    for name, ops in dag:
        out = np.empty(VEC, np.float32)
        fns[name](*[x if o < 0 else vals[o] for o in ops], out)
        vals.append(out)
    return vals[-1]


def run_dask(dag: list[tuple[str, list[int]]], x: np.ndarray) -> np.ndarray:
    import dask.threaded

    def task(name: str) -> Callable[..., np.ndarray]:
        fn = kernel_fn(name)

        def f(*args: np.ndarray) -> np.ndarray:
            out = np.empty(VEC, np.float32)
            fn(*args, out)
            return out

        return f

    graph: dict[str, object] = {"x": x}
    fns = {n: task(n) for n in (*BINARY, *UNARY)}
    for i, (name, ops) in enumerate(dag):
        graph[f"n{i}"] = (fns[name], *("x" if o < 0 else f"n{o}" for o in ops))
    return dask.threaded.get(graph, f"n{len(dag) - 1}")  # type: ignore[no-any-return]


def _dispatch(name: str, ops: list[int], i: int, src: str = "%s") -> str:
    binds = [f"ro {'%in' if o < 0 else src}[{'%c0' if o < 0 else f'%o{o}'} for %c{BYTES}] : "
             f"!stream.resource<external>{{{'%c' + str(BYTES) if o < 0 else '%total'}}}" for o in ops]
    binds.append(f"wo {src}[%o{i} for %c{BYTES}] : !stream.resource<external>{{%total}}")
    types = ", ".join(["tensor<16xf32>"] * len(binds))
    return (f"stream.cmd.dispatch @{name} {{\n        " + ",\n        ".join(binds)
            + f"\n      }} attributes {{streamproof.binding_types = [{types}]}}")


def _prologue(n: int) -> list[str]:
    lines = ["util.func public @dag(%arg0: !hal.buffer_view) -> !hal.buffer_view {",
             "  %c0 = arith.constant 0 : index",
             f"  %c{BYTES} = arith.constant {BYTES} : index",
             f"  %total = arith.constant {n * BYTES} : index"]
    lines += [f"  %o{i} = arith.constant {i * BYTES} : index" for i in range(n)]
    lines.append(f"  %x = stream.tensor.import on({AFF.format(0)}) %arg0 : !hal.buffer_view -> tensor<16xf32> in "
                 f"!stream.resource<external>{{%c{BYTES}}}")
    lines.append(f"  %slab, %ts = stream.resource.alloca uninitialized on({AFF.format(0)}) : "
                 "!stream.resource<external>{%total} => !stream.timepoint")
    return lines


def _epilogue(n: int, fence: str) -> list[str]:
    return [f"  %w = stream.timepoint.await {fence} => %slab : !stream.resource<external>{{%total}}",
            f"  %last = stream.resource.subview %w[%o{n - 1}] : !stream.resource<external>{{%total}} -> "
            f"!stream.resource<external>{{%c{BYTES}}}",
            f"  %r = stream.tensor.export on({AFF.format(0)}) %last : tensor<16xf32> in !stream.resource<external>{{%c{BYTES}}} "
            "-> !hal.buffer_view",
            "  util.return %r : !hal.buffer_view", "}"]


def region_program(dag: list[tuple[str, list[int]]]) -> str:
    """All nodes in one execute, one concurrent section per depth."""
    n = len(dag)
    lines = _prologue(n)
    lines.append(f"  %e = stream.cmd.execute on({AFF.format(0)}) await(%ts) => with(%x as %in: "
                 f"!stream.resource<external>{{%c{BYTES}}}, %slab as %s: !stream.resource<external>{{%total}}) {{")
    d = depths(dag)
    for level in range(max(d) + 1):
        members = [i for i in range(n) if d[i] == level]
        lines.append("    stream.cmd.concurrent {")
        lines += ["      " + _dispatch(dag[i][0], dag[i][1], i) for i in members]
        lines.append("    }")
    lines.append("  } => !stream.timepoint")
    return "\n".join(lines + _epilogue(n, "%e")) + "\n"


def submits_program(dag: list[tuple[str, list[int]]]) -> str:
    """One execute per node, alternating between two devices, awaiting its producers."""
    n = len(dag)
    lines = _prologue(n)
    for i, (name, ops) in enumerate(dag):
        producers = sorted({f"%e{o}" for o in ops if o >= 0}) or ["%ts"]
        if len(producers) == 1:
            fence = producers[0]
        else:
            fence = f"%j{i}"
            lines.append(f"  {fence} = stream.timepoint.join max({', '.join(producers)}) => !stream.timepoint")
        lines.append(f"  %e{i} = stream.cmd.execute on({AFF.format(i % 2)}) await({fence}) => with(%x as %in: "
                     f"!stream.resource<external>{{%c{BYTES}}}, %slab as %s: !stream.resource<external>{{%total}}) {{")
        lines.append("    " + _dispatch(name, ops, i))
        lines.append("  } => !stream.timepoint")
    # Every node's submission must be done before the host reads the slab.
    lines.append(f"  %all = stream.timepoint.join max({', '.join(f'%e{i}' for i in range(n))}) => !stream.timepoint")
    return "\n".join(lines + _epilogue(n, "%all")) + "\n"


def matmul_program(n: int, count: int) -> str:
    size = n * n * 4
    lines = ["util.func public @mm(" + ", ".join(f"%a{i}: !hal.buffer_view" for i in range(2 * count)) + ") -> !hal.buffer_view {",
             "  %c0 = arith.constant 0 : index", f"  %sz = arith.constant {size} : index"]
    for i in range(2 * count):
        lines.append(f"  %in{i} = stream.tensor.import on({AFF.format(i // 2 % 2)}) %a{i} : !hal.buffer_view -> "
                     f"tensor<{n}x{n}xf32> in !stream.resource<external>{{%sz}}")
    for dev in range(2):
        mine = [k for k in range(count) if k % 2 == dev]
        lines.append(f"  %out{dev}_size = arith.constant {size * len(mine)} : index")
        lines.append(f"  %out{dev}, %t{dev} = stream.resource.alloca uninitialized on({AFF.format(dev)}) : "
                     f"!stream.resource<external>{{%out{dev}_size}} => !stream.timepoint")
        caps = ", ".join(f"%in{2 * k} as %x{k}: !stream.resource<external>{{%sz}}, %in{2 * k + 1} as %w{k}: "
                         f"!stream.resource<external>{{%sz}}" for k in mine)
        lines.append(f"  %e{dev} = stream.cmd.execute on({AFF.format(dev)}) await(%t{dev}) => with({caps}, %out{dev} as %o: "
                     f"!stream.resource<external>{{%out{dev}_size}}) {{")
        for j, k in enumerate(mine):
            lines.append(f"    stream.cmd.dispatch @matmul {{\n      ro %x{k}[%c0 for %sz] : !stream.resource<external>{{%sz}},\n"
                         f"      ro %w{k}[%c0 for %sz] : !stream.resource<external>{{%sz}},\n"
                         f"      wo %o[%off{j} for %sz] : !stream.resource<external>{{%out{dev}_size}}\n"
                         f"    }} attributes {{streamproof.binding_types = [tensor<{n}x{n}xf32>, tensor<{n}x{n}xf32>, tensor<{n}x{n}xf32>]}}")
        lines.append("  } => !stream.timepoint")
    offsets = [f"  %off{j} = arith.constant {j * size} : index" for j in range((count + 1) // 2)]
    lines[3:3] = offsets
    lines.append("  %all = stream.timepoint.join max(%e0, %e1) => !stream.timepoint")
    lines.append("  %r0 = stream.timepoint.await %all => %out0 : !stream.resource<external>{%out0_size}")
    lines.append("  %first = stream.resource.subview %r0[%c0] : !stream.resource<external>{%out0_size} -> !stream.resource<external>{%sz}")
    lines.append(f"  %r = stream.tensor.export on({AFF.format(0)}) %first : tensor<{n}x{n}xf32> in !stream.resource<external>{{%sz}} -> !hal.buffer_view")
    lines += ["  util.return %r : !hal.buffer_view", "}"]
    return "\n".join(lines) + "\n"


# -- measuring ----------------------------------------------------------------------------------
def median_time(fn: Callable[[], object], repeats: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def load() -> str:
    return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--nodes", type=int, default=1000)
    p.add_argument("--repeats", type=int, default=9)
    p.add_argument("--matmul", type=int, default=1024)
    p.add_argument("--matmuls", type=int, default=8)
    p.add_argument("--only", choices=("overhead", "parallel"), help="run one part only")
    args = p.parse_args()

    print(f"# streamproof runtime benchmark - {datetime.datetime.now():%Y-%m-%d %H:%M} - "
          f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"numpy {np.__version__}")
    if args.only != "parallel":
        overhead(args)
    if args.only != "overhead":
        parallel(args)


def overhead(args: argparse.Namespace) -> None:
    before = load()
    dag = make_dag(args.nodes)
    x = np.random.default_rng(0).standard_normal(VEC).astype(np.float32)
    region = ir.parse_module(region_program(dag), "dag_region.mlir")
    submits = ir.parse_module(submits_program(dag), "dag_submits.mlir")

    executors: list[tuple[str, Callable[[], object]]] = [
        ("numpy, sequential", lambda: run_numpy(dag, x)),
        ("dask threaded", lambda: run_dask(dag, x)),
        ("runtime task, one region", lambda: run_module(region, [x], driver="task").results[0]),
        ("runtime task, one submit per node", lambda: run_module(submits, [x], driver="task").results[0]),
        ("runtime sync, one region", lambda: run_module(region, [x], driver="sync").results[0]),
    ]
    for _, fn in executors:  # warm up: kernel templates, Dask's imports
        fn()
    # Round-robin over the executors, so that a change in the machine's load hits them alike.
    walls: dict[str, list[float]] = {label: [] for label, _ in executors}
    cpus: dict[str, list[float]] = {label: [] for label, _ in executors}
    results: dict[str, object] = {}
    for _ in range(args.repeats):
        for label, fn in executors:
            w, c = time.perf_counter(), time.process_time()
            results[label] = fn()
            walls[label].append(time.perf_counter() - w)
            cpus[label].append(time.process_time() - c)
    wall = {k: statistics.median(v) for k, v in walls.items()}
    cpu = {k: statistics.median(v) for k, v in cpus.items()}
    want = results["numpy, sequential"]
    n = args.nodes
    print(f"\n## {n}-node DAG of tiny kernels ({VEC} floats each), median of {args.repeats} (round-robin)\n")
    print("| executor | wall ms | overhead us per node (wall) | CPU ms (all threads) | overhead us per node (CPU) |")
    print("|---|---:|---:|---:|---:|")
    base_w, base_c = wall["numpy, sequential"], cpu["numpy, sequential"]
    for label, _ in executors:
        assert np.allclose(results[label], want, equal_nan=True), f"{label} computed a different result"  # type: ignore[arg-type]
        print(f"| {label} | {1e3 * wall[label]:.1f} | {1e6 * (wall[label] - base_w) / n:.1f} | {1e3 * cpu[label]:.1f} | "
              f"{1e6 * (cpu[label] - base_c) / n:.1f} |")
    dask_w, dask_c = wall["dask threaded"] - base_w, cpu["dask threaded"] - base_c
    for label in ("runtime task, one region", "runtime task, one submit per node"):
        ow, oc = wall[label] - base_w, cpu[label] - base_c
        print(f"\n{label}: overhead {1e6 * ow / n:.1f} us/node wall ({1e6 * oc / n:.1f} CPU); "
              f"Dask's is {dask_w / max(ow, 1e-9):.1f}x larger wall ({dask_c / max(oc, 1e-9):.1f}x CPU)")
    print(f"\n({before} before, {load()} after)")


def parallel(args: argparse.Namespace) -> None:
    before = load()
    mm = ir.parse_module(matmul_program(args.matmul, args.matmuls), "matmuls.mlir")
    rng = np.random.default_rng(1)
    mats = [rng.standard_normal((args.matmul, args.matmul)).astype(np.float32) for _ in range(2 * args.matmuls)]
    def sequential() -> object:
        return [mats[2 * k] @ mats[2 * k + 1] for k in range(args.matmuls)][0]

    def on_devices() -> object:
        return run_module(mm, mats, driver="task").results[0]

    sequential(), on_devices()  # warm up
    seq_times, task_times = [], []
    for _ in range(args.repeats):  # alternating, so that a change in load hits both alike
        t_one, first = median_time(sequential, 1)
        t_two, got = median_time(on_devices, 1)
        seq_times.append(t_one)
        task_times.append(t_two)
    t_seq, t_task = statistics.median(seq_times), statistics.median(task_times)
    assert np.allclose(got, first, rtol=1e-4, atol=1e-3)  # type: ignore[arg-type]
    print(f"\n## {args.matmuls} independent {args.matmul}x{args.matmul} f32 matmuls on 2 devices "
          f"(BLAS threads: {os.environ['OPENBLAS_NUM_THREADS']}), median of {args.repeats} (alternating)\n")
    print("| executor | total ms | speed-up |")
    print("|---|---:|---:|")
    print(f"| numpy, sequential | {1e3 * t_seq:.1f} | 1.00x |")
    print(f"| runtime task, 2 devices | {1e3 * t_task:.1f} | {t_seq / t_task:.2f}x |")
    print(f"\n({before} before, {load()} after)")


if __name__ == "__main__":
    main()
