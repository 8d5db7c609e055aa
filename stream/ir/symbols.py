"""Symbol checks of the structural verifier: what ties one op to another by name.

IREE's `verifySymbolUses` and symbol tables, where the module holds what they look at:

* symbol tables: two ops of one block (the module, an executable, an inner module) with the same
  `sym_name` are a "redefinition of symbol" (MLIR), with a note at the first definition;
* calls: `util.call` must name a `util.func` and `func.call` a `func.func` of the module, with
  the call's function type exactly the callee's (IREE's util.call, MLIR's func.call);
* dispatches (`stream.tensor.dispatch`, `stream.async.dispatch`, `stream.cmd.dispatch`): when an
  entry point names a `stream.executable.export` of the module whose workgroup count region is
  not empty, the workload has one operand per explicit region argument (`!hal.device` ones are
  implicitly captured), of the same types; for `stream.cmd.dispatch`, when the export's function
  is in the executable's inner module, the uniform operands match its non-binding arguments in
  number and type and there is one resource per `!stream.binding` argument. An entry point that
  is not in the module is accepted, as IREE does (dumps and tests name executables they omit).

`symbol_diagnostics(module)` lists the problems; `stream.ir.verifier.structural_diagnostics`
includes them.
"""

from __future__ import annotations

from collections.abc import Iterator

from stream.ir.attributes import ArrayAttr, StringAttr, SymbolRefAttr, TypeAttr
from stream.ir.core import Module, Op
from stream.ir.diagnostics import Diagnostic, Note, source_line
from stream.ir.rule_table import OpSet, Requirement, RuleTable
from stream.ir.spec import spec_of
from stream.ir.types import FunctionType, OpaqueType, Type
from stream.ir.walk import FUNCTION_OPS

__all__ = ["symbol_diagnostics", "symbol_name", "CALLEE_KIND"]

# The function op each call op may call (IREE's util.call: only util.func; MLIR's func.call: only func.func).
CALLEE_KIND: RuleTable[str] = RuleTable(
    "CALLEE_KIND",
    """The function op a call op may call (`util.call` -> `util.func`): its callee is looked up
    among the module's symbols of that kind. A call op without one is refused.""",
    policy="refuse",
    requires=Requirement(traits=frozenset({"call"})),
    entries={"util.call": "util.func", "func.call": "func.func"},
)
_DISPATCHES = OpSet(
    "_DISPATCHES",
    "The dispatch ops whose entry point is checked against the executable's exports.",
    ("stream.tensor.dispatch", "stream.async.dispatch", "stream.cmd.dispatch"),
)
_BINDING = OpaqueType("!stream.binding")


def symbol_name(op: Op) -> str | None:
    """The op's `sym_name` (inherent in IREE's ops, discardable on ops kept generic)."""
    name = op.properties.get("sym_name") or op.attributes.get("sym_name")
    return name.value if isinstance(name, StringAttr) else None


def _error(op: Op, message: str, note: tuple[Op, str] | None = None) -> Diagnostic:
    notes = (Note(note[0].location, note[1]),) if note else ()
    return Diagnostic(op.location, message, "error", notes, source_line(op.location))


def _tables(module: Module) -> Iterator[tuple[Op, ...]]:
    """The op lists that are symbol tables: the module's, and every block of a region outside
    function bodies (executables, inner modules; nothing in a function body has a symbol)."""
    yield module.ops
    stack = [op for op in module.ops if op.name not in FUNCTION_OPS]
    while stack:
        op = stack.pop()
        for region in op.regions:
            for block in region.blocks:
                yield block.ops
                stack.extend(inner for inner in block.ops if inner.name not in FUNCTION_OPS and inner.regions)


def _duplicates(ops: tuple[Op, ...]) -> Iterator[Diagnostic]:
    seen: dict[str, Op] = {}
    for op in ops:
        name = symbol_name(op)
        if name is None:
            continue
        first = seen.setdefault(name, op)
        if first is not op:
            yield _error(op, f"redefinition of symbol named '{name}'", (first, "see existing symbol definition here"))


def _function_type(op: Op) -> FunctionType | None:
    ftype = op.properties.get("function_type")
    return ftype.type if isinstance(ftype, TypeAttr) and isinstance(ftype.type, FunctionType) else None


def _types(types: tuple[Type, ...]) -> str:
    return "(" + ", ".join(map(str, types)) + ")"


