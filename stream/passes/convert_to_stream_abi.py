"""convert-to-stream's function boundary: IREE's synchronous ABI (docs/CONVENTIONS.md).

A function with tensors becomes `util.func public` taking and returning `!hal.buffer_view`s in
place of tensors: each tensor argument is imported with `stream.tensor.import` (`consume` for
`iree.abi.consume` / `iree.abi.output` arguments, borrowed otherwise) and cast to `*`, with the
dynamic dims the first op using it spells (`operand_dims`; one that no op spells is not
imported); each tensor result is cast to `external` and exported with `stream.tensor.export`,
moved first to the device its result attributes ask for. The ABI attributes the conversion
interprets are dropped from the signature. An initializer keeps its own op, with the new body.
"""

from __future__ import annotations

from typing import Any

from stream.analysis.affinity import result_attr_affinity
from stream.ir.attributes import ArrayAttr, Attribute, DictAttr, StringAttr, TypeAttr, UnitAttr
from stream.ir.core import Op, Region, Value, freeze
from stream.ir.rule_table import Requirement, RuleTable
from stream.ir.spec import canonical_ties, spec_of
from stream.ir.types import FunctionType, OpaqueType, TensorType
from stream.passes.convert_to_stream_values import EXTERNAL, UNKNOWN, ConverterState

__all__ = ["BUFFER_VIEW", "FunctionAbi", "flow_tensor_operands", "operand_dims"]

BUFFER_VIEW = OpaqueType("!hal.buffer_view")

# Argument attributes the conversion interprets (and drops).
_CONSUME_KEYS = ("iree.abi.consume", "iree.abi.output")
_ABI_KEYS = frozenset({*_CONSUME_KEYS, "iree.abi.affinity", "stream.affinity"})


def flow_tensor_operands(spec: Any) -> bool:
    """flow ops with a tensor operand group and its dims group (`source` and `source_dims`)"""
    names = {o.name for o in getattr(spec, "operands", ())}
    return spec.name.startswith("flow.") and any(n + "_dims" in names for n in names)


_OPERAND_DIMS: RuleTable[tuple[tuple[str, str], ...]] = RuleTable(
    "_OPERAND_DIMS",
    """Pairs (tensor operand group, the group holding their dynamic dims) of the op; without an
    entry the op has no tensor operand whose dims the conversion reads (identity: none).""",
    policy="identity", default=(),
    requires=Requirement(where=flow_tensor_operands),
    entries={
        "flow.dispatch": (("arguments", "argument_dims"),),
        "flow.tensor.transfer": (("operand", "operand_dims"),),
        "flow.tensor.clone": (("operand", "operand_dims"),),
        "flow.tensor.slice": (("source", "source_dims"),),
        "flow.tensor.update": (("target", "target_dims"), ("update", "update_dims")),
        "flow.tensor.load": (("source", "source_dims"),),
        "flow.tensor.store": (("target", "target_dims"),),
    },
)


def operand_dims(op: Op) -> list[tuple[Value, tuple[Value, ...]]]:
    """(tensor operand, its dynamic dim values as the op spells them) for every tensor operand."""
    spec = spec_of(op)
    out: list[tuple[Value, tuple[Value, ...]]] = []
    if spec is None:
        return out
    for group, dims_group in _OPERAND_DIMS.get(op.name, ()):
        dims = iter(spec.operand_group(op, dims_group))
        for v in spec.operand_group(op, group):
            if isinstance(v.type, TensorType):
                out.append((v, tuple(next(dims) for _ in range(v.type.dynamic_dims))))
    return out


