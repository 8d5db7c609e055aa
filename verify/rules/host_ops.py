"""Host ops at the function boundary: imports, exports and returns.

* `tensor.import`: an allocation of caller storage (see `verify.storage`); no access;
* `tensor.export`: the host hands the resource to the caller, who may read it at once: a read of
  the whole value (its producer must be covered by a wait before it); a static encoding's bytes
  must fit in the resource;
* `func.return` / `util.return`: the caller observes returned resources (a read of each) and,
  with the synchronous ABI, may reuse or read its own buffers as soon as the function returns.
  A private function hands a resource returned right before a timepoint to its caller unready
  (`stream.dialect.abi.handed_pairs`): the read, the readiness and the completion of the work
  on its storage move to where the caller has awaited that timepoint.

With the async ABI (the function chains fences with `timepoint.chain_external`) the caller
observes exported and returned buffers when the fences are signalled, not when the host hands
them over: exports and returns are then no reads; the completion obligation checks the fences.
"""

from __future__ import annotations

from stream.dialect.abi import handed_pairs
from stream.ir.attributes import TypeAttr
from stream.ir.core import Op, Value
from stream.ir.types import ResourceType, TensorType, element_byte_width, packed_bits
from verify.events import Site
from verify.model import READ, Access, Builder, RangeCheck
from verify.rules.table import effect
from verify.symbolic import ZERO, const


@effect("stream.tensor.import")
def tensor_import(b: Builder, op: Op) -> None:
    return None


@effect("stream.tensor.export")
def tensor_export(b: Builder, op: Op) -> None:
    site = b.host(op, "export")
    source = op.operands[0]
    access = None
    if not b.model.async_abi:
        b.use(site, source)
        access = b.whole(site, source, READ, "export")
    else:
        b.model.handoffs.append((site, source))
    _encoding_fits(b, site, op, source, access)
    b.escape(site, source)


def _encoding_fits(b: Builder, site: Site, op: Op, source: Value, access: Access | None) -> None:
    """The caller reads the exported tensor's bytes (a static encoding's element count times its
    element's byte size: 16 complex<f32> take 128; 4 i4 take 2, packed as IREE does): they must lie in the resource, or the export
    reads past its end (OUT_OF_BOUNDS; the executor faults there too). A resource exactly that
    size needs no obligation."""
    enc = op.properties.get("source_encoding")
    t = enc.type if isinstance(enc, TypeAttr) else None
    if not isinstance(t, TensorType) or not t.is_static or t.encoding is not None:
        return
    width, count = element_byte_width(t.element), t.num_elements()
    view = b.storage.view(source)
    if width is None or count is None or view is None:
        return
    bits = packed_bits(t)  # i2, i4: IREE packs 8/bits to a byte
    nbytes = -(-count * bits // 8) if bits is not None else count * width
    if view.size == const(nbytes):
        return
    b.model.ranges.append(RangeCheck(site, op, f"the {t} it exports", ZERO, const(nbytes), view.size, access, source))


@effect("func.return", "util.return")
def return_(b: Builder, op: Op) -> None:
    site = b.host(op, "return")
    pairs = handed_pairs(b.model.func, op)
    for i, v in enumerate(op.operands):
        if isinstance(v.type, ResourceType):
            if i in pairs:
                _hand_over(b, op, site, v, op.operands[pairs[i]])
            elif not b.model.async_abi:
                b.use(site, v)
                b.whole(site, v, READ, "return")
            else:
                b.model.handoffs.append((site, v))
            b.escape(site, v, handed=i in pairs)
    b.model.return_site = site


def _hand_over(b: Builder, op: Op, site: Site, v: Value, t: Value) -> None:
    """A private function returns `v` unready with the timepoint `t`: the caller observes it once
    it has returned and `t` is reached (it awaits `t` before using `v`), so that is where `v`
    must be ready and is read, and where the work on its storage must be finished."""
    preds = [(site.start, "returned")]
    e = b.model.tp_event.get(t)
    if e is not None:
        preds.append((e, "the returned timepoint is reached"))
    name = f"%{v.name_hint}" if v.name_hint else "a result"
    seen = b.reach(f"the caller once the timepoint returned with {name} is reached", preds, op)
    handed = b.graph.site_of[seen]
    assert handed is not None
    b.use(handed, v)
    b.whole(handed, v, READ, "handed to the caller")
    view = b.view(v)
    if view is not None:
        b.model.deferred.setdefault(view.alloc.id, []).append(handed)


@effect("cf.assert")
def runtime_check(b: Builder, op: Op) -> None:
    """`cf.assert %c`: the host evaluates `%c` before it goes on (the program aborts on false), so
    every later host op is ordered after what `%c` depends on (a value read back from the device,
    after the await that made it readable). A branch on `%c` orders the same way; the verifier's
    paths record a branch taken as such a check (`verify.paths`)."""
    b.host(op, "assert")
