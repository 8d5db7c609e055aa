"""propagate-timepoints' resource globals: IREE's companion timepoint global of each mutable one.

`@g__timepoint` (`util.global private mutable @g__timepoint = #stream.timepoint<immediate>`,
declared right before `@g`, `with_companions`) holds the timepoint at which what `@g` holds is
ready and no longer used by the call that stored it. A `util.global.load` of `@g` is preceded by
a load of `@g__timepoint`, and the loaded resource is pending on it like a region result; a
`util.global.store` of `@g` stores the un-awaited value and, into `@g__timepoint`, the join of
what covers it and every region of the block that captured it so far: the host does not wait for
the store.
"""

from __future__ import annotations

from stream.ir.attributes import ImmediateTimepointAttr, StringAttr, SymbolRefAttr, TypeAttr, UnitAttr
from stream.ir.core import Module, Op, freeze
from stream.ir.types import TIMEPOINT, ResourceType, TimepointType
from stream.passes.propagate_timepoints_timeline import Timeline, op_spec

__all__ = ["COMPANION_SUFFIX", "CompanionGlobals", "with_companions"]

COMPANION_SUFFIX = "__timepoint"  # IREE's name for a resource global's timepoint global


def with_companions(module: Module) -> tuple[Module, dict[str, str]]:
    """The module with a companion timepoint global for every mutable resource global that has
    none yet (declared right before it, as IREE does), and the companions by global name."""
    declared = {op.properties["sym_name"].value: op for op in module.ops  # type: ignore[attr-defined]
                if op.name == "util.global" and isinstance(op.properties.get("sym_name"), StringAttr)}
    companions: dict[str, str] = {}
    ops: list[Op] = []
    for op in module.ops:
        t = op.properties.get("type") if op.name == "util.global" else None
        if isinstance(t, TypeAttr) and isinstance(t.type, ResourceType) and "is_mutable" in op.properties:
            name = op.properties["sym_name"].value  # type: ignore[attr-defined]
            companion = name + COMPANION_SUFFIX
            existing = declared.get(companion)
            if existing is None:
                props = {"sym_visibility": StringAttr("private"), "is_mutable": UnitAttr(), "sym_name": StringAttr(companion),
                         "type": TypeAttr(TIMEPOINT), "initial_value": ImmediateTimepointAttr()}
                ops.append(Op("util.global", properties=freeze(props), location=op.location))
                companions[name] = companion
            elif isinstance(existing.properties.get("type"), TypeAttr) and isinstance(existing.properties["type"].type, TimepointType):  # type: ignore[attr-defined]
                companions[name] = companion  # a module this pass already ran on (or IREE's)
        ops.append(op)
    return module.replace(ops=tuple(ops)), companions


class CompanionGlobals(Timeline):
    """The rewrite of the loads and stores of mutable resource globals."""

    def _global(self, op: Op) -> None:
        """A load of `@g`: load `@g__timepoint` first, and the resource is pending on it. A store
        of `@g`: the un-awaited value, and into `@g__timepoint` what covers it and every region
        of this block that captured it so far (no host wait)."""
        companion = self._companion(op)
        assert companion is not None
        ref = SymbolRefAttr(companion)
        if op.name == "util.global.load":
            tp = op_spec("util.global.load").build(results={"result": TIMEPOINT}, attrs={"global": ref}, location=op.location)
            tp.results[0].name_hint = companion
            self.emitted.append(tp)
            self.emitted.append(op)
            timepoint = tp.results[0]
            self.cover[timepoint] = 0  # reached when whoever stored it is done: nothing known here
            self._bit(timepoint)
            self.raw[op.results[0]] = op.results[0]
            self._set_pending(op.results[0], frozenset({timepoint}))
            return
        value = op.operands[0]
        raw = self._raw(value)
        sources = set(self._pending(value)) | self.readers.get(raw, set())
        covering = self._timepoint(self._prune(sources)) or self._immediate()
        self.emitted.append(op.replace(operands=(raw,)))
        self.emitted.append(op_spec("util.global.store").build(operands={"value": covering}, attrs={"global": ref}, location=op.location))
