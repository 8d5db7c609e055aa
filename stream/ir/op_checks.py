"""Per-op checks of IREE's op verifiers that need more than the op's operand groups.

* `stream.executable.export`: every `stream.return` of a non-empty workgroup count region
  returns the XYZ counts: three `index` values (IREE: "workgroup count region must return the
  XYZ dimension counts"; its parser also refuses a `-> (...)` that is not three indices, and so
  does `stream.dialect.region_directives.WorkgroupCountRegion`).
* `stream.tensor.dispatch`: a result tied to an operand has that operand's encoding, exactly
  (IREE's verifyTiedOperandEncodings: "the N-th operandEncoding (...) does not match the
  resultEncoding (...)").

Not checked: `stream.tensor.clone` between two encodings. IREE accepts it when the encodings are
*compatible*, which each encoding attribute defines for itself (`SerializableAttr::isCompatibleWith`:
`#iree_encoding.testing<>` is compatible with a serialized `testing<layouts = ...>`, a
`packed_storage` with no encoding, an attribute that is not serializable with anything).
streamproof does not model encoding attributes, so it accepts every clone rather than refuse
valid IREE programs; clones carry their byte sizes explicitly, so the verifier's reasoning does
not depend on the encodings.

* `stream.tensor.*`: each encoding has one dim value per `?` of its tensor type (IREE's
  verifyOpDynamicDims: "value set has N dynamic dimensions but only M dimension values are
  attached"); a `tensor<?xf32>` without its `{%d}` has no size anyone could compute.

`OP_CHECKS[name](op, spec)` yields `(op, message)` pairs; the structural verifier reports them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator

from stream.ir.attributes import ArrayAttr, TypeAttr
from stream.ir.core import Op
from stream.ir.rule_table import Requirement, RuleTable
from stream.ir.spec import OpSpec
from stream.ir.types import IndexType, ResourceType, TensorType

__all__ = ["OP_CHECKS", "XYZ"]

XYZ = "workgroup count region must return the XYZ dimension counts"
Check = Callable[[Op, OpSpec], Iterator[tuple[Op, str]]]


def _export(op: Op, spec: OpSpec) -> Iterator[tuple[Op, str]]:
    if not op.regions or not op.regions[0].blocks:
        return
    for block in op.regions[0].blocks:
        for ret in block.ops:
            if ret.name == "stream.return" and (len(ret.operands) != 3 or not all(isinstance(v.type, IndexType) for v in ret.operands)):
                types = ", ".join(str(v.type) for v in ret.operands)
                yield ret, f"{XYZ} (three index values), not ({types})"


def _tensor_dispatch(op: Op, spec: OpSpec) -> Iterator[tuple[Op, str]]:
    operand_encodings = op.properties.get("operand_encodings")
    result_encodings = op.properties.get("result_encodings")
    if not isinstance(operand_encodings, ArrayAttr) or not isinstance(result_encodings, ArrayAttr):
        return
    mixed = spec.operand_group(op, "mixed_operands")
    base = spec.operand_offset(op, "mixed_operands")
    for i, result_encoding in enumerate(result_encodings.elements):
        tied = spec.tied_operand(op, i) if i < len(op.results) else None
        if tied is None or not 0 <= tied - base < len(mixed):
            continue
        j = tied - base
        # One encoding per operand (IREE's generic form) or per resource operand (the pretty form's).
        k = j if len(operand_encodings) == len(mixed) else sum(isinstance(v.type, ResourceType) for v in mixed[:j])
        if k < len(operand_encodings) and operand_encodings.elements[k] != result_encoding:
            yield op, (f"the {j}-th operandEncoding ({operand_encodings.elements[k]}) does not match the resultEncoding "
                       f"({result_encoding}) of result #{i}, which is tied to it")


@functools.cache  # specs live as long as the process
def _encoding_dim_groups(spec: OpSpec) -> tuple[str, ...]:
    return tuple(o.name for o in spec.operands if o.name.endswith("encoding_dims"))


def _dynamic_dims(op: Op, spec: OpSpec) -> Iterator[tuple[Op, str]]:
    for group in _encoding_dim_groups(spec):
        attr = op.properties.get(group[: -len("_dims")]) or op.properties.get(group[: -len("_dims")] + "s")
        encodings = attr.elements if isinstance(attr, ArrayAttr) else (attr,)
        types = [e.type for e in encodings if isinstance(e, TypeAttr) and isinstance(e.type, TensorType)]
        want, have = sum(t.dynamic_dims for t in types), len(spec.operand_group(op, group))
        if want != have:
            shown = ", ".join(map(str, types))
            yield op, f"{shown} has {want} dynamic dimension(s) but {have} dimension value(s) are attached ({group})"


def _tensor_op(op: Op, spec: OpSpec) -> Iterator[tuple[Op, str]]:
    yield from _dynamic_dims(op, spec)
    if op.name == "stream.tensor.dispatch":
        yield from _tensor_dispatch(op, spec)


_TENSOR_OPS = ("clone", "constant", "dispatch", "empty", "export", "fill", "import", "load", "sizeof", "slice", "splat", "store", "update")

OP_CHECKS: RuleTable[Check] = RuleTable(
    "OP_CHECKS",
    """IREE's op verifier for the op where its information is in the module (`fn(op, spec)`
    yields `(op, message)` pairs the structural verifier reports, exit 2). An op without one has
    only the spec's shape checks (identity).""",
    policy="identity",
    requires=Requirement(ops=frozenset({"stream.executable.export", "stream.tensor.dispatch"}), why="the checks of IREE whose information is in the module (the dispatch checks live in verifier._RULES)"),
    entries={
        "stream.executable.export": _export,
        **{f"stream.tensor.{name}": _tensor_op for name in _TENSOR_OPS},
    },
)
