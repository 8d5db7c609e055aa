"""Cmd-level commands on explicit byte ranges (they live inside `stream.cmd.execute`).

* `cmd.dispatch`: each binding `ro`/`wo`/`rw %r[off for len]` may touch any byte of its range
  with that access (the verifier assumes it touches all of it);
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
from verify.model import READ, TOUCH, WRITE, Builder
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
    accesses = bound_accesses(spec, op) or []
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
    _accesses(b, op, f"dispatch {entry}", transfer=False)


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