class FunctionAbi(ConverterState):
    """The rules of the function's boundary: its arguments, its returns, its new signature."""

    __slots__ = ()

    def _import_arguments(self) -> tuple[Value, ...]:
        known_dims = self._argument_dims()
        new_args = []
        for i, arg in enumerate(self.func.arguments):
            if not isinstance(arg.type, TensorType):
                new_args.append(arg)
                continue
            view_arg = Value(BUFFER_VIEW)
            new_args.append(view_arg)
            dims = known_dims.get(arg)
            if dims is None:
                self.b.bind(arg, view_arg)  # dynamically shaped, no op spells its dims: not imported
                continue
            device = self.affinity.device_of(arg)
            size = self.sizeof(arg.type, dims, device)
            consume = any(isinstance(self.func.arg_attr(i, k), Attribute) for k in _CONSUME_KEYS)
            imported = self.b.create(
                "stream.tensor.import",
                {"source": view_arg, "result_encoding_dims": dims, "result_size": size},
                {"result": EXTERNAL},
                {"result_encoding": TypeAttr(arg.type), "consume": UnitAttr() if consume else None, "affinity": device},
            )
            cast = self.b.create(
                "stream.async.cast",
                {"source": imported.results[0], "source_size": size, "result_size": size},
                {"result": UNKNOWN},
                {"affinity": device},
            )
            self.define(arg, cast.results[0], size, arg.type, dims, device)
        return tuple(new_args)

    def _argument_dims(self) -> dict[Value, tuple[Value, ...]]:
        """Dims of each tensor argument: none when static, else as the first op using it spells them."""
        out: dict[Value, tuple[Value, ...]] = {}
        args = set(self.func.arguments)
        for arg in self.func.arguments:
            if isinstance(arg.type, TensorType) and arg.type.dynamic_dims == 0:
                out[arg] = ()
        for op in self.func.body.ops:
            for v, dims in operand_dims(op):
                if v in args and v not in out:
                    out[v] = tuple(self.b.lookup(d) for d in dims)
        return out

    def _return(self, op: Op) -> None:
        operands = []
        for index, v in enumerate(op.operands):
            if not isinstance(v.type, TensorType):
                operands.append(self.b.lookup(v))
                continue
            t = self.tensors.get(v)
            if t is None:
                # A dynamically shaped argument returned untouched, with no op spelling its dims:
                # the caller's buffer view goes back as it came (what exporting the import gives).
                operands.append(self.b.lookup(v))
                continue
            wanted = result_attr_affinity(self.func, index)
            if wanted is not None:
                t = self.use(v, wanted, op)
            cast = self.b.create(
                "stream.async.cast",
                {"source": t.resource, "source_size": t.size, "result_size": t.size},
                {"result": EXTERNAL},
                {"affinity": t.device},
                location=op.location,
            )
            export = self.b.create(
                "stream.tensor.export",
                {"source": cast.results[0], "source_encoding_dims": t.dims, "source_size": t.size},
                {"result": BUFFER_VIEW},
                {"source_encoding": TypeAttr(t.type), "affinity": t.device},
                location=op.location,
            )
            operands.append(export.results[0])
        self.b.create("util.return", {"operands": tuple(operands)}, location=op.location)

    def _function(self, arguments: tuple[Value, ...]) -> Op:
        if self.func.op.name == "util.initializer":
            return self.func.op.replace(regions=(Region((self.b.block(arguments),)),))
        ftype = self.func.type
        inputs = tuple(BUFFER_VIEW if isinstance(t, TensorType) else t for t in ftype.inputs)
        results = tuple(BUFFER_VIEW if isinstance(t, TensorType) else t for t in ftype.results)
        props: dict[str, Attribute] = {
            "sym_name": StringAttr(self.func.name),
            "function_type": TypeAttr(FunctionType(inputs, results)),
        }
        for key in ("sym_visibility", "tied_operands"):
            if key in self.func.op.properties:
                props[key] = self.func.op.properties[key]
        if results and "tied_operands" not in props:  # as IREE's util.func parser stores it
            props["tied_operands"] = canonical_ties(None, len(results), sparse=False)
        for key, n in (("arg_attrs", len(inputs)), ("res_attrs", len(results))):
            kept = _strip_abi_attrs(self.func.op.properties.get(key), n)
            if kept is not None:
                props[key] = kept
        attributes = {k: v for k, v in self.func.op.attributes.items() if k != "stream.affinity"}
        region = Region((self.b.block(arguments),))
        return Op("util.func", properties=freeze(props), attributes=freeze(attributes), regions=(region,), location=self.func.op.location)


def _strip_abi_attrs(attr: Attribute | None, n: int) -> ArrayAttr | None:
    """Argument/result attribute dictionaries without the ABI keys the conversion consumed."""
    if not isinstance(attr, ArrayAttr) or len(attr) != n:
        return None
    dicts = [DictAttr(tuple((k, v) for k, v in d.entries if k not in _ABI_KEYS)) if isinstance(d, DictAttr) else DictAttr(()) for d in attr.elements]
    if not any(d.entries for d in dicts):
        return None
    return ArrayAttr(tuple(dicts))

