"""The table of effect rules, `EFFECTS` (op name -> rule), the `@effect(...)` decorator the rule
modules register with, and the ops that need no rule. It lives apart from `verify.rules` (which
imports every rule module to fill the table, and sets its conservative default) so that a rule
module imports only this, never its own importer.
"""

from __future__ import annotations

from collections.abc import Callable

from stream.ir.core import Op
from stream.ir.rule_table import OpSet, Requirement, RuleTable
from verify.model import Builder

__all__ = ["EFFECTS", "EffectRule", "effect", "PURE", "EXECUTABLE_ONLY"]

EffectRule = Callable[[Builder, Op], None]

# Ops with no effect on storage or ordering (their index results are evaluated symbolically).
PURE = OpSet(
    "PURE",
    "Ops with no effect on storage or ordering (their index results are evaluated symbolically): they need no effect rule.",
    {
    "stream.yield", "stream.tensor.sizeof", "stream.resource.size", "stream.resource.is_terminal",
    "hal.element_type", "hal.encoding_type", "hal.buffer_view.assert", "stream.binding.subspan",
    "stream.executable", "stream.executable.export", "stream.executable.end", "stream.return",
    "util.global", "util.initializer.return",
},
)
# Ops that only occur inside executables and never touch resources.
EXECUTABLE_ONLY = OpSet(
    "EXECUTABLE_ONLY",
    "Ops that only occur inside executables and never touch resources: they need no effect rule.",
    {"stream.dispatch.workgroup.count", "stream.dispatch.workgroup.id", "stream.dispatch.workgroup.size"},
)


EFFECTS: RuleTable[EffectRule] = RuleTable(
    "EFFECTS",
    """Declare the op's events and edges (host op, device submission, nested site), its accesses
    (byte ranges and modes), readiness uses, timepoints and lifetime facts through the
    `verify.model.Builder` vocabulary (`fn(builder, op)`, registered with `@effect(name)`).
    Without a rule (and not PURE) an op touching storage or the timeline is modelled
    conservatively (`unknown_op`: nothing done through it is ever proved) and every obligation
    it takes part in is undecided (`verify.unmodelled`), never a violation.""",
    policy="undecided",
    requires=Requirement(prefixes=("stream.",), unless=PURE | EXECUTABLE_ONLY,
                         why="pure ops and executable-only ops contribute nothing"),
    module="verify.rules",  # where the rules are written (verify/rules/*.py)
)

def effect(*names: str) -> Callable[[EffectRule], EffectRule]:
    """Register the rule of the named ops in `EFFECTS`."""
    return EFFECTS.register(*names)
