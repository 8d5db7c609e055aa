"""Streamability: which ops may run in an execution region, where they run, which are cheap
enough to copy into each consumer, and which host ops the schedule must not move device work
across.

These are per-op facts from rule tables, shared by the scheduling passes and `Partitioning`:

* streamable ops are the `stream.async.*` ops whose spec says so; everything else stays on the
  host;
* an op's execution affinity is its `on(...)`; a transfer without one follows IREE's rule; else
  the function's or the module's default;
* cheap ops (IREE's `preferCloneToConsumers`) are duplicated rather than passed between regions;
* host ops are side-effecting unless they are known pure (the rule table below); unknown ops are
  side-effecting.
"""

from __future__ import annotations

from collections.abc import Collection

from stream.ir.attributes import Attribute
from stream.ir.core import Op
from stream.ir.diagnostics import DiagnosticError
from stream.ir.rule_table import OpSet
from stream.ir.spec import affinity_of, spec_of, view
from stream.ir.types import Lifetime, ResourceType
from stream.ir.walk import used_values

__all__ = [
    "HOST",
    "DeviceKey",
    "HostKey",
    "CLONEABLE",
    "ELIDED",
    "is_streamable",
    "is_side_effecting",
    "is_cloneable",
    "execution_affinity",
    "used_values",
    "require_straight_line",
    "STRUCTURED",
]


class HostKey:
    """The device key of non-streamable ops."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "HOST"


HOST = HostKey()
DeviceKey = Attribute | None | HostKey

# Cheap ops worth duplicating into every consumer partition instead of passing their result
# between regions (IREE's `preferCloneToConsumers`). Dispatches that read no resource qualify too.
CLONEABLE = OpSet(
    "CLONEABLE",
    "Cheap ops duplicated into every consumer partition instead of passing their result between regions (IREE's preferCloneToConsumers).",
    {"stream.async.splat", "stream.async.alloca", "stream.async.clone"},
)

# Streamable ops that only steer partitioning and are dropped from the regions.
ELIDED = OpSet(
    "ELIDED",
    "Streamable ops that only steer partitioning and are dropped from the regions.",
    {"stream.async.barrier"},
)

# Host ops that have no side effect the schedule could reorder: they may move relative to device
# work as their operands allow. Everything else that is not streamable (asserts, calls, unknown
# ops) is a barrier no device op is hoisted across. `util.global.store` is unobservable from inside
# an execution region, as in IREE.
_PURE_HOST_PREFIXES = ("arith.", "stream.timepoint.")
_PURE_HOST = OpSet(
    "_PURE_HOST",
    "Host ops with no side effect the schedule could reorder (also every `arith.` and `stream.timepoint.` op); any other non-streamable op is a barrier no device op is hoisted across.",
    {
        "stream.tensor.import",
        "stream.tensor.export",
        "stream.tensor.sizeof",
        "stream.resource.size",
        "stream.async.load",
        "stream.async.store",
        "stream.async.cast",
        "stream.async.execute",
        "hal.element_type",
        "hal.encoding_type",
        "util.null",
        "util.global.load",
        "util.global.store",
    },
)


def is_streamable(op: Op) -> bool:
    """Whether `op` may run inside an `async.execute` region."""
    spec = spec_of(op)
    return spec is not None and "streamable" in spec.traits and op.name.startswith("stream.async.")


def is_side_effecting(op: Op) -> bool:
    """Host ops no device op may be hoisted across."""
    if is_streamable(op) or op.name in _PURE_HOST or op.name.startswith(_PURE_HOST_PREFIXES):
        return False
    spec = spec_of(op)
    return spec is None or "terminator" not in spec.traits


def is_cloneable(op: Op) -> bool:
    """Cheap ops worth a copy in every consuming partition."""
    if op.name in CLONEABLE:
        return True
    if op.name == "stream.async.dispatch":
        return not any(isinstance(v.type, ResourceType) for v in view(op).resource_operands)
    return False


def execution_affinity(op: Op, default: Attribute | None) -> Attribute | None:
    """Where a streamable op runs: its `on(...)` affinity; for a transfer without one, IREE's
    rule (a transfer from external or staging memory runs on the target, one to external or
    staging memory on the source, otherwise on the source); else the function's or module's
    default."""
    affinity = affinity_of(op)
    if affinity is not None:
        return affinity
    if op.name == "stream.async.transfer":
        v = view(op)
        source, result = v.source.type, v.result.type
        src_life = source.lifetime if isinstance(source, ResourceType) else None
        dst_life = result.lifetime if isinstance(result, ResourceType) else None
        host_visible = (Lifetime.EXTERNAL, Lifetime.STAGING)
        if src_life is Lifetime.STAGING and dst_life is Lifetime.STAGING:
            chosen = v.source_affinity
        elif src_life in host_visible:
            chosen = v.target_affinity
        else:
            chosen = v.source_affinity
        if chosen is not None:
            return chosen
    return default


# The structured control flow the scheduling passes carry through (one block per region).
STRUCTURED = OpSet(
    "STRUCTURED",
    "The structured control flow the lowering and scheduling passes carry through (one block per region).",
    {"scf.for", "scf.if", "scf.yield"},
)


def require_straight_line(op: Op, name: str, pass_name: str, allowed: Collection[str] = frozenset()) -> None:
    """Refuse what the scheduling passes do not model: functions with several blocks and
    control flow other than the `allowed` ops (a `DiagnosticError` naming the construct)."""
    blocks = op.regions[0].blocks if op.regions else ()
    if len(blocks) > 1:
        raise DiagnosticError.at(
            op.location,
            f"{pass_name}: @{name} has {len(blocks)} blocks; only straight-line functions (one block) are supported",
        )
    for inner in op.walk():
        if inner.dialect in ("scf", "cf") and inner.name not in allowed:
            supported = f"; supported: {', '.join(sorted(allowed))}" if allowed else ""
            raise DiagnosticError.at(
                inner.location,
                f"{pass_name}: '{inner.name}' in @{name} is not supported (scf control flow is not scheduled yet{supported})",
            )
