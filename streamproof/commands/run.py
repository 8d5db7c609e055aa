"""streamproof run: execute a program on the numpy multi-device runtime.

An input-level file is first compiled through the default pipeline with every pass verified (as
`streamproof compile` does); a cmd-level file (streamproof's output, or an IREE stage-07..10 dump)
runs as is. Results print like iree-run-module's.

examples:
  streamproof run mlp.mlir                                  # random inputs (seed 0), task driver
  streamproof run mlp.mlir --input 8x64xf32=1.0 --input @w.npy --input 64x64xf32=0.5
  streamproof run mlp.mlir --check --driver chaos --seed 7  # compare with the reference interpreter
  streamproof run mlp.mlir --check-races --trace mlp.json   # dynamic race check; open mlp.json in ui.perfetto.dev
  streamproof run prog.cmd.mlir --reference prog.mlir --check
  streamproof run tests/data/iree/b_diamond/10_elide_timepoints.mlir --kernels diamond_kernels.py
  streamproof run scatter.mlir --function scatter_rows --input 128x16xf32=0 --input 8x16xf32=1 --input 3
  streamproof run decode.mlir --calls 4 --check --check-races  # four calls in one run: globals carry state

inputs (iree-run-module syntax): 4x8xf32=1.0 (splat), 2x2xf32=1,2,3,4 or 2x2xf32=[1 2][3 4], 4xf32
(zeros), @x.npy, 4xf32=@x.bin (raw bytes), scalars 7, i32=7, f32=0.5. Every value must fit its type
(4xi8=300 is refused) and the argument it is given for (a tensor is not an index). Inputs, given or
random (drawn in each argument's element type), above --max-input-bytes in all (default 1G) are
refused before anything is allocated or compiled.

kernels: dispatch symbols are numpy kernels (matmul, add, relu, softmax, ...; --list-kernels). A file
passed with --kernels registers more with @streamproof.kernel, e.g. for IREE's dispatch symbols:
  @streamproof.kernel("diamond_dispatch_0_matmul_64x64x64_f32", bindings=["tensor<64x64xf32>"] * 3)
  def mm_relu(a, b, out): out[...] = np.maximum(a @ b, 0)
or, to check a schedule for races and deadlocks without writing real kernels, take each binding
as its raw bytes: @streamproof.kernel("diamond_dispatch_0_matmul_64x64x64_f32", bindings="bytes").

outputs: --trace and --output-dir are checked before anything runs; a run that fails (exit 1) keeps
an existing --trace FILE and writes its trace beside it (t.json -> t.failed.json).

exit codes: 0 ok; 1 the program failed (a kernel raised, a deadlock, a memory fault), a result
differs from the reference (--check), a race was found (--check-races), or a pass failed its
proof; 2 bad input or usage; 3 internal error.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import numpy as np

from stream.ir.core import Module
from stream.ir.diagnostics import DiagnosticError
from stream.ir.verifier import verify_structure
from streamproof.errors import EXIT_OK, EXIT_VIOLATION, UsageError
from streamproof.io import OutputError, check_dump_dir, check_output, parse_inputs, write_output

HELP = __doc__ or ""

EXIT_FAILED = EXIT_VIOLATION  # a run that fails: races, a --check mismatch, an error status


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("input", metavar="IN.mlir", help="program to run ('-' for stdin): input level (compiled first) or cmd level")
    p.add_argument("--function", metavar="NAME", help="function to run (default: the only public one)")
    p.add_argument("--input", dest="inputs", metavar="VALUE", action="append", default=[],
                   help="an argument, in order, in iree-run-module syntax (repeat per argument)")
    p.add_argument("--driver", choices=("sync", "task", "chaos"), default="task",
                   help="sync: inline and deterministic; task: a thread per device queue (default); chaos: task plus random delays")
    p.add_argument("--seed", type=int, default=0, help="seed of random inputs and of the chaos driver (an integer >= 0; default 0)")
    p.add_argument("--max-input-bytes", metavar="N", type=_byte_count, default=None,
                   help="refuse inputs (given or random) that need more than N bytes in all, before allocating them; "
                   "N may end in K, M or G (powers of 1024; default 1G)")
    p.add_argument("--calls", metavar="N", type=int, default=1,
                   help="call the function N times in one run, on the same inputs: the initializers run once and "
                   "globals (a KV cache in a util.global) keep what one call stored for the next; every call's "
                   "results print, --check compares each with the reference's (default 1)")
    p.add_argument("--check", action="store_true", help="compare every result with the reference interpreter")
    p.add_argument("--rtol", type=float, default=1e-5, help="relative tolerance of --check (default 1e-5)")
    p.add_argument("--atol", type=float, default=1e-6, help="absolute tolerance of --check (default 1e-6)")
    p.add_argument("--reference", metavar="REF.mlir", help="input-level program --check compares a cmd-level file with")
    p.add_argument("--check-races", action="store_true", help="detect races, missed waits and lifetime errors while running")
    p.add_argument("--trace", metavar="FILE", help="write a Chrome/Perfetto trace (JSON)")
    p.add_argument("--kernels", metavar="FILE.py", action="append", default=[], help="Python file registering kernels")
    p.add_argument("--output-dir", metavar="DIR", help="write each result as DIR/result<i>.npy")
    p.add_argument("--no-verify", action="store_true", help="compile an input-level file without proving each pass")
    p.add_argument("--jobs", "-j", type=int, metavar="N", default=1,
                   help="compiling an input-level file, prove up to N pass outputs at once in forked processes (as compile --jobs)")
    p.add_argument("--max-trips", metavar="N", type=int, default=None,
                   help="iterations one run of a loop may make before the run fails (default 100000)")
    p.add_argument("--device-memory", metavar="BYTES", type=int, help="capacity of each device's pool (default unlimited)")
    p.add_argument("--print-max-element-count", metavar="N", type=int, default=1024,
                   help="elements printed per result before '...' (default 1024, as iree-run-module)")
    p.add_argument("--list-kernels", action="store_true", help="list the registered kernels and exit")


def main(args: argparse.Namespace) -> int:
    import runtime
    from runtime.kernels import DEFAULT_REGISTRY, KernelError, load_kernel_file

    for path in args.kernels:
        try:
            load_kernel_file(path)
        except KernelError as e:
            raise UsageError(f"streamproof run: error: --kernels {e}") from None
    if args.list_kernels:
        for name in DEFAULT_REGISTRY.names():
            doc = (DEFAULT_REGISTRY.get(name).doc or "").splitlines()  # type: ignore[union-attr]
            print(f"{name:<24} {doc[0] if doc else ''}")
        return EXIT_OK

    if args.seed < 0:
        raise UsageError(f"streamproof run: error: --seed must be an integer >= 0, not {args.seed}")
    if args.calls < 1:
        raise UsageError(f"streamproof run: error: --calls must be an integer >= 1, not {args.calls}")
    if args.jobs < 1:
        raise UsageError(f"streamproof run: error: --jobs must be an integer >= 1, not {args.jobs}")
    if args.device_memory is not None and args.device_memory < 0:
        raise UsageError(f"streamproof run: error: --device-memory must be a number of bytes >= 0, not {args.device_memory}")
    if args.max_trips is not None:
        if args.max_trips < 1:
            raise UsageError(f"streamproof run: error: --max-trips must be an integer >= 1, not {args.max_trips}")
        from runtime import control_flow

        control_flow.MAX_LOOP_TRIPS = args.max_trips  # one run per process: the limit is the process's
    _check_writable(args)

    (chunk,) = parse_inputs(args.input)
    module = chunk.module
    verify_structure(module)
    fn = runtime.select_function(module, args.function)
    _check_result_files(args, len(fn.type.results))
    level = runtime.api.program_level(fn)
    if level not in ("input", "cmd", None):
        raise DiagnosticError.at(fn.op.location, f"@{fn.name} is at the {level} level; `streamproof run` takes an input-level "
                                 "program (which it compiles) or a cmd-level one (run `streamproof compile` first)")
    reference = module if level == "input" else None
    if args.reference:
        (ref_chunk,) = parse_inputs(args.reference)
        reference = ref_chunk.module
        verify_structure(reference)
    if args.check and reference is None:
        raise UsageError("streamproof run: error: --check needs the input-level program; pass --reference REF.mlir with a cmd-level file")
    # Element types the executor cannot hold are refused before anything is read, drawn or compiled.
    runtime.values.check_holdable(module, fn.name)
    if reference is not None and reference is not module:
        runtime.values.check_holdable(reference, fn.name)
    # Inputs are read (and refused) before the compile: a bad --input costs nothing.
    inputs = _inputs(args, reference if reference is not None else module, fn.name)
    if level == "input":
        module = _compile(module, args)
    tracer = runtime.Tracer() if args.trace else None
    try:
        result = runtime.run_module(module, calls=[inputs] * args.calls, function=fn.name, driver=args.driver, seed=args.seed,
                                    check_races=args.check_races, trace=tracer or False, device_memory=args.device_memory)
    except (runtime.ExecutionError, runtime.DeadlockError) as e:
        for finding in getattr(e, "findings", ()):  # what --check-races saw before the failure
            print(str(finding), file=sys.stderr)
        print(f"streamproof run: error: {e}", file=sys.stderr)
        _write_trace(tracer, args.trace, failed=True)
        return EXIT_FAILED
    except runtime.InputError as e:
        raise UsageError(f"streamproof run: error: {e}") from None

    _print_results(result, fn.name, args)
    if args.output_dir:
        _write_outputs(args.output_dir, result.results)

    status = EXIT_OK
    if args.check_races:
        for finding in result.findings:
            print(str(finding), file=sys.stderr)
        if result.errors:
            print(f"streamproof run: {len(result.errors)} race/lifetime finding(s) (driver {args.driver})", file=sys.stderr)
            status = EXIT_FAILED
    if args.check:
        assert reference is not None
        if not _check(reference, fn.name, inputs, result.calls, args):
            status = EXIT_FAILED
    # Written once the verdict is known: a run that fails (races, a --check mismatch) keeps an existing trace.
    _write_trace(tracer, args.trace, failed=status != EXIT_OK)
    return status


def _print_results(result: Any, name: str, args: argparse.Namespace) -> None:
    """Every call's results, as iree-run-module prints them (a header per call with --calls)."""
    import runtime

    for n, results in enumerate(result.calls):
        print(f"EXEC @{name}" + (f" (call {n + 1} of {args.calls})" if args.calls > 1 else ""))
        for i, value in enumerate(results):
            t = result.result_types[i] if i < len(result.result_types) else None
            print(f"result[{i}]: {'hal.buffer_view' if isinstance(value, np.ndarray) else t}")
            scalar_type = None if isinstance(value, np.ndarray) or t is None or str(t).startswith("!") else t
            print(runtime.format_value(value, scalar_type, max_elements=args.print_max_element_count))


