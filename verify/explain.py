"""Turning a failed obligation into a user-facing `Violation`: names, bytes, ops, witness.

Everything shown comes from the model and the Z3 model of the counterexample: concrete byte
ranges are evaluated with the symbol values of that model, and the witness steps are the
interleaving Z3 found.
"""

from __future__ import annotations

from collections.abc import Callable

from stream.ir.core import Location
from verify.discharge import Verdict
from verify.events import Site
from verify.model import Access, FunctionModel
from verify.obligations import Obligation
from verify.properties import property_class
from verify.report import Namer, OpRef, Violation
from verify.symbolic import Expr
from verify.witness import Witness

__all__ = ["make_violation", "deadlock_violation", "fmt_expr"]


def fmt_expr(e: Expr, model: FunctionModel, names: Namer, values: dict[int, int] | None = None) -> str:
    if e.is_const:
        return str(e.const)
    if values is not None and all(a in values for a in e.atoms()):
        return str(model.symbols.evaluate(e, values))
    parts: list[str] = []
    for a, k in e.terms:
        atom = model.symbols.atoms[a]
        name = names(atom.value) if atom.value is not None else (atom.label or f"?{a}")
        parts.append(name if k == 1 else f"{k}*{name}")
    if e.const:
        parts.append(str(e.const))
    return " + ".join(parts).replace("+ -", "- ")


def _known(e: Expr, values: dict[int, int]) -> bool:
    return all(a in values for a in e.atoms())


def _op_text(model: FunctionModel, site: Site, acc: Access | None, names: Namer) -> str:
    op = site.op
    head = op.name
    if site.name.startswith("dispatch "):
        head += " " + site.name.split(" ", 1)[1]
    elif site.name.startswith("execute #"):
        head += f" ({site.name})"
    if acc is None:
        return head
    off = fmt_expr(acc.local, model, names)
    length = fmt_expr(acc.length, model, names)
    return f"{head}  {acc.label} {names(acc.value)}[{off} for {length}]"


def _bytes(model: FunctionModel, ob: Obligation, values: dict[int, int]) -> tuple[int, int] | None:
    ev = model.symbols.evaluate
    x, y = ob.x, ob.y
    if x is not None and y is not None and ob.shape in ("conflict", "order_if_overlap", "fact"):
        lo = max(ev(x.lo, values), ev(y.lo, values))
        hi = min(ev(x.hi, values), ev(y.hi, values))
        return (lo, hi) if lo < hi else (ev(x.lo, values), ev(x.hi, values))
    acc = x or y
    if acc is not None:
        return ev(acc.lo, values), ev(acc.hi, values)
    return None


def _message(model: FunctionModel, ob: Obligation, names: Namer, values: dict[int, int], byte_range: tuple[int, int] | None) -> str:
    alloc = ob.alloc
    on = ""
    if alloc is not None:
        where = alloc.op.location if alloc.op is not None else alloc.location
        on = f"on {names(alloc.value)} ({alloc.kind.value}{f' @{alloc.symbol}' if alloc.symbol else ''} at {where})"
        if byte_range is not None:
            on += f" bytes [{byte_range[0]}, {byte_range[1]})"
    cls = ob.cls
    wording = property_class(cls).message
    r = ob.range_check
    if wording == "range" and r is not None:
        off = model.symbols.evaluate(r.offset, values) if _known(r.offset, values) else None
        end = model.symbols.evaluate(r.offset + r.length, values) if _known(r.offset + r.length, values) else None
        size = fmt_expr(r.size, model, names, values)
        span = f" [{off}, {end})" if off is not None and end is not None else ""
        of = f" of {names(r.value)}" if r.value is not None else ""
        verb = "starts before byte 0 of" if off is not None and off < 0 else "exceeds"
        return f"{r.what}{span} {verb} the {size} {r.unit}{of}"
    if ob.value is not None and ob.first is not None and ob.second is not None:
        v = names(ob.value)
        if cls == "MISSED_WAIT" and ob.roles[1] == "fence":
            return f"the signalled fence does not cover {ob.first.name}, which produces {v} for the caller"
        if cls == "MISSED_WAIT" and ob.rule == "coarse-fences":
            producer = ob.first.name.split(" ")[0]
            if ob.second.name.endswith("reads its inputs once its wait fence is signalled"):
                return (f"the call to {ob.second.name.split(' ')[0]} may read {v} before the signal fence of the call to {producer}, "
                        "which produces it, is signalled (pass that fence as its wait fence, or hal.fence.await it first)")
            return (f"{ob.second.name} uses {v} before a hal.fence.await of the signal fence of the call to "
                    f"{producer}, which produces it (its contents are defined once that fence is signalled)")
        if cls == "MISSED_WAIT":
            return f"{ob.second.name} uses {v} without a wait that covers {ob.first.name}, which produces it"
        if ob.rule == "wave bytes":  # in-place ops of one wave on the same storage
            return (f"{ob.second.name} uses {v} in the wave of {ob.first.name}, which writes that storage in place, "
                    f"and both touch {on.removeprefix('on ')}")
        return f"{ob.second.name} uses {v}, which {ob.first.name} produces, with nothing ordering them"
    if wording == "detail" or ob.detail:
        sep = ": " if on else ""
        return f"{on}{sep}{ob.detail}" if ob.detail else on
    return on


