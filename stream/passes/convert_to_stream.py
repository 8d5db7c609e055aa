"""convert-to-stream: input level (flow ops on tensors) -> tensor level (`stream.tensor.*`).

Every tensor value of the input becomes a pair (`!stream.resource<*>` value, byte size) with the
same contents, the size coming from `stream.tensor.sizeof` of the tensor type (encode-tensors
turns it into bytes). Op by op (rules in `_RULES`):

* `flow.dispatch` -> `stream.tensor.dispatch` (encodings = the tensor types; a tied result
  reuses the operand's size);
* `flow.tensor.transfer` -> `stream.async.transfer from(source) -> to(target)`;
* `flow.tensor.splat/empty/clone/slice/update` and `arith.constant dense<...>` tensors -> their
  `stream.tensor.*` forms;
* `flow.tensor.load` -> slice out the element, `stream.async.transfer` it to a `staging`
  resource, `stream.tensor.load` it on the host (a one-element tensor is transferred whole);
* `flow.tensor.store` -> `stream.tensor.fill` of the one element on the device;
* tensor globals (`util.global [mutable] @g : tensor<...>`) become resource globals, as IREE's
  UtilToStream conversion makes them: `!stream.resource<variable>` for a mutable global,
  `!stream.resource<constant>` for an immutable one. A `util.global.load` of one loads the
  resource and `stream.async.transfer`s it to a `*` resource the function owns; a
  `util.global.store` transfers the stored value (on the global's device) to a new resource of
  the global's lifetime and stores that. A `dense<...>` initial value becomes a
  `util.initializer` right after the global, which stores the constant the same way. So the
  global's storage is never written in place: a load copies it out, a store copies into fresh
  storage, and no other name aliases what the global holds. A load after a store of the same
  global in the function gets the stored tensor itself (as IREE's SimplifyGlobalAccesses
  forwards it), in the same block and in regions nested after the store; a region that stores
  the global ends that (a loop body's load sees the previous iteration's store, a load after an
  `scf` op the value of whichever path ran), and such a load reads the global again. (IREE also keeps the byte size in
  a `@g__size` global; tensor globals are statically shaped here, so every load recomputes it
  with `stream.tensor.sizeof` instead.) The global lives on its own `stream.affinity`, else
  the module's default device (`stream.analysis.affinity`, rule 6). A tensor global with a
  dynamic shape, an encoding, an element without a byte size or an initial value other than a
  `dense<...>` of its type is refused (exit 2). `util.initializer`s with tensors are converted
  like functions taking and returning nothing;
* the function becomes `util.func public` with IREE's synchronous ABI (docs/CONVENTIONS.md):
  tensor arguments are `!hal.buffer_view`s imported with `stream.tensor.import` (`consume` for
  `iree.abi.consume` / `iree.abi.output` arguments, borrowed otherwise) and cast to `*`; tensor
  results are cast to `external` and exported with `stream.tensor.export`.

Placement comes from the Affinity analysis (`stream.analysis.affinity`, rules in its docstring):
every stream op gets its device in `affinity`, and wherever an op runs on another device than
an operand lives, an explicit `stream.async.transfer` moves the operand (one per value and
device, reused by later consumers). `stream.affinity` attributes are consumed and dropped.

Invariant established: no tensor-typed value remains outside executables (nor in a global);
each function's results, and what it leaves in each global, compute the same bytes as the
input's; every resource is used only on the device it lives on, except through a transfer; a
resource global's storage is only ever read (by the transfer at a load) and is never returned,
exported or written in place.

Functions without tensors are left as they are. Multi-block functions, `scf` ops other than
`scf.for` / `scf.if`, and calls are refused with a diagnostic. A dynamically shaped argument gets its dims from the first op that
spells them (`tensor<?x4xf32>{%n}`); one that no op uses is not imported (returned unchanged, its
buffer view goes back to the caller as it came).
"""

from __future__ import annotations

from collections.abc import Callable

from stream.analysis.affinity import InputAffinity
from stream.ir.core import Module, Op
from stream.ir.diagnostics import DiagnosticError
from stream.ir.rule_table import Requirement, RuleTable
from stream.ir.types import TensorType
from stream.ir.walk import BODY_OPS, Function
from stream.passes.block_builder import STRUCTURED, check_straight_line
from stream.passes.convert_to_stream_abi import BUFFER_VIEW, FunctionAbi
from stream.passes.convert_to_stream_control_flow import StructuredControlFlow, shared_with_scf
from stream.passes.convert_to_stream_globals import GlobalAccesses, initializer_of, lowered_global, symbol_name, tensor_globals_of
from stream.passes.convert_to_stream_tensors import TensorOps
from stream.passes.pass_manager import register_pass

