"""Conformance over a folder of IREE dumps: parse, round trip, verify and refinement per file.

    python bench/conformance.py [FOLDER ...] [--timeout 300] [--no-refines] [--iree-opt PATH]
                                [--markdown] [--json OUT.json]

FOLDER (default `tests/data/iree_models`) is searched recursively for stage files, the
`NN_name[.generic].mlir` files IREE's dump scripts write (a model's `input.mlir` is IREE's own
input, not Stream IR, and is skipped). Each file is checked in a fresh worker process, so that its
peak memory (the worker's maximum resident set, from `wait4`) and time are its own:

* parse: the file as IREE printed it;
* round trip: our pretty and generic prints read back to the same module (alpha-equal), and, when
  IREE's `iree-opt` is found (`--iree-opt`, `$IREE_OPT` or PATH), iree-opt re-reads both prints and
  prints them exactly as it prints the original;
* verify: the safety properties (status, obligations, seconds);
* refines: against the previous stage file of the same folder (stages sorted by number), i.e.
  translation validation of IREE's passes between the two snapshots.

One row per file, then totals per outcome. The outcome of a file is the first step that did not
succeed: `parse-error`, `round-trip`, `violated`, `unknown` (undecided), `refused` (the verifier
cannot reason about the construct, named in the detail column), `timeout`, `crash`; `proved` when
verify proved everything (refinement is reported in its own column).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

STAGE = re.compile(r"^(\d+)_[A-Za-z0-9_]+(\.generic)?\.mlir$")
ROOT = Path(__file__).resolve().parent.parent


@dataclass(slots=True)
class Row:
    file: str
    stage: str
    outcome: str = "crash"
    detail: str = ""
    round_trip: str = "-"
    obligations: int = 0
    z3_queries: int = 0
    verify_s: float = 0.0
    refines: str = "-"
    refines_detail: str = ""
    total_s: float = 0.0
    peak_mb: float = 0.0
    refines_s: float = 0.0


def stage_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.mlir") if STAGE.match(p.name))


def previous_stage(path: Path) -> Path | None:
    """The stage file of the same folder with the next-lower stage number (same form)."""
    m = STAGE.match(path.name)
    assert m is not None
    generic = bool(m.group(2))
    earlier = [
        p
        for p in path.parent.glob("*.mlir")
        if (n := STAGE.match(p.name)) and bool(n.group(2)) == generic and int(n.group(1)) < int(m.group(1))
    ]
    return max(earlier, key=lambda p: int(STAGE.match(p.name).group(1)), default=None)  # type: ignore[union-attr]


# -- the worker (one process per file) ----------------------------------------------------------


def _first_line(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line[:160]


def _iree_round_trip(iree_opt: str, original: Path, prints: dict[str, str]) -> str:
    """'ok' when iree-opt prints each of our prints exactly as it prints the original."""
    want = subprocess.run([iree_opt, str(original)], capture_output=True, text=True)
    if want.returncode != 0:
        return f"iree-opt refuses the original: {_first_line(want.stderr)}"
    for form, text in prints.items():
        got = subprocess.run([iree_opt, "-"], input=text, capture_output=True, text=True)
        if got.returncode != 0:
            return f"iree-opt refuses our {form} print: {_first_line(got.stderr)}"
        if got.stdout != want.stdout:
            return f"iree-opt prints our {form} print differently"
    return "ok"


def work(path: Path, refines: bool, iree_opt: str | None) -> dict[str, Any]:
    from stream.ir import DiagnosticError, parse_module, print_module
    from stream.ir.element_types import check_sized
    from stream.ir.equality import first_difference
    from stream.ir.verifier import verify_structure
    from verify import verify_module
    from verify.hook import refinement_findings

    out: dict[str, Any] = {}
    text = path.read_text()
    try:
        module = parse_module(text, str(path))
        verify_structure(module)  # what `streamproof verify` refuses as bad input (exit 2)
        check_sized(module)
    except DiagnosticError as e:
        return {"outcome": "parse-error", "detail": _first_line(str(e))}
    prints = {"pretty": print_module(module), "generic": print_module(module, generic=True)}
    trip = "ok"
    for form, printed in prints.items():
        try:
            again = parse_module(printed, f"<{form} print>")
        except DiagnosticError as e:
            trip = f"our {form} print does not read back: {_first_line(str(e))}"
            break
        diff = first_difference(module, again)
        if diff is not None:
            trip = f"our {form} print reads back differently: {diff[:120]}"
            break
    if trip == "ok" and iree_opt:
        trip = _iree_round_trip(iree_opt, path, prints)
    out["round_trip"] = trip
    start = time.perf_counter()
    try:
        report = verify_module(module, file=str(path))
    except DiagnosticError as e:
        out.update(outcome="refused", detail=_first_line(str(e)), verify_s=time.perf_counter() - start)
        return out
    summary = report.to_json()["summary"]
    out["verify_s"] = time.perf_counter() - start
    out["obligations"] = int(summary.get("obligations", 0))
    out["z3_queries"] = int(summary.get("z3_queries", 0))
    out["outcome"] = report.status
    if report.status != "proved":
        first = report.errors[0] if report.errors else None
        if first is not None:
            out["detail"] = f"{first.cls}: {_first_line(first.message)}"
        elif report.unknowns:
            out["detail"] = _first_line(str(report.unknowns[0].reason))
        elif report.unchecked:
            out["detail"] = _first_line(f"@{report.unchecked[0].name} {report.unchecked[0].note}")
    if trip != "ok" and out["outcome"] == "proved":
        out["outcome"] = "round-trip"
        out["detail"] = trip
    if refines and (before := previous_stage(path)) is not None:
        try:
            earlier = parse_module(before.read_text(), str(before))
            verify_structure(earlier)
            start = time.perf_counter()
            found, undecided = refinement_findings(earlier, module, None)
            out["refines_s"] = time.perf_counter() - start
            mismatches = [v for v in found if v.cls == "VALUE_MISMATCH"]
            if mismatches:
                out["refines"] = "mismatch"
                out["refines_detail"] = _first_line(mismatches[0].message)
            elif undecided:
                out["refines"] = "unknown"
                out["refines_detail"] = _first_line(undecided[0].reason)
            else:
                out["refines"] = "holds"
        except DiagnosticError as e:
            out["refines"] = "refused"
            out["refines_detail"] = _first_line(str(e))
    return out


# -- the driver ---------------------------------------------------------------------------------


def run_one(path: Path, args: argparse.Namespace, iree_opt: str | None) -> Row:
    row = Row(file=str(path), stage=STAGE.match(path.name).group(1))  # type: ignore[union-attr]
    cmd = [sys.executable, __file__, "--worker", str(path)]
    if args.no_refines:
        cmd.append("--no-refines")
    if iree_opt:
        cmd += ["--iree-opt", iree_opt]
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        stdout, stderr = proc.communicate(timeout=args.timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        stdout, stderr = proc.communicate()
        row.outcome, row.detail = "timeout", f"over {args.timeout:g} s"
    row.total_s = time.perf_counter() - start
    if row.outcome == "timeout":
        return row
    try:
        data = json.loads(stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        row.detail = _first_line(stderr.strip().splitlines()[-1] if stderr.strip() else f"exit {proc.returncode}")
        return row
    for key, value in data.items():
        if isinstance(value, str):
            value = value.replace(f"{path.parent}/", "")  # diagnostics name the file: keep the row short
        setattr(row, key, value)
    return row


def table(rows: list[Row], markdown: bool) -> str:
    head = ["file", "stage", "outcome", "round trip", "obligations", "z3", "verify s", "refines", "peak MB", "detail"]
    lines = []
    if markdown:
        lines += ["| " + " | ".join(head) + " |", "|" + "|".join("---" if i in (0, 2, 3, 7, 9) else "---:" for i in range(len(head))) + "|"]
    for r in rows:
        cells = [
            r.file,
            r.stage,
            r.outcome,
            "ok" if r.round_trip == "ok" else ("-" if r.round_trip == "-" else "FAIL"),
            str(r.obligations),
            str(r.z3_queries),
            f"{r.verify_s:.2f}",
            r.refines,
            f"{r.peak_mb:.0f}",
            (r.detail or r.refines_detail or ("" if r.round_trip in ("ok", "-") else r.round_trip)).replace("|", "\\|"),
        ]
        lines.append("| " + " | ".join(cells) + " |" if markdown else "  ".join(cells))
    return "\n".join(lines)


def totals(rows: list[Row]) -> str:
    def count(attr: str) -> str:
        c: dict[str, int] = {}
        for r in rows:
            c[getattr(r, attr)] = c.get(getattr(r, attr), 0) + 1
        return ", ".join(f"{k} {v}" for k, v in sorted(c.items(), key=lambda kv: -kv[1]))

    times = sorted(r.verify_s for r in rows if r.outcome not in ("parse-error", "crash", "timeout"))
    median = times[len(times) // 2] if times else 0.0
    trip = sum(r.round_trip == "ok" for r in rows)
    return (
        f"{len(rows)} files. outcome: {count('outcome')}. round trip ok: {trip}/{len(rows)}. "
        f"refines: {count('refines')}. verify median {median:.2f} s, max {max(times, default=0.0):.2f} s; "
        f"peak {max((r.peak_mb for r in rows), default=0.0):.0f} MB."
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("folders", nargs="*", type=Path, default=[ROOT / "tests" / "data" / "iree_models"])
    p.add_argument("--timeout", type=float, default=300.0, help="seconds per file (default 300)")
    p.add_argument("--no-refines", action="store_true", help="skip refinement against the previous stage")
    p.add_argument("--iree-opt", help="IREE's iree-opt for the re-read check (default $IREE_OPT or PATH)")
    p.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    p.add_argument("--json", type=Path, help="also write the rows as JSON")
    p.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker is not None:
        data = work(args.worker, not args.no_refines, args.iree_opt)
        data["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
        print(json.dumps(data))
        return 0
    iree_opt = args.iree_opt or os.environ.get("IREE_OPT") or shutil.which("iree-opt")
    if iree_opt is None:
        print("note: iree-opt not found (--iree-opt, $IREE_OPT or PATH): the IREE re-read check is skipped", file=sys.stderr)
    files = [f for folder in args.folders for f in stage_files(folder)]
    if not files:
        print(f"error: no stage files (NN_name.mlir) under {', '.join(map(str, args.folders))}", file=sys.stderr)
        return 2
    rows = []
    for f in files:
        rows.append(run_one(f, args, iree_opt))
        print(table(rows[-1:], markdown=False), file=sys.stderr, flush=True)
    common = os.path.commonpath([str(f.parent) for f in files]) if len(files) > 1 else str(files[0].parent)
    for r in rows:
        r.file = os.path.relpath(r.file, common)
    print(table(rows, args.markdown))
    print()
    print(totals(rows))
    if args.json:
        args.json.write_text(json.dumps([_row_dict(r) for r in rows], indent=1))
    return 0


def _row_dict(r: Row) -> dict[str, Any]:
    return {k: getattr(r, k) for k in Row.__slots__}  # type: ignore[attr-defined]


if __name__ == "__main__":
    sys.exit(main())
