"""Memory and time of long string attributes: parse, then print (pretty and generic).

    python bench/bench_strings.py [--mb 0.3 1 3 10] [--kinds plain escaped utf8] [--baseline REV]

Each text is one function with a string attribute of `--mb` million characters:
`plain` is ASCII letters, `escaped` alternates letters with MLIR escapes (`\\n`, `\\22`, `\\\\`,
about one character in three is a backslash), `utf8` is raw non-ASCII text (two UTF-8 bytes a
character; printed back as `\\XX` escapes, as MLIR does).

Every measurement runs in a fresh worker process: the peak resident set size (`VmHWM`) of
the phase minus the resident size just before it, after the text was read, so imports and the
input text itself are not counted. "B/char" is that growth over the string's length. Each
worker checks that the string reads back: the pretty and generic prints parse to the same value.

`--baseline REV` also measures the `stream` package of git revision REV (as bench_text.py does).
The goal (issue 9, item 14): memory linear in the input with a small constant (a 3 MB string
took 916 MB before; iree-opt takes 95 MB).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from bench_text import export_stream  # noqa: E402


def string_body(kind: str, chars: int) -> str:
    """The literal's body (as written in the file) for about `chars` characters of value."""
    if kind == "plain":
        return ("abcdefghij" * (chars // 10 + 1))[:chars]
    if kind == "escaped":
        unit = "ab\\ncd\\22ef\\\\"  # 9 characters of value in 13 of text
        return unit * (chars // 9 + 1)
    if kind == "utf8":
        return ("é€ü" * (chars // 3 + 1))[:chars]
    raise ValueError(kind)


def text_of(kind: str, chars: int) -> str:
    return f'util.func public @f() attributes {{s = "{string_body(kind, chars)}"}} {{\n  util.return\n}}\n'


def _rss_kb() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024


def _peak_kb() -> int:
    # VmHWM, the high-water mark of this process's own address space. Not ru_maxrss: Linux
    # carries that across execve, so a worker would report its parent's size as its own peak.
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))


def worker(text_file: str, phase: str) -> None:
    import stream.ir as ir

    ir.print_module(ir.parse_module(text_of("escaped", 10), "warm.mlir"))  # load the dialect tables first
    text = Path(text_file).read_text()
    before = _rss_kb()
    start = time.perf_counter()
    m = ir.parse_module(text, "s.mlir")
    if phase == "print":
        pretty = ir.print_module(m)
        generic = ir.print_module(m, generic=True)
    seconds = time.perf_counter() - start
    peak = _peak_kb()
    value = m.ops[0].attributes["s"] if "s" in m.ops[0].attributes else m.ops[0].properties["s"]
    if phase == "print":  # the string reads back from both forms
        for printed in (pretty, generic):
            again = ir.parse_module(printed, "again.mlir").ops[0]
            assert (again.attributes.get("s") or again.properties.get("s")) == value
    print(json.dumps({"kb": peak - before, "seconds": seconds, "chars": len(value.value),
                      "package": str(Path(ir.__file__).parent)}))


def measure(tree: Path, text_file: Path, phase: str) -> dict[str, Any]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tree), str(ROOT)]))
    out = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--worker", str(text_file), phase],
                         env=env, check=True, capture_output=True, text=True).stdout
    result: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    if not result.pop("package").startswith(str(tree)):
        raise SystemExit(f"the worker did not import stream from {tree}")
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", type=float, nargs="+", default=[0.3, 1, 3, 10], help="string lengths, millions of characters")
    ap.add_argument("--kinds", nargs="+", default=["plain", "escaped", "utf8"])
    ap.add_argument("--baseline", metavar="REV", help="also measure the stream package of this git revision")
    ap.add_argument("--worker", nargs=2, metavar=("TEXT", "PHASE"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(*args.worker)
        return
    print(f"# {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"load {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as tmp:
        trees = {"current": ROOT}
        if args.baseline:
            trees = {args.baseline: export_stream(args.baseline, Path(tmp)), **trees}
        print("| kind | M chars | tree | parse MB | parse B/char | parse s | parse+print MB | parse+print B/char | parse+print s |")
        print("|---|---|---|---|---|---|---|---|---|")
        for kind in args.kinds:
            for mb in args.mb:
                text_file = Path(tmp) / f"{kind}-{mb}.mlir"
                text_file.write_text(text_of(kind, int(mb * 1e6)))
                for name, tree in trees.items():
                    parse = measure(tree, text_file, "parse")
                    both = measure(tree, text_file, "print")
                    n = parse["chars"]
                    print(f"| {kind} | {n / 1e6:.1f} | {name} | {parse['kb'] / 1024:.0f} | {parse['kb'] * 1024 / n:.0f} | "
                          f"{parse['seconds']:.2f} | {both['kb'] / 1024:.0f} | {both['kb'] * 1024 / n:.0f} | {both['seconds']:.2f} |",
                          flush=True)


if __name__ == "__main__":
    main()
