"""What every host rule works on: the `Frame` of a function activation, the table of host rules
`HOST_RULES` with its `@rule(...)` decorator, and the helpers the rules of `runtime.host_ops` and
`runtime.resource_ops` share (operand lookups, allocation labels, checked host accesses).

A `Frame` is also the `runtime.control_flow.Machine` the block runner and the `scf` rules drive:
`execute` runs one op by its host rule (through the race detector's gating,
`Session.gated`, when it is on), `bind` binds block arguments and region results (handing on
what their sources carry, `runtime.gates`), `decide` reads a value the host branches on.

Both rule modules import this one and nothing of each other's (`host_ops` imports
`resource_ops` so that importing it registers every host rule), so neither imports its importer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from runtime.gates import RunGates
from runtime.memory import MemoryFault, ResourceRef
from runtime.semaphore import Fence
from runtime.status import ExecutionError, Status, StatusCode
from stream.dialect.common import SYNTAX_ONLY
from stream.ir.core import Op, Value
from stream.ir.diagnostics import DiagnosticError
from stream.ir.rule_table import Requirement, RuleTable, levels_of, traits_of
from stream.ir.types import ResourceType, Type
from stream.ir.walk import Function

if TYPE_CHECKING:
    from runtime.executor import Session

__all__ = ["Frame", "Rule", "HOST_RULES", "rule", "host_op", "ref", "name", "named", "lifetime", "host_access", "fence",
           "unsupported"]


@dataclass
class Frame:
    """One function activation: SSA values to run-time values. `gates` (with the race detector
    only) tracks what each value's current binding carries (runtime.gates)."""

    session: Session
    function: Function
    env: dict[Value, Any] = field(default_factory=dict)
    gates: RunGates | None = None

    def value(self, v: Value) -> Any:
        try:
            return self.env[v]
        except KeyError:
            raise DiagnosticError.at(self.function.op.location, f"value {v} used before it is defined at run time") from None

    def execute(self, op: Op) -> None:
        """Run one op by its rule in `HOST_RULES`; an op without one is refused before it runs."""
        rule = HOST_RULES.get(op.name)
        if rule is None:
            raise DiagnosticError.at(op.location, unsupported(op))
        if self.gates is None:
            rule(self, op)
        else:
            self.session.gated(self, op, rule, self.gates)

    def run_ops(self, ops: Sequence[Op]) -> None:
        """`execute` each op in order (the loop every run spends its host time in: kept tight)."""
        rules = HOST_RULES
        gates = self.gates
        if gates is None:
            for op in ops:
                rule = rules.get(op.name)
                if rule is None:
                    raise DiagnosticError.at(op.location, unsupported(op))
                rule(self, op)
            return
        gated = self.session.gated
        for op in ops:
            rule = rules.get(op.name)
            if rule is None:
                raise DiagnosticError.at(op.location, unsupported(op))
            gated(self, op, rule, gates)

    def bind(self, targets: Sequence[Value], values: Sequence[Any], sources: Sequence[Value | None]) -> None:
        """Bind `targets` to `values` (those of `sources`), all at once (runtime.control_flow.Machine)."""
        env = self.env
        for t, v in zip(targets, values):
            env[t] = v
        if self.gates is not None:
            self.gates.forward(targets, sources)

    def decide(self, v: Value) -> Any:
        """The value of `v`, which the host branches or loops on: with the race detector, the host
        is ordered after what it carries from here on (runtime.gates)."""
        value = self.value(v)
        if self.gates is not None and self.gates.carried:
            fence = self.gates.decided(v)
            races = self.session.races
            if fence is not None and races is not None:
                races.host_await(fence)
        return value


Rule = Callable[[Frame, Op], None]


def unsupported(op: Op) -> str:
    """Why the executor refuses an op it has no host rule for."""
    level = ""
    if op.name.startswith(("flow.", "stream.tensor.", "stream.async.")):
        level = " (it belongs to an earlier level: compile the program to the cmd level first)"
    return f"'{op.name}' cannot be executed by the runtime{level}"


def host_op(spec: Any) -> bool:
    """host ops of the cmd level (not command-buffer commands, executable contents, symbols or
    non-return terminators)"""
    traits = traits_of(spec)
    if "cmd" not in levels_of(spec) or traits & {"streamable", "symbol", "isolated"}:
        return False
    return "return" in traits or "terminator" not in traits


HOST_RULES: RuleTable[Rule] = RuleTable(
    "HOST_RULES",
    """Execute the op on the host: read its operands from the frame (`fr.value(v)`), bind its
    results (`fr.env[r] = ...`), submit device work through the frame's driver, block on or
    signal timeline semaphores (`fn(frame, op)`, registered with `@rule(name)`). An op without
    a rule is refused before it runs (exit 2, "cannot be executed by the runtime").""",
    policy="refuse",
    requires=Requirement(where=host_op, unless=frozenset({
        "stream.binding.subspan", "stream.dispatch.workgroup.count", "stream.dispatch.workgroup.id", "stream.dispatch.workgroup.size",
    }) | SYNTAX_ONLY,
        why="executable contents never run on the host; SYNTAX_ONLY ops (stream.dialect.common) without a rule are refused as unknown ops"),
    module="runtime.host_ops",  # where the rules are written (and resource_ops for stream.resource.*)
)


def rule(*names: str) -> Callable[[Rule], Rule]:
    """Register the rule of the named ops in `HOST_RULES`."""
    return HOST_RULES.register(*names)


def ref(fr: Frame, v: Value, op: Op) -> ResourceRef:
    r = fr.value(v)
    if not isinstance(r, ResourceRef):
        raise DiagnosticError.at(op.location, f"expected a resource at run time, got {type(r).__name__}")
    return r


def name(v: Value, fallback: str) -> str:
    return f"%{v.name_hint}" if v.name_hint else fallback


def named(v: Value, kind: str, op: Op) -> str:
    """A label for an allocation: "%result_0 (alloca at prog.mlir:14:5)", or "alloca at ..."."""
    return f"%{v.name_hint} ({kind} at {op.location})" if v.name_hint else f"{kind} at {op.location}"


def lifetime(t: Type) -> str:
    return t.lifetime.value if isinstance(t, ResourceType) else ""


def host_access(fr: Frame, op: Op, ref: ResourceRef, offset: int, length: int, write: bool, what: str,
                 check: bool = True) -> np.ndarray:
    """The bytes of a host access, checked for bounds and storage; `check` records it with the
    race detector (a host access must be ordered after the device work it touches)."""
    s = fr.session
    if offset < 0 or offset + length > ref.length:
        raise ExecutionError(Status(StatusCode.OUT_OF_RANGE, f"OUT_OF_BOUNDS: {what} accesses [{offset}, {offset + length}) of a "
                                    f"{ref.length}-byte resource", f"{op.name} at {op.location}"))
    if s.races is not None and check:
        site = s.races.host_site(f"host {what}", str(op.location))
        s.races.access(ref.allocation, ref.offset + offset, ref.offset + offset + length, write, site, None)
    try:
        return ref.allocation.bytes(ref.offset + offset, length, what)
    except MemoryFault as e:
        raise ExecutionError(Status(StatusCode.DATA_LOSS, str(e), f"{op.name} at {op.location}")) from None


def fence(fr: Frame, v: Value | None) -> Fence:
    if v is None:
        return Fence()
    f = fr.value(v)
    if not isinstance(f, Fence):
        raise DiagnosticError.at(fr.function.op.location, f"expected a timepoint at run time, got {type(f).__name__}")
    return f
