"""The effect of an op with standard resource behaviour, derived from its spec's interfaces.

An op whose spec declares its accesses (`OpSpec.accesses`, stream.ir.interfaces) and has no
effect rule of its own gets this one:

* one site (nested in a region, else a synchronous op on the host lane), named by the op's
  mnemonic;
* every accessed resource is a *use* (it must be ready first), then an *access* of the bytes the
  declaration names, with its mode; a write of an operand tied to a result is in place (`tie`:
  it ends the operand's version);
* the byte count is the access's `length` operand, unless that operand is some resource's size
  (`slice`'s `result_size`, `update`'s `update_size`: it describes that resource, not the range),
  then the range is `[offset, end)`;
* results declared as an operand's storage (`Alias` without a window) are ready when it is;
  other resource results are fresh values, ready when the op ends;
* a timeline op (`Timeline`, outside any region: the parameter ops) is a device submission, not
  a host op: issued in host order, started once its awaited timepoints are reached, and its
  result timepoint is reached when it ends (what it produces is ready only then).

Anything an op does beyond this (a kernel, a host transfer, a scalar load) needs a rule of its own.
"""

from __future__ import annotations

from stream.ir.core import Op
from stream.ir.interfaces import alias_pairs, bound_accesses
from stream.ir.spec import OpSpec
from verify.model import READ, RW, WRITE, Builder

__all__ = ["derives_effect", "standard_effect"]

_MODES = {"read": READ, "write": WRITE, "read_write": RW, "discard": WRITE}


def derives_effect(spec: OpSpec | None) -> bool:
    """Whether `standard_effect` models the op (its accesses are declared, in modes it knows)."""
    return spec is not None and spec.accesses is not None and all(a.mode in _MODES or a.mode == "tied" for a in spec.accesses)


def _size_groups(spec: OpSpec) -> set[str]:
    if spec.sized is None:
        return set()
    return {size for _g, size in spec.sized.operands} | ({spec.sized.results} if spec.sized.results else set())


def standard_effect(b: Builder, op: Op, spec: OpSpec) -> None:
    accesses = bound_accesses(spec, op) or ()
    aliases = [(operand, result) for operand, result, alias in alias_pairs(spec, op) if alias.offset is None]
    if aliases and not accesses:
        for operand, result in aliases:  # the same value under another name
            ready = b.model.ready.get(op.operands[operand])
            if ready is not None:
                b.model.ready[op.results[result]] = ready
        return
    name = op.name.rsplit(".", 1)[-1]
    timeline = spec.timeline if not b.in_region else None
    if timeline is not None:
        site = b.submit(op, spec.operand_group(op, timeline.awaits) if timeline.awaits else (), name)
    else:
        site = b.op_site(op, name)
    tied = {spec.tied_operand(op, i) for i in range(len(op.results))}
    sizes = _size_groups(spec)
    for a in accesses:
        b.use(site, a.value)
    for a in accesses:
        mode, label = _MODES[a.mode], a.access.resource
        tie = a.index in tied and bool(mode & WRITE)
        if a.offset is None:
            b.whole(site, a.value, mode, label, tie=tie)
            continue
        offset = b.symbols.expr(a.offset)
        if a.length is not None and (a.access.length not in sizes or a.end is None):
            length = b.symbols.expr(a.length)
        elif a.end is not None:
            length = b.symbols.expr(a.end) - offset
        else:
            b.whole(site, a.value, mode, label, tie=tie)
            continue
        b.access(site, a.value, offset, length, mode, label, tie=tie)
    b.produce(site, op.results)
    if timeline is not None and timeline.result is not None:
        for tp in spec.result_group(op, timeline.result):
            b.timepoint(tp, site.end)