def _byte_count(text: str) -> int:
    """`--max-input-bytes`: 1048576, 512K, 64M, 2G (powers of 1024)."""
    m = re.fullmatch(r"([0-9]+)([KMG]?)(?:i?B)?", text.strip(), re.IGNORECASE)
    if m is None:
        raise argparse.ArgumentTypeError(f"expected a number of bytes, optionally ending in K, M or G; not {text!r}")
    return int(m.group(1)) << {"": 0, "k": 10, "m": 20, "g": 30}[m.group(2).lower()]


def _compile(module: Module, args: argparse.Namespace) -> Module:
    from stream.passes import DEFAULT_PIPELINE, PassVerificationError, parse_pipeline, run_pipeline
    from verify.hook import make_hook

    hook = None if args.no_verify else make_hook()
    try:
        out, _ = run_pipeline(module, parse_pipeline(",".join(DEFAULT_PIPELINE)), hook=hook, keep_outputs=False,
                              jobs=args.jobs)
    except PassVerificationError as e:
        print(f"streamproof run: pass '{e.pass_name}' failed verification; not running\n{e}", file=sys.stderr)
        raise SystemExit(EXIT_FAILED) from None
    verify_structure(out)
    return out


def _inputs(args: argparse.Namespace, module: Module, name: str) -> list[Any]:
    import runtime
    from runtime.values import DEFAULT_MAX_INPUT_BYTES

    limit = DEFAULT_MAX_INPUT_BYTES if args.max_input_bytes is None else args.max_input_bytes
    try:
        if args.inputs:
            given: list[Any] = []
            for text in args.inputs:  # the limit is for all inputs together
                used = sum(v.nbytes for v in given if isinstance(v, np.ndarray))
                given.append(runtime.parse_input(text, Path.cwd(), max_bytes=limit, used=used))
            return given
        inputs = runtime.api.random_inputs(module, name, args.seed, max_bytes=limit)
    except runtime.InputError as e:
        raise UsageError(f"streamproof run: error: {e}") from None
    if inputs:
        shapes = ", ".join(runtime.format_value(a, max_elements=0).split("=")[0] if isinstance(a, np.ndarray) else "fence" for a in inputs)
        print(f"streamproof run: no --input given; random inputs (seed {args.seed}): {shapes}", file=sys.stderr)
    return inputs


