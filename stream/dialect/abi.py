"""The function-boundary ABI: which fences guard a function's inputs, and which returned
timepoints hand a wait to the caller (SPEC §3.1 rule 8).

* **Coarse-fences ABI** (`iree.abi.model = "coarse-fences"`, the `$async` function IREE emits
  for every public entry point of an ONNX/torch model): the signature ends with a *wait* fence
  and a *signal* fence. The caller may still be writing the inputs until the wait fence is
  signalled (IREE's conversion awaits it on every `hal.tensor.import`), so every access to an
  input (an imported buffer view or a resource argument) must be ordered after the imported wait
  fence; the signal fence (`timepoint.chain_external`) must cover every write the caller observes.
  Without the attribute a `!hal.fence` argument the function imports and never signals itself is
  a wait fence too (a fence the function signals and then imports back is a round trip, not an
  input guard).
* **Private functions**: IREE's PropagateTimepoints expands every resource on a private
  signature into a (resource, timepoint) pair, the timepoint right after its resource. A returned
  resource followed by a timepoint is handed over *unready*: the caller awaits that timepoint
  before using it, so the callee need not finish the work the timepoint covers before it returns.
  Public functions keep the synchronous rule: what the caller observes is finished at the return.
  Arguments come the same way: a resource argument followed by a timepoint argument is handed in
  unready, and the function may touch it only after that timepoint is reached.

The verifier (`verify.rules.host_ops`, `verify.obligations.wait_fence`) and the runtime's race
detector (`runtime.races`) share these rules.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from stream.ir.attributes import StringAttr
from stream.ir.core import Op, Value
from stream.ir.types import OpaqueType, ResourceType, TimepointType
from stream.ir.walk import Function

__all__ = ["is_fence", "coarse_fences", "wait_fences", "signalled_fences", "is_private", "handed_pairs", "handed_in_pairs"]


def is_fence(v: Value) -> bool:
    return isinstance(v.type, OpaqueType) and v.type.text == "!hal.fence"


def coarse_fences(f: Function) -> bool:
    """Does `f` declare IREE's coarse-fences ABI (`iree.abi.model = "coarse-fences"`)?"""
    model = f.op.attr("iree.abi.model")
    return isinstance(model, StringAttr) and model.value == "coarse-fences"


def signalled_fences(f: Function) -> set[Value]:
    """The fences the whole function `f` signals (`chain_external` anywhere in it: in every block
    and region, on every path; for a program cut from a function, in the function it was cut
    from). A fence the function signals on some path is never the caller's to signal."""
    return set(_signalled_in(f.whole.op))


@lru_cache(maxsize=64)
def _signalled_in(func_op: Op) -> frozenset[Value]:
    # Cached per function op (ops are immutable and hash by identity): every program a loop or
    # branch is cut into asks about the same function.
    out: set[Value] = set()
    for op in func_op.walk():
        if op.name == "stream.timepoint.chain_external":
            out.update(op.operands[1:])
    return frozenset(out)


def wait_fences(f: Function) -> tuple[Value, ...]:
    """The fence arguments that guard every input of `f` (usually none or one).

    With `iree.abi.model = "coarse-fences"` it is the second-to-last argument (IREE's signature
    is `(inputs..., wait fence, signal fence)`), whether or not the body imports it: a body that
    never waits on it reads its inputs unguarded. Otherwise it is every `!hal.fence` argument the
    body imports with `stream.timepoint.import` and does not signal itself."""
    if f.is_declaration:
        return ()
    args = f.arguments
    if coarse_fences(f) and len(args) >= 2 and is_fence(args[-2]):
        return (args[-2],)
    signalled = signalled_fences(f)
    out: list[Value] = []
    for op in f.body.ops:
        if op.name == "stream.timepoint.import" and len(op.operands) == 1:
            v = op.operands[0]
            if v in args and is_fence(v) and v not in signalled and v not in out:
                out.append(v)
    return tuple(out)


def is_private(f: Function) -> bool:
    vis = f.op.properties.get("sym_visibility")
    return isinstance(vis, StringAttr) and vis.value == "private"


def handed_pairs(f: Function, ret: Op) -> dict[int, int]:
    """For a private `f`, the operands of its return `ret` handed to the caller unready: the
    index of each resource operand followed by a timepoint -> the index of that timepoint.
    Empty for public functions (they return only ready values)."""
    return _resource_timepoint_pairs(ret.operands) if is_private(f) else {}


def handed_in_pairs(f: Function) -> dict[int, int]:
    """For a private `f`, its arguments handed in unready: the index of each resource argument
    followed by a timepoint argument -> the index of that timepoint (the caller's writes to the
    resource are done once it is reached, so `f` must wait for it before touching the resource).
    Empty for public functions."""
    if not is_private(f) or f.is_declaration:
        return {}
    return _resource_timepoint_pairs(f.arguments)


def _resource_timepoint_pairs(values: Sequence[Value]) -> dict[int, int]:
    """PropagateTimepoints' pairing on private signatures: the index of each resource directly
    followed by a timepoint -> the index of that timepoint."""
    return {
        i: i + 1
        for i in range(len(values) - 1)
        if isinstance(values[i].type, ResourceType) and isinstance(values[i + 1].type, TimepointType)
    }
