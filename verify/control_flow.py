"""Functions with control flow: branches path by path, a loop by induction over its header.

`check_control_flow` first rewrites `scf.for`/`scf.while` into blocks (`verify.cfg`), then:

* without a loop, checks every path (`verify.paths`);
* with one loop (one header block that branches reach again, not nested), checks

  - every path that never reaches the header, and every path from the entry through the header
    that leaves the loop before coming back (zero iterations, or an exit in the first one);
  - *iteration 1*: each path from the entry to the first back edge, ending in the demand of the
    next iteration (`verify.loop.next`): what it shows the carried timepoints cover, and where
    the carried resources live, is the loop-head state after one iteration;
  - for each loop-head state reached (`verify.loop.head`: earlier iterations summarized, see
    `verify.loops`), every path from the header: to a back edge (*iteration n+1*), again ending
    in the demand, which gives the next states; or out of the loop to a return (*the exit after
    n >= 1 iterations*).

  The inductive check of one loop, its loop-head states and why the rechecking ends, is
  `verify.loop_induction`; how each obligation of a program checked in loops is treated
  (reported, dropped, or a query of the demand) is `verify.loop_frames`.

Loops after loops and loops in a loop's body are entered from the walks that reach their
headers (`Checker.expand`). A violation is reported once, naming its path and iteration; the
demand's obligations are not violations but queries (`verify.loops`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from stream.ir.core import Block, Module, Op
from stream.ir.walk import Function
from verify.cfg import forward_invariant_arguments, lower_loops
from verify.checking import Classifier, check_program
from verify.discharge import DEFAULT_RLIMIT, Stats, Verdict
from verify.loop_frames import Context, Run, classifier
from verify.loop_induction import MAX_ROUNDS, MAX_STATES, Loop
from verify.model import FunctionModel
from verify.obligation import Obligation
from verify.paths import Segment, segments
from verify.report import FunctionSummary, Namer, Report, Unknown

__all__ = ["check_control_flow", "loop_headers", "MAX_STATES", "MAX_ROUNDS"]


@dataclass(slots=True)
class Checker:
    """The check of one function with control flow: every program checked (`runs`), the loop
    headers, and how many loop-head states each loop's check reached (`states`, for the note)."""

    func: Function
    module: Module | None
    names: Namer
    smt: str
    rlimit: int
    smt_dump: str | None
    file: str
    runs: list[Run] = field(default_factory=list)
    headers: frozenset[int] = frozenset()
    states: dict[int, int] = field(default_factory=dict)  # loop-head states checked, per header (last check)

    def expand(self, segs: list[Segment], ctx: Context, label: str) -> list[Run]:
        """Check the walks `segs` in the loops `ctx`: a walk to a return is a program checked as it
        is; one to the header of a loop of `ctx` is a back edge of that loop (checked with its
        demands, `Loop.back_edge`); one to another loop's header enters that loop, checked by
        induction with the walk as its way in (a loop after a loop, or in a loop's body). The
        runs of every program checked; a back edge's run names its loop (`Run.loop`)."""
        runs: list[Run] = []
        for seg in segs:
            if seg.arrival is None:
                runs.append(self.run(label.format(seg.label), seg.ops, classifier(ctx)))
                continue
            frame = next((fr for fr in reversed(ctx) if fr.loop.header == seg.arrival.block), None)
            if frame is not None:
                runs.append(frame.loop.back_edge(seg, frame, ctx))
            else:
                runs.extend(Loop(self, self.func, seg.arrival.block, seg, ctx).check())
        return runs

    def run(self, label: str, ops: tuple[Op, ...], classify: Classifier | None = None,
            failed: list[tuple[Obligation, Verdict]] | None = None, models: list[FunctionModel] | None = None) -> Run:
        scratch = Report(self.file, self.smt)
        s = check_program(self.func.with_body(ops), self.module, scratch, self.names, self.smt, self.rlimit, self.smt_dump, [10],
                          classify, failed, models)
        return Run(label, scratch, s.stats, s.level, list(s.notes))


def check_control_flow(
    f: Function, module: Module | None, report: Report, names: Namer, smt: str = "pruned", rlimit: int = DEFAULT_RLIMIT,
    smt_dump: str | None = None, budget: list[int] | None = None,
) -> FunctionSummary:
    start = time.perf_counter()
    g = forward_invariant_arguments(lower_loops(f))
    checker = Checker(g, module, names, smt, rlimit, smt_dump, report.file)
    headers = loop_headers(g.blocks)
    checker.headers = frozenset(headers)
    if not headers:
        for seg in segments(g, g.blocks, 0, {}, [], None):
            checker.runs.append(checker.run(f"on the path {seg.label}", seg.ops))
        note = f"{len(checker.runs)} control-flow path(s), each checked"
    else:
        checker.runs.extend(checker.expand(segments(g, g.blocks, 0, {}, [], checker.headers), (), "on the path {}"))
        which = "a loop at" if len(headers) == 1 else f"{len(headers)} loops, at"
        where = ", ".join(f"^bb{h}" for h in sorted(headers))
        states = sum(checker.states.values())
        note = f"{which} {where}, checked by induction ({states} loop-head state(s)); {len(checker.runs)} program(s) checked"
    return _merge(f, report, checker.runs, note, start)


def loop_headers(blocks: tuple[Block, ...]) -> set[int]:
    """The targets of back edges (branches to a block on the current depth-first path)."""
    headers: set[int] = set()
    state = [0] * len(blocks)  # 0 new, 1 on the path, 2 done

    def visit(i: int) -> None:
        state[i] = 1
        last = blocks[i].ops[-1] if blocks[i].ops else None
        for t in last.successors if last is not None else ():
            if state[t] == 1:
                headers.add(t)
            elif state[t] == 0:
                visit(t)
        state[i] = 2

    visit(0)
    return headers


def _merge(f: Function, report: Report, runs: list[Run], note: str, start: float) -> FunctionSummary:
    stats = Stats()
    level = "host"
    notes: list[str] = []
    seen: set[tuple[object, ...]] = set()
    for run in runs:
        stats.add(run.stats)
        if level == "host":
            level = run.level
        notes.extend(n for n in run.notes if n not in notes)
        for v in run.report.violations:
            if v.key() in seen:
                continue
            seen.add(v.key())
            v.notes.append(run.label)
            report.violations.append(v)
        for u in run.report.unknowns:
            u.reason = f"{u.reason} ({run.label})"
            report.unknowns.append(u)
        if run.unknown is not None:
            report.unknowns.append(Unknown(f.name, "loop", f.op.location, f"{run.unknown} ({run.label})"))
            stats.unknown += 1
    return FunctionSummary(f.name, level, stats, time.perf_counter() - start, note, notes=notes)
