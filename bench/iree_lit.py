"""IREE's Stream lit tests as a conformance suite: read both forms, print back, verify.

    python bench/iree_lit.py [IREE_SRC] [--iree-opt PATH] [--only NAME] [--markdown] [--json OUT]
    python bench/iree_lit.py --summarize OUT

Every `*.mlir` under `compiler/src/iree/compiler/Dialect/Stream/**/test/` of an IREE checkout
(IREE_SRC, default `$IREE_SRC`; the tests are read in place, never copied) is
split at `// -----`. For each case:

* `iree-rejects`: iree-opt (no passes, `--allow-unregistered-dialect`) does not accept it (the
  expected-error cases, and ops newer than the installed IREE); nothing else is counted for it;
* `written` / `iree-pretty` / `iree-generic`: we parse the case as written, and iree-opt's pretty
  and generic prints of it;
* `round trip`: our pretty and generic prints of the case (the form verified) read back to the same module, and
  iree-opt re-reads both and prints them exactly as it prints the case;
* `verify`: the verifier's outcome on the case as written (else on iree-opt's generic print,
  which the `form` column says): proved (with the obligation count;
  `nothing` when there was nothing to prove), violated, unknown, refused (the construct named).

Totals per column, the refusals grouped by reason (symbol names and numbers blanked). Needs IREE 3.13's iree-opt
(`pip install -e '.[iree]'`): `$IREE_OPT`, else `iree-opt` on PATH; exits 2 saying so when missing.
"""

from __future__ import annotations

import argparse
import collections
import json
import multiprocessing
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SUBDIR = "compiler/src/iree/compiler/Dialect/Stream"
SPLIT = re.compile(r"^// -----\s*$", re.M)
FLAGS = ["--allow-unregistered-dialect"]


def find_iree_opt(explicit: str | None) -> str | None:
    for cand in (explicit, os.environ.get("IREE_OPT")):
        if cand and Path(cand).exists():
            return cand
    return shutil.which("iree-opt")


def cases(src: Path, only: str | None) -> list[tuple[str, int, str]]:
    out = []
    for path in sorted((src / SUBDIR).glob("**/test/*.mlir")):
        if only and only not in path.name:
            continue
        rel = str(path.relative_to(src / SUBDIR))
        for i, text in enumerate(SPLIT.split(path.read_text())):
            if text.strip() and any(not ln.lstrip().startswith("//") for ln in text.splitlines() if ln.strip()):
                out.append((rel, i, text))
    return out


