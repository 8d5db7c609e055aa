"""The result of a refinement check: mismatches, undecided questions, and their renderings.

Text form (one block per finding, `file:line:col: error:` first so editors jump to it):

    after.mlir:27:11: error: VALUE_MISMATCH in @f: result 0 (%9) differs at bytes [1024, 2048)
      after:  @ex::@mm#2(arg0[4096], arg1[4096])[1024]
      before: @ex::@mm#1(arg0[4096], arg1[4096])[1024]
      first diverging op of AFTER: stream.cmd.dispatch @ex::@mm at after.mlir:27:11
      why: ...

JSON form (`to_json()`, schema `streamproof.refinement/1`): `{"schema", "status", "before",
"after", "functions", "mismatches": [...], "unknowns": [...], "stats": {...}}` with one object per
finding carrying the fields of `Mismatch` / `Unknown` (locations as `{"file", "line", "col"}`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from stream.ir.core import Location

__all__ = ["Mismatch", "Unknown", "RefinementReport", "SCHEMA"]

SCHEMA = "streamproof.refinement/1"


def _loc(location: Location | None) -> dict[str, Any] | None:
    if location is None:
        return None
    return {"file": location.file, "line": location.line, "col": location.col}


@dataclass(slots=True)
class Mismatch:
    """AFTER computes a different value than BEFORE for one observable of one function.

    `observable` is "result" (function result `result`), "argument" (the caller-visible buffer
    of argument `result`, written in place), "global" (what the mutable global `result_name`
    holds when the call returns) or "initial global" (what it holds after the initializers). `op`/`location` name the first op of AFTER where the
    value terms diverge; `byte_range` is the first differing range within the observable;
    `before`/`after` render the two terms there. `assumptions` and `example` describe the case
    (when the check split on symbolic sizes) in which the values differ."""

    function: str
    result: int
    result_name: str
    observable: str
    op: str | None
    location: Location | None
    byte_range: tuple[str, str] | None
    before: str
    after: str
    message: str
    assumptions: list[str] = field(default_factory=list)
    example: dict[str, int] = field(default_factory=dict)
    klass: str = "VALUE_MISMATCH"

    @property
    def what(self) -> str:
        if self.observable == "global":
            return f"the mutable global {self.result_name} when the call returns"
        if self.observable == "initial global":
            return f"the mutable global {self.result_name} after the initializers"
        return f"result {self.result} ({self.result_name})" if self.observable == "result" else (
            f"the caller's buffer of argument {self.result} ({self.result_name})"
        )

    def render_text(self) -> str:
        where = f"{self.location}: " if self.location is not None else ""
        span = f" at bytes [{self.byte_range[0]}, {self.byte_range[1]})" if self.byte_range else ""
        lines = [f"{where}error: {self.klass} in @{self.function}: {self.what} differs{span}"]
        lines.append(f"  after:  {self.after}")
        lines.append(f"  before: {self.before}")
        if self.op is not None:
            lines.append(f"  first diverging op of AFTER: {self.op}" + (f" at {self.location}" if self.location else ""))
        if self.message:
            lines.append(f"  why: {self.message}")
        if self.assumptions:
            lines.append("  when: " + " and ".join(self.assumptions))
        if self.example:
            lines.append("  for example: " + ", ".join(f"{k} = {v}" for k, v in sorted(self.example.items())))
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        return {
            "class": self.klass,
            "function": self.function,
            "observable": self.observable,
            "result": self.result,
            "result_name": self.result_name,
            "op": self.op,
            "location": _loc(self.location),
            "byte_range": list(self.byte_range) if self.byte_range else None,
            "before": self.before,
            "after": self.after,
            "message": self.message,
            "assumptions": self.assumptions,
            "example": self.example,
        }


@dataclass(slots=True)
class Unknown:
    """The check could not decide refinement for a function (fails closed: never "proved")."""

    function: str
    reason: str
    location: Location | None = None
    assumptions: list[str] = field(default_factory=list)
    klass: str = "REFINEMENT_UNKNOWN"

    def render_text(self) -> str:
        where = f"{self.location}: " if self.location is not None else ""
        lines = [f"{where}error: {self.klass} in @{self.function}: cannot decide refinement: {self.reason}"]
        if self.assumptions:
            lines.append("  when: " + " and ".join(self.assumptions))
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        return {
            "class": self.klass,
            "function": self.function,
            "reason": self.reason,
            "location": _loc(self.location),
            "assumptions": self.assumptions,
        }


@dataclass(slots=True)
class RefinementReport:
    """`ok` is True only when every function of BEFORE was proved refined by AFTER."""

    before: str
    after: str
    functions: list[str] = field(default_factory=list)
    mismatches: list[Mismatch] = field(default_factory=list)
    unknowns: list[Unknown] = field(default_factory=list)
    cases: int = 0
    solver_queries: int = 0
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.mismatches and not self.unknowns

    @property
    def status(self) -> str:
        """"proved", "mismatch" or "unknown" (a mismatch wins over an unknown)."""
        if self.mismatches:
            return "mismatch"
        return "unknown" if self.unknowns else "proved"

    @property
    def exit_code(self) -> int:
        """The CLI's convention: 0 proved, 1 a property failed, 3 unknown."""
        return {"proved": 0, "mismatch": 1, "unknown": 3}[self.status]

    def summary(self) -> str:
        names = ", ".join(f"@{f}" for f in self.functions) or "no functions"
        verdict = {"proved": "refines", "mismatch": "does NOT refine", "unknown": "cannot be shown to refine"}[self.status]
        return (
            f"{self.after} {verdict} {self.before} ({names}; {self.cases} case(s), "
            f"{self.solver_queries} solver queries, {self.seconds:.3f} s)"
        )

    def render_text(self) -> str:
        blocks = [m.render_text() for m in self.mismatches] + [u.render_text() for u in self.unknowns]
        blocks.append(self.summary())
        return "\n".join(blocks)

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "status": self.status,
            "before": self.before,
            "after": self.after,
            "functions": list(self.functions),
            "mismatches": [m.to_json() for m in self.mismatches],
            "unknowns": [u.to_json() for u in self.unknowns],
            "stats": {"cases": self.cases, "solver_queries": self.solver_queries, "seconds": round(self.seconds, 6)},
        }