def _check(reference: Module, name: str, inputs: list[Any], calls: list[list[Any]], args: argparse.Namespace) -> bool:
    """Compare every call's results with the reference's for the same sequence of calls."""
    import runtime

    arguments = [np.asarray(a) if isinstance(a, np.ndarray) else a for a in inputs]
    every = runtime.run_reference_calls(reference, [arguments] * len(calls), name)
    ok = True
    for n, (results, expected) in enumerate(zip(calls, every)):
        where = f" (call {n + 1} of {len(calls)})" if len(calls) > 1 else ""
        ok = _check_call(name, results, expected, where, args) and ok
    return ok


def _check_call(name: str, results: list[Any], expected: list[Any], where: str, args: argparse.Namespace) -> bool:
    ok = True
    if len(expected) != len(results):
        print(f"check{where}: @{name} returned {len(results)} results, the reference {len(expected)}", file=sys.stderr)
        return False
    for i, (got, want) in enumerate(zip(results, expected)):
        got_a, want_a = np.asarray(got), np.asarray(want)
        if got_a.shape != want_a.shape or got_a.dtype != want_a.dtype:
            print(f"check result[{i}]{where}: MISMATCH: got {got_a.dtype}{list(got_a.shape)}, the reference gives "
                  f"{want_a.dtype}{list(want_a.shape)}", file=sys.stderr)
            ok = False
            continue
        wide = np.complex128 if got_a.dtype.kind == "c" else np.float64  # complex results compare both parts
        g, w = got_a.astype(wide), want_a.astype(wide)
        diff = np.abs(g - w)
        both_nan = np.isnan(g) & np.isnan(w)
        diff = np.where(both_nan, 0.0, diff)
        max_abs = float(np.nanmax(diff, initial=0.0)) if diff.size else 0.0
        rel = diff / np.maximum(np.abs(w), np.finfo(np.float64).tiny)
        max_rel = float(np.nanmax(np.where(diff == 0, 0.0, rel), initial=0.0)) if diff.size else 0.0
        close = np.isclose(g, w, rtol=args.rtol, atol=args.atol, equal_nan=True)
        if close.all():
            print(f"check result[{i}]{where}: ok (max abs error {max_abs:.3g}, max rel error {max_rel:.3g})", file=sys.stderr)
        else:
            bad = tuple(int(x) for x in np.argwhere(~close)[0])
            print(f"check result[{i}]{where}: MISMATCH: {int((~close).sum())} of {close.size} elements differ (max abs error "
                  f"{max_abs:.3g}, max rel error {max_rel:.3g}; rtol {args.rtol:g}, atol {args.atol:g}); first at {list(bad)}: "
                  f"got {got_a[bad].item()!r}, reference {want_a[bad].item()!r}", file=sys.stderr)
            ok = False
    return ok


