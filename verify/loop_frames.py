"""What a program checked in loops knows about them, and how it treats each obligation.

A program checked by `verify.control_flow` in loops carries a `Frame` per loop it entered on the
way (`Context`): the loop, and the summary of its earlier iterations on the path (none in the
first iteration). Its `Run` records what it reported and, for a program that ends at a back edge,
which (carrier, target) pairs the next iteration's demand proved (`Pairs`) and the loop-head
`State` it leads to (`verify.loop_induction`).

`classifier` says, for each obligation of such a program, whether it is reported, dropped (an
obligation about the summary of earlier iterations that those iterations check themselves, or
between two demands), or a query of the demand (`verify.loops`): what a query fails to prove is
coverage the next loop-head state does not get, never a violation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from stream.ir.types import ResourceType
from verify.checking import Classifier
from verify.discharge import Stats
from verify.loops import Carrier, HeadPlan, NextPlan, Origin, Target
from verify.model import FunctionModel
from verify.obligation import Obligation
from verify.report import Report

if TYPE_CHECKING:  # annotations only: the loop module builds frames and runs
    from verify.loop_induction import Loop

__all__ = ["Run", "Frame", "Context", "Pairs", "State", "classifier", "QUERY_CLASSES", "REPORTED_AT_BACK_EDGE"]

QUERY_CLASSES = frozenset({"RACE_READ_AFTER_WRITE", "RACE_WRITE_AFTER_READ", "RACE_WRITE_AFTER_WRITE", "MISSED_WAIT", "USE_BEFORE_ALLOC"})
REPORTED_AT_BACK_EDGE = frozenset({"USE_AFTER_FREE", "DOUBLE_FREE"})

Pairs = frozenset[tuple[Carrier, Target]]
State = tuple[Origin | None, ...]


@dataclass(slots=True)
class Run:
    """One checked program: what it reports, and for a back edge what the demand proved."""

    label: str
    report: Report
    stats: Stats
    level: str
    notes: list[str]
    proved: Pairs | None = None
    successor: State | None = None
    unknown: str | None = None
    loop: Loop | None = None  # the loop whose back edge this run ends at


@dataclass(frozen=True, slots=True)
class Frame:
    """A loop a checked program is in (or has left): `plan` is its head's summary of earlier
    iterations (None in the first iteration: no summary on the path), issued at `head_index`."""

    loop: Loop
    plan: HeadPlan | None
    head_index: int


Context = tuple[Frame, ...]  # the loops entered on the way, outermost first


def classifier(ctx: Context, back: tuple[Loop, list[NextPlan], int] | None = None) -> Classifier | None:
    """How a program checked in the loops `ctx` (their heads' summaries on its path) treats each
    obligation: "report", "drop" or "query". `back` is the loop whose back edge the program ends
    at, with its next iteration's demands and the index of its head (or first iteration)."""
    heads = [fr.plan for fr in ctx if fr.plan is not None]
    if not heads and back is None:
        return None

    def classify(model: FunctionModel, ob: Obligation) -> str:
        sites = [s for s in (ob.first, ob.second, *ob.targets) if s is not None]
        if back is not None:
            loop, demands, _head_index = back
            mine = [s for s in sites if any(s.id in d.sites for d in demands)]
            if mine and len(mine) == len(sites) and not ob.targets:
                return "drop"  # two demands against each other: neither is an access of the program
            if mine:
                if ob.cls in QUERY_CLASSES:
                    # A demand stands for the next iteration's accesses and asks whether the
                    # carrier covers the accesses of the iterations so far (what the head's
                    # summary sites stand for). Ops before the loop are not among those: every
                    # run keeps them on its path, so their pairs with any iteration's own
                    # accesses are checked there, as real obligations.
                    if all(s.order[0] < len(loop.pre.ops) for s in sites if s not in mine):
                        return "drop"
                    return "query"
                return "report" if ob.cls in REPORTED_AT_BACK_EDGE else "drop"
        for head in heads:
            ghosts = [s for s in sites if s.id in head.sites]
            if ghosts and not (ob.cls == "PACK_OVERLAP" and ob.shape == "pack"):
                # (A pack obligation is about every use of two slices, the summary's among them:
                # its two sites only name one use of each.)
                others = [s for s in sites if s.id not in head.sites]
                # Earlier iterations against what came before the loop (an enclosing loop's
                # summary and iteration included): checked in those iterations themselves, which
                # have it all on their path. Alone (their own range, device, borrowing): likewise.
                # So is their order after the caller's wait fence: one event for the whole call,
                # whose site a program places at its import, possibly in this iteration.
                if not others or any(s.order < ghosts[0].order for s in others) or ob.roles[0] == "wait fence":
                    return "drop"
        if back is not None and ob.cls == "LEAK":
            # The function does not end at a back edge; but a transient allocation this
            # iteration made and does not pass on is out of reach from here on: it leaks.
            _loop, demands, head_index = back
            made_here = ob.first is not None and ob.first.order[0] >= head_index
            passed = {view.alloc.id for d in demands for v in d.yields
                      if isinstance(v.type, ResourceType) and (view := model.storage.view(v)) is not None}
            return "report" if made_here and ob.alloc is not None and ob.alloc.id not in passed else "drop"
        return "report"

    return classify
