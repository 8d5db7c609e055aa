"""Host ops at the function boundary: imports, exports and returns.

* `tensor.import`: an allocation of caller storage (see `verify.storage`); no access;
* `tensor.export`: the host hands the resource to the caller, who may read it at once: a read of
  the whole value (its producer must be covered by a wait before it);
* `func.return` / `util.return`: the caller observes returned resources (a read of each) and,
  with the synchronous ABI, may reuse or read its own buffers as soon as the function returns.

With the async ABI (the function chains fences with `timepoint.chain_external`) the caller
observes exported and returned buffers when the fences are signalled, not when the host hands
them over: exports and returns are then no reads; the completion obligation checks the fences.
"""

from __future__ import annotations

from stream.ir.core import Op
from stream.ir.types import ResourceType
from verify.model import READ, Builder
from verify.rules import effect


@effect("stream.tensor.import")
def tensor_import(b: Builder, op: Op) -> None:
    return None


@effect("stream.tensor.export")
def tensor_export(b: Builder, op: Op) -> None:
    site = b.host(op, "export")
    source = op.operands[0]
    if not b.model.async_abi:
        b.use(site, source)
        b.whole(site, source, READ, "export")
    else:
        b.model.handoffs.append((site, source))
    b.escape(site, source)


@effect("func.return", "util.return")
def return_(b: Builder, op: Op) -> None:
    site = b.host(op, "return")
    for v in op.operands:
        if isinstance(v.type, ResourceType):
            if not b.model.async_abi:
                b.use(site, v)
                b.whole(site, v, READ, "return")
            else:
                b.model.handoffs.append((site, v))
            b.escape(site, v)
    b.model.return_site = site
