"""Cmd-level commands on explicit byte ranges (they live inside `stream.cmd.execute`).

* `cmd.dispatch`: each binding `ro`/`wo`/`rw %r[off for len]` may touch any byte of its range
  with that access (the verifier assumes it touches all of it), unless the executable is in the
  module and says what it addresses: then the binding touches its subspans' byte ranges only
  (`verify.bindings`; FuseDispatchBindings widens every binding to the whole slab), and the
  binding's range must still fit in the resource;
* `cmd.copy`: reads `source[so, so+len)`, writes `target[to, to+len)`;
* `cmd.fill`: writes its range; `cmd.discard`: its range's contents become undefined (a write);
* `cmd.flush` / `cmd.invalidate`: cache control, no data access (memory visibility across devices
  is not modelled); they still use the memory (lifetime, bounds).

Copies, flushes, invalidates and discards are the lowered form of transfers, so they may touch
memory placed on another device; dispatches and fills may not.
"""

from __future__ import annotations

from stream.ir.attributes import ArrayAttr, SymbolRefAttr
from stream.ir.core import Op
from stream.ir.diagnostics import DiagnosticError
from stream.ir.interfaces import bound_accesses
from stream.ir.spec import OpSpec
from verify.bindings import narrowed_bindings
from verify.model import READ, TOUCH, WRITE, Builder, RangeCheck
from verify.rules.table import effect
from verify.storage import spec_for

# Modes of the spec's declared accesses (a discard makes the range's contents undefined: a write;
# cache control uses the memory without reading or writing it).
_MODES = {"read": READ, "write": WRITE, "read_write": READ | WRITE, "discard": WRITE, "touch": TOUCH}


def _spec(b: Builder, op: Op) -> OpSpec:
    if not b.in_region:
        raise DiagnosticError.at(op.location, f"'{op.name}' must be nested in a 'stream.cmd.execute' region")
    spec = spec_for(op)
    assert spec is not None
    return spec


_LABELS = {"read": "ro", "write": "wo", "read_write": "rw"}


def _accesses(b: Builder, op: Op, name: str, transfer: bool) -> None:
    """One nested site accessing what the op's spec declares (`OpSpec.accesses`: a resource,
    offset and length each, in a mode). A dispatch's binding is labelled by its mode (ro/wo/rw),
    a copy's range by its operand, any other by the command."""
    spec = _spec(b, op)
    site = b.nested(op, name)
    accesses = bound_accesses(spec, op) or ()
    for a in accesses:
        assert a.offset is not None and a.length is not None, op.name
        if a.access.mode == "declared":
            label = _LABELS[a.mode]
        else:
            label = a.access.resource if len(spec.accesses or ()) > 1 else name
        b.access(site, a.value, b.symbols.expr(a.offset), b.symbols.expr(a.length), _MODES[a.mode], label, transfer=transfer)


@effect("stream.cmd.dispatch")
def dispatch(b: Builder, op: Op) -> None:
    eps = op.properties.get("entry_points")
    first = eps.elements[0] if isinstance(eps, ArrayAttr) and len(eps) else None
    entry = "@" + first.leaf if isinstance(first, SymbolRefAttr) else "?"
    spec = _spec(b, op)
    site = b.nested(op, f"dispatch {entry}")
    accesses = bound_accesses(spec, op) or ()
    ranges = [(b.symbols.expr(a.offset), b.symbols.expr(a.length)) for a in accesses if a.offset is not None and a.length is not None]
    ctx = b.model.bindings
    narrowed = narrowed_bindings(b.symbols, ctx, op, ranges) if ctx is not None and len(ranges) == len(accesses) else None
    if narrowed is not None and narrowed.notes and any(r is None for r in narrowed.ranges):
        missing = all("no executable in the module" in n for n in narrowed.notes)
        if not missing:  # a dispatch of an executable the module does not hold has only its bindings
            b.model.notes.extend(f"{op.location}: note: the dispatch keeps its whole binding ({n})" for n in narrowed.notes)
    for j, a in enumerate(accesses):
        assert a.offset is not None and a.length is not None, op.name
        label = _LABELS[a.mode] if a.access.mode == "declared" else a.access.resource
        offset, length = ranges[j]
        parts = narrowed.ranges[j] if narrowed is not None else None
        if parts is None:
            b.access(site, a.value, offset, length, _MODES[a.mode], label)
            continue
        b.range_check(site, a.value, offset, length, label)
        for span in parts:
            acc = b.access(site, a.value, span.offset, span.length, _MODES[a.mode], label, checked=False)
            if span.fit is not None:
                b.model.ranges.append(RangeCheck(site, op, f"the {label} subspan range", *span.fit, length, acc, None, "bytes of the binding"))


@effect("stream.cmd.copy")
def copy(b: Builder, op: Op) -> None:
    _accesses(b, op, "copy", transfer=True)


@effect("stream.cmd.fill")
def fill(b: Builder, op: Op) -> None:
    _accesses(b, op, "fill", transfer=False)


@effect("stream.cmd.discard")
def discard(b: Builder, op: Op) -> None:
    _accesses(b, op, "discard", transfer=True)


@effect("stream.cmd.flush", "stream.cmd.invalidate")
def cache_control(b: Builder, op: Op) -> None:
    _accesses(b, op, op.name.rsplit(".", 1)[-1], transfer=True)