def _context(site: Site) -> str:
    return site.context if site.path else ("host" if site.host else site.context)


def make_violation(
    model: FunctionModel, ob: Obligation, verdict: Verdict, witness: Witness | None, names: Namer,
    before: Callable[[Site, Site], bool] | None = None,
) -> Violation:
    values = dict(verdict.values)
    if witness is not None:
        values.update(witness.values)
    byte_range = _bytes(model, ob, values)
    sites: list[tuple[str, Site, Access | None]] = []
    if ob.first is not None:
        sites.append((ob.roles[0] or "op", ob.first, ob.x if ob.x is not None and ob.x.site is ob.first else None))
    if ob.second is not None and ob.second is not ob.first:
        sites.append((ob.roles[1] or "op", ob.second, ob.y if ob.y is not None and ob.y.site is ob.second else None))
    elif ob.second is ob.first and ob.y is not None and ob.first is not None:
        sites.append((ob.roles[1] or "op", ob.first, ob.y))
    ops = [OpRef(role, _op_text(model, s, acc, names), s.op.location, _context(s)) for role, s, acc in sites]
    if not ops and ob.op is not None:
        ops.append(OpRef(ob.roles[0] or "op", ob.op.name, ob.op.location, ""))
    primary: Location
    if sites:
        primary = max(sites, key=lambda t: t[1].order)[1].op.location
    elif ob.op is not None:
        primary = ob.op.location
    elif ob.alloc is not None:
        primary = ob.alloc.location
    else:
        primary = model.func.op.location
    alloc = None
    if ob.alloc is not None:
        where = ob.alloc.op.location if ob.alloc.op is not None else ob.alloc.location
        alloc = (names(ob.alloc.value), ob.alloc.kind.value, where)
    symbols: dict[str, str | int] = {}
    for a, value in sorted(values.items()):
        atom = model.symbols.atoms[a]
        if atom.kind in ("argument", "pack_offset", "pack_total", "opaque", "argument_size") and atom.value is not None:
            symbols[names(atom.value)] = value
    v = Violation(
        ob.cls, property_class(ob.cls).severity, model.func.name, _message(model, ob, names, values, byte_range), primary, ops, alloc, byte_range,
        witness, {k: int(x) for k, x in symbols.items()}, rule=ob.rule,
    )
    if witness is not None:
        v.lanes = [(s.event, s.lane, s.verb, s.what, s.detail) for s in witness.steps]
    if ob.rule == "A2" and ob.shape == "order_if_overlap" and before is not None and ob.first is not None and ob.second is not None:
        if before(ob.second, ob.first):
            v.notes.append("tie linearity: the in-place write always runs first, so the read sees the new bytes, not the value it names")
        else:
            v.notes.append("tie linearity: nothing orders the read before the in-place write that replaces the value it names")
    elif ob.rule == "A2" and ob.cls == "RACE_WRITE_AFTER_WRITE":
        v.notes.append("tie linearity: each in-place write ends the value it consumes; a second one cannot consume it too")
    return v


def deadlock_violation(model: FunctionModel, cycle: list[int]) -> Violation:
    units = model.graph.units
    ops: list[OpRef] = []
    for u in cycle:
        unit = units[u]
        site = unit.site
        if site is not None:
            ops.append(OpRef("waits on" if not ops else "then", f"{site.op.name} ({unit.name})", site.op.location, _context(site)))
    primary = ops[0].location if ops else model.func.op.location
    msg = "a wait can never be satisfied: " + " -> ".join(units[u].name for u in cycle) + " -> (back to the first)"
    return Violation("DEADLOCK", property_class("DEADLOCK").severity, model.func.name, msg, primary, ops)
