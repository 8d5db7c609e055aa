"""Make IREE 3.13 Stream dumps of a model: the files `bench/conformance.py` reads.

    pip install -e '.[iree]'        # iree-base-compiler 3.13.0 and onnx (about 100 MB)
    python bench/iree_dumps.py MODEL.onnx OUTDIR [--two-devices] [--externalize-params]
    python bench/iree_dumps.py input.mlir OUTDIR

An ONNX model is imported with `iree-import-onnx --opset-version 17` (with
`--externalize-params --num-elements-threshold 32` when asked: weights become named parameters);
an `.mlir` file is taken as IREE input as is. Then `iree-compile --compile-to=stream` (llvm-cpu, one
local device, or two with `--two-devices`) runs once for the final module and once more printing the
module after the scheduling passes; the dump is split on IREE's `// -----// IR Dump` headers and the
last dump of each kind is kept, in generic form:

    02_place_transfer_executions  the scheduling input (async ops, no execute regions)
    03_schedule_execution         iree-opt's schedule-execution run on 02
    04_schedule_concurrency       before propagate-timepoints
    05_propagate_timepoints       after propagate-timepoints
    07_schedule_allocation        after schedule-allocation (cmd level)
    10_elide_timepoints           after the last elide-timepoints
    99_final                      the --compile-to=stream output

The tools are found on PATH (or `$IREE_COMPILE`, `$IREE_OPT`, `$IREE_IMPORT_ONNX`); without them the
script says which is missing and exits 2.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

AFTER = {
    "iree-stream-place-transfer-executions": "02_place_transfer_executions",
    "iree-stream-propagate-timepoints": "05_propagate_timepoints",
    "iree-stream-schedule-allocation": "07_schedule_allocation",
    "iree-stream-elide-timepoints": "10_elide_timepoints",
}
BEFORE = {"iree-stream-propagate-timepoints": "04_schedule_concurrency"}
HEADER = re.compile(r"^// -----// IR Dump (Before|After) \S+: ([\w-]+)")


def tool(name: str) -> str:
    found = os.environ.get(name.upper().replace("-", "_")) or shutil.which(name)
    if found is None:
        sys.exit(f"error: {name} not found (pip install -e '.[iree]', or set ${name.upper().replace('-', '_')})")
    return found


def run(cmd: list[str]) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"error: {' '.join(cmd[:2])} failed:\n{proc.stderr[-4000:]}")
    return proc


def split_dumps(text: str) -> dict[str, str]:
    """The last dump of each kind, keyed by its stage file name."""
    dumps: dict[str, str] = {}
    name: str | None = None
    lines: list[str] = []
    for line in text.splitlines(keepends=True) + ["// -----// IR Dump After end\n"]:
        m = HEADER.match(line)
        if m is None:
            lines.append(line)
            continue
        if name is not None:
            dumps[name] = "".join(lines).strip() + "\n"
        table = AFTER if m.group(1) == "After" else BEFORE
        name = table.get(m.group(2))
        lines = []
    return dumps


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("model", type=Path, help="an ONNX model or an IREE input .mlir")
    p.add_argument("out", type=Path, help="folder for input.mlir and the stage files")
    p.add_argument("--two-devices", action="store_true", help="device_a=local[0], device_b=local[1]")
    p.add_argument("--externalize-params", action="store_true", help="ONNX weights as named parameters")
    args = p.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    source = args.out / "input.mlir"
    if args.model.suffix == ".onnx":
        cmd = [tool("iree-import-onnx"), str(args.model), "--opset-version", "17", "-o", str(source)]
        if args.externalize_params:
            cmd += ["--externalize-params", "--num-elements-threshold", "32"]
        run(cmd)
    elif args.model.resolve() != source.resolve():
        shutil.copyfile(args.model, source)
    if args.two_devices:
        dev = ["--iree-hal-target-device=device_a=local[0]", "--iree-hal-target-device=device_b=local[1]"]
    else:
        dev = ["--iree-hal-target-device=local"]
    dev.append("--iree-hal-local-target-device-backends=llvm-cpu")
    compile_ = [tool("iree-compile"), str(source), *dev, "--compile-to=stream", "--mlir-print-op-generic"]
    run([*compile_, "-o", str(args.out / "99_final.generic.mlir")])
    dumped = run(
        [
            *compile_,
            "-o",
            os.devnull,
            "--mlir-print-ir-after=" + ",".join(AFTER),
            "--mlir-print-ir-before=iree-stream-propagate-timepoints",
            "--mlir-print-ir-module-scope",
            "--mlir-disable-threading",
        ]
    )
    for name, text in split_dumps(dumped.stderr).items():
        (args.out / f"{name}.generic.mlir").write_text(text)
    placed = args.out / "02_place_transfer_executions.generic.mlir"
    if placed.exists():
        pipeline = "builtin.module(util.func(iree-stream-schedule-execution),util.initializer(iree-stream-schedule-execution))"
        out = run([tool("iree-opt"), str(placed), "--mlir-print-op-generic", f"--pass-pipeline={pipeline}"])
        (args.out / "03_schedule_execution.generic.mlir").write_text(out.stdout)
    print(f"wrote {len(list(args.out.glob('[0-9]*.mlir')))} stage files to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