def _check_writable(args: argparse.Namespace) -> None:
    """Refuse --trace / --output-dir targets that are unusable or would replace one of the run's
    inputs, before running (or compiling) anything."""
    inputs = _input_paths(args)
    check_output(args.trace, "--trace", inputs)
    if args.output_dir:
        check_dump_dir(args.output_dir, "--output-dir")


def _input_paths(args: argparse.Namespace) -> list[str | None]:
    return [args.input, args.reference, *args.kernels, *(v.partition("@")[2] for v in args.inputs if "@" in v)]


def _check_result_files(args: argparse.Namespace, count: int) -> None:
    """The files --output-dir will write, DIR/result<i>.npy: each is replaced (a symlink there is
    replaced, never followed), so it must not be a directory, nor an input itself."""
    if not args.output_dir:
        return
    inputs = [p for p in _input_paths(args) if p and p != "-"]
    for i in range(count):
        path = os.path.join(args.output_dir, f"result{i}.npy")
        try:
            entry = os.lstat(path)
        except OSError:
            continue
        for p in inputs:
            try:
                if os.path.samestat(entry, os.stat(p)):
                    raise OutputError(f"--output-dir {args.output_dir} would overwrite the input {p}"
                                      + ("" if os.path.abspath(p) == os.path.abspath(path) else f" (it is {path})"))
            except OSError:
                continue
        check_output(path, "--output-dir", follow=False)


def _write_trace(tracer: Any, path: str | None, failed: bool = False) -> None:
    if tracer is None or not path:
        return
    text = json.dumps(tracer.to_json(), indent=None)
    # A failed run's trace shows how far it got, but never replaces a trace the user already has.
    written = write_output(path, text, "--trace", keep_existing=failed)
    if written != path:
        print(f"streamproof run: the run failed; its trace is in {written} ({path} is kept as it was)", file=sys.stderr)


def _write_outputs(directory: str, results: list[Any]) -> None:
    for i, value in enumerate(results):
        buf = io.BytesIO()
        np.save(buf, np.asarray(value))
        write_output(os.path.join(directory, f"result{i}.npy"), buf.getvalue(), "--output-dir", follow=False)
