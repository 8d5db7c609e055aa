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

from stream.ir.attributes import ArrayAttr, IntegerAttr, SymbolRefAttr
from stream.ir.core import Op
from stream.ir.diagnostics import DiagnosticError
from stream.ir.spec import OpSpec
from verify.model import READ, TOUCH, WRITE, Builder
from verify.rules.table import effect
from verify.storage import operand_groups, spec_for

_MODES = {1: (READ, "ro"), 2: (WRITE, "wo"), 3: (READ | WRITE, "rw")}


def _spec(b: Builder, op: Op) -> OpSpec:
    if not b.in_region:
        raise DiagnosticError.at(op.location, f"'{op.name}' must be nested in a 'stream.cmd.execute' region")
    spec = spec_for(op)
    assert spec is not None
    return spec


@effect("stream.cmd.dispatch")
def dispatch(b: Builder, op: Op) -> None:
    spec = _spec(b, op)
    eps = op.properties.get("entry_points")
    first = eps.elements[0] if isinstance(eps, ArrayAttr) and len(eps) else None
    entry = "@" + first.leaf if isinstance(first, SymbolRefAttr) else "?"
    site = b.nested(op, f"dispatch {entry}")
    accesses = op.properties.get("resource_accesses")
    modes = [e.value if isinstance(e, IntegerAttr) else 3 for e in accesses.elements] if isinstance(accesses, ArrayAttr) else []
    groups = operand_groups(op, spec)
    for i, (r, o, n) in enumerate(zip(groups["resources"], groups["resource_offsets"], groups["resource_lengths"])):
        mode, label = _MODES.get(modes[i] if i < len(modes) else 3, (READ | WRITE, "rw"))
        b.access(site, r, b.symbols.expr(o), b.symbols.expr(n), mode, label)


@effect("stream.cmd.copy")
def copy(b: Builder, op: Op) -> None:
    g = operand_groups(op, _spec(b, op))
    site = b.nested(op, "copy")
    length = b.symbols.expr(g["length"][0])
    b.access(site, g["source"][0], b.symbols.expr(g["source_offset"][0]), length, READ, "source", transfer=True)
    b.access(site, g["target"][0], b.symbols.expr(g["target_offset"][0]), length, WRITE, "target", transfer=True)


def _ranged(b: Builder, op: Op, mode: int, label: str, transfer: bool) -> None:
    g = operand_groups(op, _spec(b, op))
    site = b.nested(op, label)
    off, length = b.symbols.expr(g["target_offset"][0]), b.symbols.expr(g["target_length"][0])
    b.access(site, g["target"][0], off, length, mode, label, transfer=transfer)


@effect("stream.cmd.fill")
def fill(b: Builder, op: Op) -> None:
    _ranged(b, op, WRITE, "fill", transfer=False)


@effect("stream.cmd.discard")
def discard(b: Builder, op: Op) -> None:
    _ranged(b, op, WRITE, "discard", transfer=True)


@effect("stream.cmd.flush", "stream.cmd.invalidate")
def cache_control(b: Builder, op: Op) -> None:
    _ranged(b, op, TOUCH, op.name.rsplit(".", 1)[-1], transfer=True)
