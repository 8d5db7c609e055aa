"""The table of effect rules, `EFFECTS` (op name -> rule), the `@effect(...)` decorator the rule
modules register with, and the ops that need no rule. It lives apart from `verify.rules` (which
imports every rule module to fill the table, and sets its conservative default) so that a rule
module imports only this, never its own importer.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from stream.dialect.awaits import PURE_VALUE_DIALECTS
from stream.dialect.common import SYNTAX_ONLY
from stream.ir.core import Op
from stream.ir.rule_table import OpSet, Requirement, RuleTable
from stream.ir.spec import spec_of
from stream.ir.spec_registry import registered_names
from verify.model import Builder

__all__ = ["EFFECTS", "EffectRule", "effect", "PURE", "EXECUTABLE_ONLY", "no_effect"]

EffectRule = Callable[[Builder, Op], None]

# Ops that only occur inside executables and never touch resources.
EXECUTABLE_ONLY = OpSet(
    "EXECUTABLE_ONLY",
    "Ops that only occur inside executables and never touch resources: they need no effect rule.",
    {"stream.dispatch.workgroup.count", "stream.dispatch.workgroup.id", "stream.dispatch.workgroup.size"},
)

# Scalar value ops (arith, math, index, complex) are left to the conservative default, which
# models the one case that matters (an `arith.select` of two resources names one of them).
_VALUE_DIALECTS = (*PURE_VALUE_DIALECTS, "complex.")
# `stream.resource.pack` is pure by its spec but has a rule of its own (the model records its
# slices to evaluate the offsets).
_OWN_RULE = "stream.resource.pack"


def no_effect(spec: Any) -> bool:
    """An op with no effect on storage or ordering: its spec declares no memory effect (`pure`,
    or `effects=()`), no timeline, alias or byte access, and no resource or timepoint result or
    timepoint operand (scalar value ops and executable-only ops excepted: see above)."""
    return (getattr(spec, "effects", None) == () and spec.timeline is None and not spec.aliases and not spec.accesses
            and not any(r.kind in ("resource", "timepoint") for r in spec.results)
            and not any(o.kind == "timepoint" for o in spec.operands)
            and not spec.name.startswith(_VALUE_DIALECTS) and spec.name not in EXECUTABLE_ONLY and spec.name != _OWN_RULE)


# Ops with no effect on storage or ordering (their index results are evaluated symbolically),
# derived from the specs; `util.initializer.return` (IREE's older terminator of an initializer,
# not a registered op) is kept by name.
PURE = OpSet(
    "PURE",
    "Ops with no effect on storage or ordering (their index results are evaluated symbolically): they need no effect rule. "
    "Derived from the specs (`no_effect`): declare `pure=True` or `effects=()` on the op's spec.",
    {*(n for n in registered_names() if no_effect(spec_of(n))), "util.initializer.return"},
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
    requires=Requirement(prefixes=("stream.",), unless=PURE | EXECUTABLE_ONLY | SYNTAX_ONLY,
                         why="pure ops and executable-only ops contribute nothing; SYNTAX_ONLY ops "
                         "(stream.dialect.common) are unmodelled, as unknown ops"),
    module="verify.rules",  # where the rules are written (verify/rules/*.py)
)

def effect(*names: str) -> Callable[[EffectRule], EffectRule]:
    """Register the rule of the named ops in `EFFECTS`."""
    return EFFECTS.register(*names)