def _opt(iree_opt: str, text: str, *flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([iree_opt, *FLAGS, *flags, "-"], input=text, capture_output=True, text=True, timeout=120)


def _first(text: str) -> str:
    for line in text.splitlines():
        if "error:" in line:
            return line.split("error:", 1)[1].strip()[:120]
    return (text.strip().splitlines() or [""])[0][:120]


_NAMES = re.compile(r"@\"[^\"]*\"|@[\w$.-]+|%[\w#]+|\b\d+\b")


def _reason(text: str) -> str:
    """A reason with its symbol and value names and numbers blanked, to group alike ones.

    Details are stored cut at 120 characters, so a parenthesized tail is cut at different
    places depending on the names before it: it is dropped."""
    return " ".join(_NAMES.sub("_", text).split(" (")[0].split()[:16])


def check(job: tuple[str, int, str, str]) -> dict[str, Any]:
    from stream.ir import DiagnosticError, parse_module, print_module
    from stream.ir.equality import first_difference
    from verify import verify_module

    rel, index, text, iree_opt = job
    row: dict[str, Any] = {"file": rel, "case": index}
    pretty = _opt(iree_opt, text)
    if pretty.returncode != 0:
        row["outcome"] = "iree-rejects"
        return row
    generic = _opt(iree_opt, text, "--mlir-print-op-generic")
    module = None
    for form, body in (("written", text), ("iree-pretty", pretty.stdout), ("iree-generic", generic.stdout)):
        try:
            parsed = parse_module(body, f"{rel}#{index}")
            row[form] = "ok"
            if module is None and form != "iree-pretty":
                module = parsed
                row["form"] = form
        except DiagnosticError as e:
            row[form] = _first(str(e))
        except Exception as e:  # noqa: BLE001 - a crash is a result of the suite, not of the script
            row[form] = f"crash: {type(e).__name__}: {e}"[:120]
    if module is None:
        row["outcome"] = "unread"
        return row
    trip = "ok"
    for generic_form in (False, True):
        printed = print_module(module, generic=generic_form)
        try:
            if first_difference(module, parse_module(printed, "<print>")) is not None:
                trip = "ours reads back differently"
        except DiagnosticError as e:
            trip = f"ours does not read back: {_first(str(e))}"
        if trip == "ok":
            got = _opt(iree_opt, printed)
            if got.returncode != 0:
                trip = f"iree-opt refuses our {'generic' if generic_form else 'pretty'} print: {_first(got.stderr)}"
            elif got.stdout != pretty.stdout:
                trip = f"iree-opt prints our {'generic' if generic_form else 'pretty'} print differently"
        if trip != "ok":
            break
    row["round_trip"] = trip
    try:
        report = verify_module(module, file=f"{rel}#{index}")
        summary = report.to_json()["summary"]
        obligations = int(summary.get("obligations", 0))
        row["verify"] = report.status if report.status != "proved" or obligations else "nothing"
        row["obligations"] = obligations
        if report.errors:
            row["detail"] = f"{report.errors[0].cls}"
        elif report.unknowns:
            row["detail"] = str(report.unknowns[0].reason)[:120]
        elif report.unchecked:
            row["detail"] = f"not checked: {report.unchecked[0].note}"[:120]
    except DiagnosticError as e:
        row["verify"] = "refused"
        row["detail"] = _first(str(e))
    except Exception as e:  # noqa: BLE001
        row["verify"] = "crash"
        row["detail"] = f"{type(e).__name__}: {e}"[:120]
    row["outcome"] = "read"
    return row


def summarize(rows: list[dict[str, Any]], markdown: bool) -> str:
    valid = [r for r in rows if r["outcome"] != "iree-rejects"]
    lines = [f"cases: {len(rows)}; iree-opt accepts {len(valid)} (rejects {len(rows) - len(valid)})"]
    for col in ("written", "iree-pretty", "iree-generic"):
        ok = sum(1 for r in valid if r.get(col) == "ok")
        lines.append(f"parse {col}: {ok} / {len(valid)}")
    read = [r for r in valid if r["outcome"] == "read"]
    lines.append(f"round trip (ours both forms, iree-opt re-reads identically): "
                 f"{sum(1 for r in read if r.get('round_trip') == 'ok')} / {len(read)}")
    for form in ("written", "iree-generic"):
        verdicts = collections.Counter(r.get("verify", "-") for r in read if r.get("form") == form)
        lines.append(f"verify ({form}): " + ", ".join(f"{k} {v}" for k, v in sorted(verdicts.items())))
    refused = collections.Counter(_reason(str(r.get("detail", ""))) for r in read if r.get("verify") == "refused")
    if refused:
        lines.append("refused, by reason (symbol names and numbers blanked):")
        lines += [f"  {n:4d}  {why}" for why, n in refused.most_common(12)]
    trips = collections.Counter(str(r.get("round_trip"))[:80] for r in read if r.get("round_trip") != "ok")
    if trips:
        lines.append("round trip failures:")
        lines += [f"  {n:4d}  {why}" for why, n in trips.most_common(12)]
    unread = collections.Counter(str(r.get("written"))[:80] for r in valid if r.get("written") != "ok")
    if unread:
        lines.append("not parsed as written:")
        lines += [f"  {n:4d}  {why}" for why, n in unread.most_common(12)]
    text = "\n".join(lines)
    return f"```\n{text}\n```" if markdown else text


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("src", nargs="?", default=os.environ.get("IREE_SRC"))
    ap.add_argument("--iree-opt")
    ap.add_argument("--only")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--json", help="write the rows to this file")
    ap.add_argument("--summarize", metavar="JSON", help="print the totals of rows saved with --json; runs nothing")
    args = ap.parse_args(argv)
    if args.summarize:
        print(summarize(json.loads(Path(args.summarize).read_text()), args.markdown))
        return 0
    iree_opt = find_iree_opt(args.iree_opt)
    if iree_opt is None:
        print("iree_lit: iree-opt not found: pip install -e '.[iree]' (iree-base-compiler 3.13.0), "
              "or set $IREE_OPT", file=sys.stderr)
        return 2
    if args.src is None:
        print("iree_lit: pass an IREE source checkout (or set $IREE_SRC)", file=sys.stderr)
        return 2
    src = Path(args.src)
    if not (src / SUBDIR).is_dir():
        print(f"iree_lit: {src / SUBDIR} is not a directory: pass an IREE checkout (or set $IREE_SRC)", file=sys.stderr)
        return 2
    jobs = [(rel, i, text, iree_opt) for rel, i, text in cases(src, args.only)]
    with multiprocessing.get_context("spawn").Pool(args.jobs, maxtasksperchild=50) as pool:
        rows = pool.map(check, jobs, chunksize=4)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    print(summarize(rows, args.markdown))
    return 0


if __name__ == "__main__":
    sys.exit(main())