__all__ = ["convert_to_stream", "BUFFER_VIEW"]


@register_pass("convert-to-stream", produces="tensor")
def convert_to_stream(module: Module) -> Module:
    """Lower flow ops on tensors to stream.tensor ops on resources, placing every op on a device."""
    tensor_globals = tensor_globals_of(module)
    ops = []
    for top in module.ops:
        g = tensor_globals.get(symbol_name(top)) if top.name == "util.global" else None
        if g is not None:
            ops.append(lowered_global(g))
            if g.decl.properties.get("initial_value") is not None:
                ops.append(_FunctionConverter(Function(initializer_of(g)), module, tensor_globals).run())
        elif top.name in BODY_OPS and top.regions and top.regions[0].blocks and _has_tensors(top):
            ops.append(_FunctionConverter(Function(top), module, tensor_globals).run())
        else:
            ops.append(top)
    return module.replace(ops=tuple(ops))


def _has_tensors(func_op: Op) -> bool:
    ftype = Function(func_op).type
    if any(isinstance(t, TensorType) for t in (*ftype.inputs, *ftype.results)):
        return True
    return any(op.dialect == "flow" or any(isinstance(r.type, TensorType) for r in op.results) for op in func_op.walk() if op is not func_op)


class _FunctionConverter(TensorOps, GlobalAccesses, StructuredControlFlow, FunctionAbi):
    """Converts one function (or initializer): every rule of the pass, by concept in the
    modules its bases come from, and the driver that applies them op by op."""

    __slots__ = ()

    # -- driver ------------------------------------------------------------------------------
    def run(self) -> Op:
        check_straight_line(self.func, "convert-to-stream", STRUCTURED)
        self.affinity = InputAffinity.of(self.func, self.module)
        self.shared = shared_with_scf(self.func.op)
        arguments = self._import_arguments()
        self._convert(self.func.body.ops)
        return self._function(arguments)

    def _convert(self, ops: tuple[Op, ...]) -> None:
        for op in ops:
            rule = _RULES.get(op.name)
            if rule is not None:
                rule(self, op)
            elif op.name == "arith.constant" and isinstance(op.results[0].type, TensorType):
                self._constant(op)
            elif any(isinstance(v.type, TensorType) for v in (*op.operands, *op.results)):
                raise DiagnosticError.at(op.location, f"convert-to-stream cannot lower '{op.name}' on tensors")
            elif op.name in ("func.call", "util.call"):
                raise DiagnosticError.at(op.location, f"convert-to-stream does not support calls ('{op.name}')")
            else:
                self.b.copy(op)


_RULES: RuleTable[Callable[[_FunctionConverter, Op], None]] = RuleTable(
    "_RULES",
    """Lower the input-level op to tensor-level stream ops: look up its operands' `Tensor`s
    (encoding, sizes, affinity), emit the replacement through `self.b` and bind its results
    (`fn(converter, op)`). An op without one is copied unchanged (identity) unless it takes or
    returns a tensor (refused, exit 2) or is a call (refused).""",
    policy="identity",
    requires=Requirement(prefixes=("flow.",), ops=frozenset({"func.return", "util.return", "scf.for", "scf.if", "util.global.load",
                                                             "util.global.store"})),
    # Pairs rather than a dict: the rules are methods of different bases of _FunctionConverter,
    # and a dict display of them would be typed by their join (a bare `function`).
    entries=[
        ("flow.dispatch", _FunctionConverter._dispatch),
        ("flow.tensor.transfer", _FunctionConverter._transfer),
        ("flow.tensor.splat", _FunctionConverter._splat),
        ("flow.tensor.empty", _FunctionConverter._empty),
        ("flow.tensor.clone", _FunctionConverter._clone),
        ("flow.tensor.slice", _FunctionConverter._slice),
        ("flow.tensor.update", _FunctionConverter._update),
        ("flow.tensor.load", _FunctionConverter._load),
        ("flow.tensor.store", _FunctionConverter._store),
        ("scf.for", _FunctionConverter._for),
        ("scf.if", _FunctionConverter._if),
        ("util.global.load", _FunctionConverter._global_load),
        ("util.global.store", _FunctionConverter._global_store),
        ("func.return", _FunctionConverter._return),
        ("util.return", _FunctionConverter._return),
    ],
)
