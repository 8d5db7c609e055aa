"""Verification reports: violations with their counterexamples, as text, JSON or a trace.

The text form follows SPEC §5: a `file:line:col: error: CLASS ...` header naming the allocation
and bytes, one line per op involved (what it does, where, in which region), the pass that
introduced it, concrete values of symbolic sizes, and the witness: a numbered interleaving of
events per lane. `Report.to_json()` gives the same data (schema: `verify.schema`), and
`Report.trace()` the witness as Chrome/Perfetto trace events, one track per lane.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from stream.ir.core import Location, Module, Value
from verify.discharge import Stats
from verify.properties import CLASSES  # the property classes, in the order users see them
from verify.witness import Witness

__all__ = ["OpRef", "Violation", "Unknown", "FunctionSummary", "Report", "CLASSES", "SCHEMA_VERSION", "NOT_CHECKED"]

SCHEMA_VERSION = 1


@dataclass(slots=True)
class OpRef:
    role: str
    text: str  # "stream.cmd.dispatch @mm1  wo %arg11[16384 for 16384]"
    location: Location
    context: str  # "cmd.concurrent in execute #1 on @dev0"


@dataclass(slots=True)
class Violation:
    cls: str
    severity: str  # error | warning
    function: str
    message: str  # the header after "CLASS"
    location: Location
    ops: list[OpRef] = field(default_factory=list)
    allocation: tuple[str, str, Location] | None = None  # (name, kind, where it is defined)
    bytes: tuple[int, int] | None = None
    witness: Witness | None = None
    symbols: dict[str, int] = field(default_factory=dict)
    introduced_by: str | None = None
    pre_existing: bool = False
    rule: str = ""
    duplicates: int = 0
    lanes: list[tuple[int, str, str, str, str]] = field(default_factory=list)  # witness steps: (event, lane, verb, what, detail)
    notes: list[str] = field(default_factory=list)
    evidence: Any = field(default=None, repr=False)  # (FunctionModel, Obligation) behind it, for tools and tests

    def key(self) -> tuple[Any, ...]:
        """Identity across passes: class, function and the source locations of the ops."""
        return (self.cls, self.function, tuple(sorted(str(o.location) for o in self.ops)))

    def alloc_key(self) -> tuple[Any, ...] | None:
        if self.allocation is None:
            return None
        return (self.cls, self.function, str(self.allocation[2]))

    def text(self) -> str:
        sep = " " if self.message.startswith("on ") else ": "
        lines = [f"{self.location}: {self.severity}: {self.cls} in @{self.function}{sep}{self.message}".rstrip(": ")]
        width = max((len(o.role) for o in self.ops), default=0) + 1
        for o in self.ops:
            ctx = f"  ({o.context})" if o.context else ""
            lines.append(f"  {(o.role + ':').ljust(width)} {o.text}   {o.location}{ctx}")
        lines.extend(f"  {n}" for n in self.notes)
        if self.pre_existing:
            lines.append("  pre-existing: the pass input already has it")
        if self.introduced_by:
            lines.append(f"  introduced by: {self.introduced_by}")
        if self.duplicates:
            lines.append(f"  ({self.duplicates} more on the same ops)")
        if self.symbols:
            lines.append("  with: " + ", ".join(f"{k} = {v}" for k, v in self.symbols.items()))
        if self.lanes:
            lines.append("  witness:")
            lane_w = max(len(s[1]) for s in self.lanes)
            verb_w = max(len(s[2]) for s in self.lanes)
            what_w = max(len(s[3]) for s in self.lanes)
            for step, lane, verb, what, detail in ((str(i + 1), *s[1:4], s[4]) for i, s in enumerate(self.lanes)):
                row = f"    {step} {lane.ljust(lane_w)}  {verb.ljust(verb_w)}  {what.ljust(what_w)}"
                lines.append((row + ("   " + str(detail) if detail else "")).rstrip())
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        return {
            "class": self.cls,
            "severity": self.severity,
            "function": self.function,
            "message": self.message,
            "location": _loc(self.location),
            "ops": [{"role": o.role, "text": o.text, "location": _loc(o.location), "context": o.context} for o in self.ops],
            "allocation": None if self.allocation is None else {
                "name": self.allocation[0], "kind": self.allocation[1], "location": _loc(self.allocation[2]),
            },
            "bytes": list(self.bytes) if self.bytes is not None else None,
            "symbols": dict(self.symbols),
            "introduced_by": self.introduced_by,
            "pre_existing": self.pre_existing,
            "rule": self.rule,
            "duplicates": self.duplicates,
            "notes": list(self.notes),
            "witness": None if self.witness is None else {
                "steps": [{"step": i + 1, "lane": s[1], "event": s[2], "op": s[3], "detail": str(s[4])} for i, s in enumerate(self.lanes)],
                "omitted_common_events": self.witness.omitted,
            },
        }


def _loc(loc: Location) -> dict[str, Any]:
    return {"file": loc.file, "line": loc.line, "col": loc.col}


@dataclass(slots=True)
class Unknown:
    function: str
    cls: str
    location: Location
    reason: str

    def text(self) -> str:
        return f"{self.location}: error: could not decide {self.cls} ({self.reason or 'solver: unknown'}); not proved"


# The level of a function or initializer the verifier could not model (its note says why): the
# report is not proved while one is listed.
NOT_CHECKED = "not checked"


@dataclass(slots=True)
class FunctionSummary:
    name: str
    level: str
    stats: Stats
    seconds: float
    note: str = ""
    # How the function was checked where it is less than it could be (`file:line:col: note: ...`,
    # a dispatch keeping its whole bindings: `verify.bindings`); printed with the report, and
    # in JSON as lines of the function's `note`.
    notes: list[str] = field(default_factory=list)
    location: Location | None = None  # where a function that was not checked is

    @property
    def checked(self) -> bool:
        return self.level != NOT_CHECKED

    def text(self) -> str:
        where = f"{self.location}: " if self.location is not None else ""
        return f"{where}error: @{self.name} {self.note}; not proved"


@dataclass(slots=True)
class Report:
    file: str
    smt: str = "pruned"
    violations: list[Violation] = field(default_factory=list)
    unknowns: list[Unknown] = field(default_factory=list)
    functions: list[FunctionSummary] = field(default_factory=list)
    seconds: float = 0.0
    refinement: Any = None  # the refinement findings, when refinement was checked
    exit_code: int = 0  # set by the pass hook when it fails a pass: 1 violation, 3 undecided
    module: Module | None = field(default=None, repr=False)

    @property
    def errors(self) -> list[Violation]:
        return [v for v in self.violations if v.severity == "error"]

    @property
    def warnings(self) -> list[Violation]:
        return [v for v in self.violations if v.severity != "error"]

    @property
    def unchecked(self) -> list[FunctionSummary]:
        return [f for f in self.functions if not f.checked]

    @property
    def status(self) -> str:
        if self.errors:
            return "violated"
        if self.unknowns or self.unchecked:
            return "unknown"
        return "proved"

    @property
    def ok(self) -> bool:
        return self.status == "proved"

    @property
    def classes(self) -> set[str]:
        return {v.cls for v in self.violations}

    @property
    def stats(self) -> Stats:
        total = Stats()
        for f in self.functions:
            total.add(f.stats)
        return total

    def summary(self) -> str:
        s = self.stats
        head = {"proved": "proved", "violated": "FAILED", "unknown": "NOT PROVED (unknown)"}[self.status]
        warn = f", {len(self.warnings)} warning(s)" if self.warnings else ""
        errs = f", {len(self.errors)} violation(s)" if self.errors else ""
        unk = f", {len(self.unknowns)} undecided" if self.unknowns else ""
        unk += f", {len(self.unchecked)} not checked" if self.unchecked else ""
        return (
            f"{self.file}: {head}: {s.obligations} obligations ({s.by_reachability} by reachability, "
            f"{s.by_constant} by constant ranges, {s.by_z3} by Z3){errs}{warn}{unk} in {self.seconds:.3f} s"
        )

    def text(self, limit: int = 10) -> str:
        parts = [v.text() for v in self.violations[:limit]]
        if len(self.violations) > limit:
            parts.append(f"... and {len(self.violations) - limit} more violation(s) (use --report=json for all)")
        parts.extend(u.text() for u in self.unknowns)
        parts.extend(n for f in self.functions for n in f.notes)
        parts.extend(f.text() for f in self.unchecked)
        return "\n".join(parts)

    def to_json(self) -> dict[str, Any]:
        s = self.stats
        return {
            "schema": "streamproof.verify.report",
            "version": SCHEMA_VERSION,
            "file": self.file,
            "status": self.status,
            "smt": self.smt,
            "seconds": round(self.seconds, 6),
            "summary": {
                "obligations": s.obligations, "by_reachability": s.by_reachability, "by_constant": s.by_constant,
                "by_z3": s.by_z3, "z3_queries": s.z3_queries, "violations": len(self.errors), "warnings": len(self.warnings),
                "unknown": len(self.unknowns),
            },
            "functions": [
                {"name": f.name, "level": f.level, "obligations": f.stats.obligations, "seconds": round(f.seconds, 6),
                 "note": "\n".join(n for n in (f.note, *f.notes) if n)}
                for f in self.functions
            ],
            "violations": [v.to_json() for v in self.violations],
            "unknowns": [{"function": u.function, "class": u.cls, "location": _loc(u.location), "reason": u.reason} for u in self.unknowns],
        }

    def trace(self, index: int = 0) -> dict[str, Any]:
        """The witness of violation `index` as Chrome trace JSON: one track per lane.

        Every step of the witness (none elided) in witness order, 10 µs apart: a start and its
        end make one slice, other steps are instants; `args.event` (and `args.end_event`) are
        the event-graph ids, so tools and tests can replay the trace against the HB edges."""
        with_witness = [v for v in self.violations if v.witness is not None]
        events: list[dict[str, Any]] = []
        if not with_witness:
            return {"traceEvents": events, "displayTimeUnit": "ms"}
        v = with_witness[min(index, len(with_witness) - 1)]
        assert v.witness is not None
        steps = v.witness.all_steps or [s for s in v.witness.steps if s.verb != "..."]
        lanes: dict[str, int] = {}
        open_: dict[int, int] = {}  # start event -> index of its slice
        for i, step in enumerate(steps):
            lane, verb, what, detail = step.lane, step.verb, step.what, step.detail
            tid = lanes.setdefault(lane, len(lanes) + 1)
            ts = 10 * i
            if verb == "start":
                open_[step.event] = len(events)
                events.append({"name": what, "cat": v.cls, "ph": "X", "ts": ts, "dur": 10, "pid": 1, "tid": tid,
                               "args": {"detail": str(detail), "event": step.event}})
            elif verb == "end" and step.start_event in open_:
                ev = events[open_.pop(step.start_event)]
                ev["dur"] = max(ts - ev["ts"], 1)
                ev["args"]["end_event"] = step.event
            else:
                events.append({"name": f"{verb} {what}".strip(), "cat": v.cls, "ph": "i", "s": "t", "ts": ts, "pid": 1, "tid": tid,
                               "args": {"detail": str(detail), "event": step.event}})
        for k in open_.values():  # still running when the violation happens
            events[k]["dur"] = max(10 * len(steps) - events[k]["ts"], 1)
            events[k]["args"]["running"] = True
        meta = [{"name": "process_name", "ph": "M", "pid": 1, "args": {"name": f"{v.cls} witness"}}]
        meta += [{"name": "thread_name", "ph": "M", "pid": 1, "tid": tid, "args": {"name": lane}} for lane, tid in lanes.items()]
        return {"traceEvents": meta + events, "displayTimeUnit": "ms", "otherData": {"violation": v.text().splitlines()[0]}}


class Namer:
    """SSA names as the input file spells them (the printer's numbering, in the input's form)."""

    def __init__(self, module: Module | None) -> None:
        self.module = module
        self._names: dict[Value, str] | None = None

    def __call__(self, value: Value | None) -> str:
        if value is None:
            return "?"
        if self._names is None:
            self._names = _number(self.module)
        return self._names.get(value) or f"%{value.name_hint or '?'}"


def _number(module: Module | None) -> dict[Value, str]:
    if module is None:
        return {}
    from stream.ir.core import Block, Region
    from stream.ir.diagnostics import source_line
    from stream.ir.printer import Printer

    generic = False
    for op in module.ops:
        line = source_line(op.location)
        if line is not None and line.lstrip().startswith('"'):
            generic = True
            break
    printer = Printer(generic, module.aliases)
    printer.number_regions([Region((Block((), module.ops),))])
    return printer.names
