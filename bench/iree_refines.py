"""Refinement on IREE's own passes: `verify OUT --refines IN` over IREE's Stream Transforms lit tests.

    python bench/iree_refines.py [TEST_DIR] [--only NAME] [--jobs N] [--timeout S] [--generic]

For each lit test file of IREE's Stream Transforms (TEST_DIR, default
$IREE_SRC/compiler/src/iree/compiler/Dialect/Stream/Transforms/test for an IREE checkout
$IREE_SRC), the first `// RUN: iree-opt ...` line gives the pass pipeline (its flags, without
`--split-input-file` and FileCheck). Each `// -----` case is run through `iree-opt` with those flags;
a case iree-opt rejects is counted `iree-rejects` (expected-error cases). Otherwise
`streamproof verify OUT --refines IN` is run and its outcome recorded: proved (exit 0), the
violated property classes (exit 1, e.g. VALUE_MISMATCH), refused (exit 2, the first error) or
undecided (exit 3). One row per case, then totals by outcome. With `--generic`, both the case
and the pass output are iree-opt's generic print (the pretty syntax of ops outside a Stream module,
such as `scf.for`, is not read), so that control flow is compared too.

Needs IREE's iree-opt (3.13): $IREE_OPT, else `iree-opt` on PATH; says so and exits 2 when missing.
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SUBDIR = "compiler/src/iree/compiler/Dialect/Stream/Transforms/test"
# A violation line: `FILE:L:C: error: CLASS in @f...` (not "could not decide CLASS", which is undecided).
CLASS_RE = re.compile(r"\berror: ([A-Z][A-Z_]{3,}[A-Z]) in @")


def find_iree_opt() -> str | None:
    env = os.environ.get("IREE_OPT")
    if env and Path(env).exists():
        return env
    return shutil.which("iree-opt")


def pipeline_flags(text: str) -> list[str] | None:
    """The iree-opt flags of the file's first RUN line (None when it has no iree-opt RUN line)."""
    for line in text.splitlines():
        m = re.match(r"\s*//\s*RUN:\s*(.*)", line)
        if not m or "iree-opt" not in m.group(1):
            continue
        cmd = m.group(1).split("|")[0]
        words = cmd.split()
        words = words[words.index("iree-opt") + 1 :]
        return [w for w in words if w not in ("%s", "--split-input-file", "-split-input-file")
                and not w.startswith("--verify-diagnostics")]
    return None


def cases(text: str) -> list[str]:
    return [c for c in re.split(r"^// -----\s*$", text, flags=re.M) if c.strip()]


def verdict(proc: subprocess.CompletedProcess[str]) -> str:
    out = proc.stdout + proc.stderr
    if proc.returncode == 0:
        return "proved"
    if proc.returncode == 1:
        classes = sorted(set(CLASS_RE.findall(out)))
        return "violated:" + ",".join(classes[:3]) if classes else "violated"
    if proc.returncode == 2:
        return "refused"
    return "undecided"


def first_error(proc: subprocess.CompletedProcess[str]) -> str:
    """The first refinement finding (VALUE_MISMATCH or why it is undecided), else the first error."""
    lines = [ln for ln in (proc.stdout + proc.stderr).splitlines() if "error:" in ln]
    ranked = [ln for ln in lines if "VALUE_MISMATCH" in ln] or lines
    return ranked[0].split("error:", 1)[-1].strip()[:110] if ranked else ""


GENERIC = ["--mlir-print-op-generic", "--allow-unregistered-dialect"]


def run_case(iree_opt: str, flags: list[str], src: str, work: Path, timeout: float, generic: bool = False) -> tuple[str, str]:
    work.mkdir(parents=True, exist_ok=True)
    inp, out = work / "in.mlir", work / "out.mlir"
    inp.write_text(src)
    try:
        if generic:
            written = work / "written.mlir"
            inp.rename(written)
            if subprocess.run([iree_opt, *GENERIC, str(written), "-o", str(inp)], capture_output=True, text=True,
                              timeout=timeout).returncode != 0:
                return "iree-rejects", ""
        p = subprocess.run([iree_opt, *flags, *(GENERIC if generic else []), str(inp), "-o", str(out)],
                           capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "iree-timeout", ""
    if p.returncode != 0:
        return "iree-rejects", ""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    try:
        v = subprocess.run([sys.executable, "-m", "streamproof", "verify", str(out), "--refines",
                            str(inp)], capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return "timeout", ""
    return verdict(v), first_error(v) if v.returncode else ""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    src = os.environ.get("IREE_SRC")
    ap.add_argument("test_dir", nargs="?", default=str(Path(src) / SUBDIR) if src else None)
    ap.add_argument("--only", help="only lit files whose name contains this")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--generic", action="store_true", help="compare iree-opt's generic prints of the case and the output")
    args = ap.parse_args(argv)
    iree_opt = find_iree_opt()
    if iree_opt is None:
        print("iree_refines: IREE's iree-opt not found (set $IREE_OPT or put it on PATH; "
              "pip install iree-base-compiler==3.13.0)", file=sys.stderr)
        return 2
    if args.test_dir is None:
        print(f"iree_refines: pass the lit test folder ({SUBDIR} of an IREE checkout) or set $IREE_SRC", file=sys.stderr)
        return 2
    tdir = Path(args.test_dir)
    if not tdir.is_dir():
        print(f"iree_refines: no lit test folder {tdir} (set $IREE_SRC)", file=sys.stderr)
        return 2
    jobs: list[tuple[str, int, list[str], str]] = []
    for f in sorted(tdir.glob("*.mlir")):
        if args.only and args.only not in f.name:
            continue
        text = f.read_text()
        flags = pipeline_flags(text)
        if flags is None:
            continue
        for i, c in enumerate(cases(text)):
            jobs.append((f.name, i, flags, c))
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(args.jobs) as pool:
        futs = [pool.submit(run_case, iree_opt, fl, c, Path(tmp) / f"{n}.{i}", args.timeout, args.generic)
                for n, i, fl, c in jobs]
        totals: collections.Counter[str] = collections.Counter()
        print(f"{'file':44} {'case':>4}  outcome  first error")
        for (n, i, _, _), fut in zip(jobs, futs):
            outcome, err = fut.result()
            totals[outcome] += 1
            print(f"{n:44} {i:4}  {outcome}  {err}", flush=True)
    print("\ntotals:", ", ".join(f"{k} {v}" for k, v in totals.most_common()),
          f"(cases {len(jobs)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