def _check_call(op: Op, top: dict[str, Op]) -> Iterator[Diagnostic]:
    callee = op.properties.get("callee")
    if not isinstance(callee, SymbolRefAttr):
        return
    target = top.get(callee.root) if not callee.nested else None
    kind = CALLEE_KIND[op.name]
    if target is None or target.name != kind:
        what = "is not defined in this module" if target is None else f"is a '{target.name}', not a '{kind}'"
        yield _error(op, f"'{op.name}' calls {callee}, which {what} (declare it: `{kind} private {callee}(...) -> ...`)")
        return
    expected = _function_type(target)
    if expected is None:
        return
    have = FunctionType(tuple(v.type for v in op.operands), tuple(v.type for v in op.results))
    if have != expected:
        yield _error(
            op, f"'{op.name}' function type mismatch: the call is {_types(have.inputs)} -> {_types(have.results)} "
            f"but {callee} is {_types(expected.inputs)} -> {_types(expected.results)}", (target, f"{callee} is defined here"),
        )


def _exports(module: Module, top: dict[str, Op]) -> dict[tuple[str, str], tuple[Op, Op | None]]:
    """(executable, export) -> (the export op, its function in the executable's inner module)."""
    out: dict[tuple[str, str], tuple[Op, Op | None]] = {}
    for name, ex in top.items():
        if ex.name != "stream.executable" or not ex.regions or not ex.regions[0].blocks:
            continue
        body = ex.regions[0].blocks[0].ops
        funcs = {
            symbol_name(f): f for inner in body if inner.name == "builtin.module" and inner.regions
            for b in inner.regions[0].blocks for f in b.ops if f.name in FUNCTION_OPS
        }
        for export in body:
            if export.name == "stream.executable.export" and (export_name := symbol_name(export)) is not None:
                ref = export.properties.get("function_ref")
                func = funcs.get(ref.root) if isinstance(ref, SymbolRefAttr) and not ref.nested else None
                out[(name, export_name)] = (export, func)
    return out


def _implicit(t: Type) -> bool:
    """IREE's ImplicitlyCaptured types (a device): not passed in the workload."""
    return isinstance(t, OpaqueType) and t.text == "!hal.device"


def _check_dispatch(op: Op, exports: dict[tuple[str, str], tuple[Op, Op | None]]) -> Iterator[Diagnostic]:
    spec = spec_of(op)
    entry_points = op.properties.get("entry_points")
    if spec is None or not isinstance(entry_points, ArrayAttr):
        return
    workload = spec.operand_group(op, "workload")
    for ref in entry_points.elements:
        if not isinstance(ref, SymbolRefAttr) or len(ref.nested) != 1 or (ref.root, ref.nested[0]) not in exports:
            continue
        export, func = exports[(ref.root, ref.nested[0])]
        region = export.regions[0] if export.regions else None
        if region is not None and region.blocks:
            explicit = [a.type for a in region.blocks[0].arguments if not _implicit(a.type)]
            if len(explicit) != len(workload):
                yield _error(
                    op, f"'{op.name}' workload mismatch: entry point {ref} expects {len(explicit)} argument(s) but the dispatch "
                    f"provides {len(workload)}", (export, f"{ref} is exported here"),
                )
                continue
            for i, (want, v) in enumerate(zip(explicit, workload)):
                if want != v.type:
                    yield _error(op, f"'{op.name}' workload operand #{i} type mismatch: {ref} expects {want} but the dispatch passes {v.type}")
        ftype = _function_type(func) if func is not None else None
        if op.name != "stream.cmd.dispatch" or ftype is None:
            continue
        uniforms = [v.type for v in spec.operand_group(op, "uniform_operands")]
        wanted = [t for t in ftype.inputs if t != _BINDING]
        bindings = len(ftype.inputs) - len(wanted)
        resources = len(spec.operand_group(op, "resources"))
        assert func is not None
        where = (func, f"the function {ref} exports is defined here")
        if len(uniforms) != len(wanted):
            yield _error(op, f"'{op.name}' function type mismatch: {len(uniforms)} uniform operand(s) but the exported function takes {len(wanted)}", where)
        elif resources != bindings:
            yield _error(op, f"'{op.name}' function type mismatch: {resources} resource(s) but the exported function takes {bindings} binding argument(s)", where)
        else:
            for i, (have, want) in enumerate(zip(uniforms, wanted)):
                if have != want:
                    yield _error(op, f"'{op.name}' uniform operand #{i} type mismatch: the exported function expects {want} but the dispatch passes {have}", where)


def symbol_diagnostics(module: Module) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for ops in _tables(module):
        out.extend(_duplicates(ops))
    top: dict[str, Op] = {}
    for op in module.ops:
        name = symbol_name(op)
        if name is not None:
            top.setdefault(name, op)
    exports = _exports(module, top)
    for f in module.ops:
        if f.name not in FUNCTION_OPS:
            continue
        for op in f.walk():
            if op.name in CALLEE_KIND:
                out.extend(_check_call(op, top))
            elif op.name in _DISPATCHES and exports:
                out.extend(_check_dispatch(op, exports))
    return out
