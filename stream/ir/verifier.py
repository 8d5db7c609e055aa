"""The structural verifier: everything about a module's shape that needs no solver.

It checks, for every op with a spec: operand and result groups, their type constraints and
required attributes; regions and their terminators; region captures (block arguments match the
captured values) and yields (match the results); ties; SSA dominance (with isolation); the ops
allowed at the function's level and no `*` lifetime at the async and cmd levels; and that a
constant `[offset to end for length]` range is consistent (`end == offset + length`, length not
negative). Whether a range lies within its resource is not structure: IREE's parser and op
verifiers accept a constant range past the end, and `verify` reports it as OUT_OF_BOUNDS with a
witness (a program bug, not unreadable input). Function bodies end with a terminator; symbols,
calls and dispatch entry points are checked by `stream.ir.symbols`, a few more of IREE's op
verifiers by `stream.ir.op_checks`.

`structural_diagnostics(module)` lists every problem; `verify_structure(module)` raises a
`DiagnosticError` for the first one. Multi-block functions and `scf` are accepted here (they
round-trip); the verifier and the passes refuse them when asked to reason about them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping, Sequence

from stream.ir.attributes import (
    AnyAffinity,
    ArrayAttr,
    Attribute,
    IntegerAttr,
    OpaqueAttr,
    StringAttr,
    SymbolRefAttr,
    TypeAttr,
    UnitAttr,
)
from stream.ir.core import Block, Module, Op, Region, Value
from stream.ir.diagnostics import Diagnostic, DiagnosticError, Note, source_line
from stream.ir.interfaces import bound_accesses
from stream.ir.op_checks import OP_CHECKS
from stream.ir.rule_table import Requirement, RuleTable
from stream.ir.spec import Attr, OpSpec, RegionSpec, SegmentError, spec_of
from stream.ir.symbols import symbol_diagnostics
from stream.ir.types import I32, INDEX, FunctionType, IndexType, Lifetime, ResourceType, TimepointType, Type
from stream.ir.walk import FUNCTION_OPS, Function, constant_int, defining_ops

__all__ = ["structural_diagnostics", "verify_structure", "function_level", "op_shape_errors", "dominators", "LEVEL_ORDER"]

LEVEL_ORDER = ("input", "tensor", "async", "cmd")

_KIND_TYPE: dict[str, type[Type]] = {"resource": ResourceType, "timepoint": TimepointType, "index": IndexType}


class _Collector:
    def __init__(self) -> None:
        self.diagnostics: list[Diagnostic] = []

    def error(self, op: Op, message: str, note: tuple[Op, str] | None = None) -> None:
        notes = (Note(note[0].location, note[1]),) if note else ()
        self.diagnostics.append(Diagnostic(op.location, message, "error", notes, source_line(op.location)))


# -- per-op shape checks from the spec -----------------------------------------------------------
def _check_shape(c: _Collector, op: Op, spec: OpSpec) -> bool:
    """Operand and result groups, attributes and regions; False when the groups cannot even be
    told apart (the op-specific rules then do not run)."""
    try:
        bounds = spec.operand_bounds(op)
    except SegmentError as e:
        c.error(op, f"'{op.name}': {e}")
        return False
    if bounds[-1] != len(op.operands):
        c.error(op, f"'{op.name}' has {len(op.operands)} operands but its segment sizes add up to {bounds[-1]}")
        return False
    for i, group in enumerate(spec.operands):
        n = bounds[i + 1] - bounds[i]
        if group.arity == "single" and n != 1:
            c.error(op, f"'{op.name}' needs exactly one '{group.name}' operand, found {n}")
        elif group.arity == "optional" and n > 1:
            c.error(op, f"'{op.name}' takes at most one '{group.name}' operand, found {n}")
        kind = _KIND_TYPE.get(group.kind)
        if kind is not None:
            for v in op.operands[bounds[i] : bounds[i + 1]]:
                if not isinstance(v.type, kind):
                    c.error(op, f"'{op.name}' operand '{group.name}' must be {group.kind}-typed, found {v.type}")
    try:
        rsizes = spec.result_sizes(op)
    except SegmentError as e:
        c.error(op, f"'{op.name}': {e}")
        return False
    ok = True
    if sum(rsizes) != len(op.results):
        c.error(op, f"'{op.name}' has {len(op.results)} results but its result groups need {sum(rsizes)}")
        ok = False
    for key in op.properties:
        if key not in spec.inherent_attributes:
            known = ", ".join(sorted(spec.inherent_attributes)) or "none"
            c.error(op, f"'{op.name}' has no property '{key}' (its properties are: {known})")
            ok = False
    for attr in spec.attrs:
        value = op.properties.get(attr.name)
        if value is None:
            if attr.required:
                c.error(op, f"'{op.name}' requires the '{attr.name}' attribute")
                ok = False
            continue
        problem = _attr_problem(attr, value)
        if problem is not None:
            c.error(op, f"the '{attr.name}' attribute of '{op.name}' must be {problem}, found {value}")
            ok = False
    variadic = bool(spec.regions) and spec.regions[-1].variadic
    fixed = len(spec.regions) - 1 if variadic else len(spec.regions)
    if spec.regions and (len(op.regions) < fixed if variadic else len(op.regions) != fixed):
        c.error(op, f"'{op.name}' expects {'at least ' if variadic else ''}{fixed} region(s), found {len(op.regions)}")
        ok = False
    for index, region in enumerate(op.regions):
        rspec = RegionSpec.of(spec.regions, index)
        if rspec is None or rspec.terminator is None:
            continue
        for block in region.blocks:
            if not block.ops or block.ops[-1].name != rspec.terminator:
                c.error(op, f"the region of '{op.name}' must end with '{rspec.terminator}'")
    return ok


# What an inherent attribute's value must be, by how its op spells it (`Attr.style`) and, for
# the attributes IREE's Stream ops share, by name. A value of another kind would print in a way
# that reads back differently (or not at all).
def _is_index_list(a: Attribute, allowed: Callable[[int], bool] = lambda v: True, type_: Type = INDEX) -> bool:
    return isinstance(a, ArrayAttr) and all(isinstance(e, IntegerAttr) and e.type == type_ and allowed(e.value) for e in a.elements)


_STYLE_KINDS: dict[str, tuple[str, Callable[[Attr, Attribute], bool]]] = {
    "symbol_name": ("a symbol name (a string)", lambda s, a: isinstance(a, StringAttr)),
    "symbol": ("a symbol reference", lambda s, a: isinstance(a, SymbolRefAttr)),
    "int": ("an integer", lambda s, a: isinstance(a, IntegerAttr) and a.type == s.int_type),
    "string": ("a string", lambda s, a: isinstance(a, StringAttr)),
    "type": ("a type", lambda s, a: isinstance(a, TypeAttr)),
    "unit": ("a unit attribute", lambda s, a: isinstance(a, UnitAttr)),
    "enum": ("a dialect enum attribute", lambda s, a: isinstance(a, OpaqueAttr) and a.text.startswith(s.enum_prefix + "<") and a.text.endswith(">")),
}
_NAME_KINDS: dict[str, tuple[str, Callable[[Attribute], bool]]] = {
    "sym_visibility": ("one of \"public\", \"private\", \"nested\"", lambda a: isinstance(a, StringAttr) and a.value in ("public", "private", "nested")),
    "tied_operands": ("a list of operand indices (-1: untied) of type index", lambda a: _is_index_list(a, lambda v: v >= -1)),
    "entry_points": ("a non-empty list of symbol references", lambda a: isinstance(a, ArrayAttr) and len(a) > 0 and all(isinstance(e, SymbolRefAttr) for e in a)),
    "resource_accesses": ("a list of access bits (1 ro, 2 wo, 3 rw) of type i32", lambda a: _is_index_list(a, lambda v: v in (1, 2, 3), I32)),
    "lifetime_intervals": ("a list of index lifetime bounds", lambda a: _is_index_list(a)),
    "operand_encodings": ("a list of types", lambda a: isinstance(a, ArrayAttr) and all(isinstance(e, TypeAttr) for e in a)),
    "result_encodings": ("a list of types", lambda a: isinstance(a, ArrayAttr) and all(isinstance(e, TypeAttr) for e in a)),
    "values": ("a list of attributes", lambda a: isinstance(a, ArrayAttr)),
    "affinity": ("a device affinity", lambda a: isinstance(a, AnyAffinity) or (isinstance(a, OpaqueAttr) and a.text.startswith("#"))),
    "execution_affinity": ("a device affinity", lambda a: isinstance(a, AnyAffinity) or (isinstance(a, OpaqueAttr) and a.text.startswith("#"))),
    "source_affinity": ("a device affinity", lambda a: isinstance(a, AnyAffinity) or (isinstance(a, OpaqueAttr) and a.text.startswith("#"))),
    "target_affinity": ("a device affinity", lambda a: isinstance(a, AnyAffinity) or (isinstance(a, OpaqueAttr) and a.text.startswith("#"))),
}


def _attr_problem(spec: Attr, value: Attribute) -> str | None:
    """What `value` should have been, or None when it fits."""
    kind = _STYLE_KINDS.get(spec.style)
    if kind is not None and not kind[1](spec, value):
        return kind[0]
    by_name = _NAME_KINDS.get(spec.name)
    if by_name is not None and not by_name[1](value):
        return by_name[0]
    return None


def _sized_resources(values: tuple[Value, ...]) -> int:
    return sum(1 for v in values if isinstance(v.type, ResourceType))


def _check_captures(c: _Collector, op: Op, spec: OpSpec) -> None:
    """Region ops with `with(...)` captures: block args match captures, sizes match resources,
    the yield matches the results, ties are in range."""
    operands = spec.operand_group(op, "resource_operands")
    sizes = spec.operand_group(op, "resource_operand_sizes")
    if len(sizes) != _sized_resources(operands):
        c.error(op, f"'{op.name}' captures {_sized_resources(operands)} resource(s) but has {len(sizes)} size(s)")
    if not op.regions or not op.regions[0].blocks:
        return
    block = op.regions[0].blocks[0]
    if len(block.arguments) != len(operands):
        c.error(op, f"'{op.name}' captures {len(operands)} value(s) but its region takes {len(block.arguments)} argument(s)")
    else:
        for i, (outer, inner) in enumerate(zip(operands, block.arguments)):
            if outer.type != inner.type:
                c.error(op, f"capture #{i} of '{op.name}' is {outer.type} outside but {inner.type} inside the region")
    if "results" not in spec._result_index:
        return
    results = spec.result_group(op, "results")
    if len(spec.operand_group(op, "result_sizes")) != _sized_resources(results):
        c.error(op, f"'{op.name}' has {len(results)} result(s) but {len(spec.operand_group(op, 'result_sizes'))} result size(s)")
    terminator = block.ops[-1] if block.ops else None
    if terminator is not None and terminator.name == "stream.yield":
        yielded = terminator.operands[: len(terminator.operands) // 2]
        if len(yielded) != len(results):
            c.error(terminator, f"'stream.yield' yields {len(yielded)} value(s) but '{op.name}' has {len(results)} result(s)", (op, "region op here"))
        else:
            for i, (y, r) in enumerate(zip(yielded, results)):
                if y.type != r.type:
                    c.error(terminator, f"yielded value #{i} is {y.type} but result #{i} of '{op.name}' is {r.type}")
    tied = op.properties.get("tied_operands")
    if isinstance(tied, ArrayAttr) and len(tied):
        if len(tied) != len(results):
            c.error(op, f"'{op.name}' has {len(tied)} tied_operands entries for {len(results)} result(s)")
        for i, e in enumerate(tied.elements):
            if isinstance(e, IntegerAttr) and e.value >= len(operands):
                c.error(op, f"result #{i} of '{op.name}' is tied to capture #{e.value}, which does not exist")


def _check_dispatch_ranges(c: _Collector, op: Op, spec: OpSpec) -> None:
    operands = spec.operand_group(op, "resource_operands")
    n = _sized_resources(operands)
    for group in ("resource_operand_sizes", "resource_operand_offsets", "resource_operand_ends", "resource_operand_lengths"):
        if len(spec.operand_group(op, group)) != n:
            c.error(op, f"'{op.name}' has {n} resource operand(s) but {len(spec.operand_group(op, group))} '{group}'")
    _check_ties(c, op, spec, len(operands))


def _check_ties(c: _Collector, op: Op, spec: OpSpec, n_operands: int) -> None:
    tied = op.properties.get("tied_operands")
    if isinstance(tied, ArrayAttr):
        for i, e in enumerate(tied.elements):
            if isinstance(e, IntegerAttr) and e.value >= n_operands:
                c.error(op, f"result #{i} of '{op.name}' is tied to operand #{e.value}, which does not exist")
            elif isinstance(e, IntegerAttr) and e.value >= 0 and i < len(op.results):
                index = spec.tied_operand(op, i)
                if index is not None and index < len(op.operands):
                    if isinstance(op.results[i].type, ResourceType) != isinstance(op.operands[index].type, ResourceType):
                        c.error(op, f"result #{i} of '{op.name}' is tied to an operand of another kind")


def _check_cmd_dispatch(c: _Collector, op: Op, spec: OpSpec) -> None:
    resources = spec.operand_group(op, "resources")
    for group in ("resource_sizes", "resource_offsets", "resource_lengths"):
        if len(spec.operand_group(op, group)) != len(resources):
            c.error(op, f"'{op.name}' binds {len(resources)} resource(s) but has {len(spec.operand_group(op, group))} '{group}'")
    accesses = op.properties.get("resource_accesses")
    if isinstance(accesses, ArrayAttr) and len(accesses) != len(resources):
        c.error(op, f"'{op.name}' binds {len(resources)} resource(s) but lists {len(accesses)} access mode(s)")


def _check_await(c: _Collector, op: Op, spec: OpSpec) -> None:
    operands = spec.operand_group(op, "resource_operands")
    if len(op.results) != len(operands):
        c.error(op, f"'stream.timepoint.await' passes {len(operands)} value(s) through but has {len(op.results)} result(s)")
    for v, r in zip(operands, op.results):
        if v.type != r.type:
            c.error(op, f"'stream.timepoint.await' result type {r.type} differs from its operand's {v.type}")
    if len(spec.operand_group(op, "resource_operand_sizes")) != _sized_resources(operands):
        c.error(op, "'stream.timepoint.await' needs one size per resource")


def _check_pack(c: _Collector, op: Op, spec: OpSpec) -> None:
    sizes = spec.operand_group(op, "dynamic_slice_sizes")
    intervals = op.properties.get("lifetime_intervals")
    if isinstance(intervals, ArrayAttr) and len(intervals) != 2 * len(sizes):
        c.error(op, f"'stream.resource.pack' has {len(sizes)} slice(s) but {len(intervals)} interval bounds")
    if len(spec.result_group(op, "packed_offsets")) != len(sizes):
        c.error(op, "'stream.resource.pack' needs one offset result per slice")


def _check_function(c: _Collector, op: Op) -> None:
    f = Function(op)
    ftype = op.properties.get("function_type")
    if not (isinstance(ftype, TypeAttr) and isinstance(ftype.type, FunctionType)):
        c.error(op, f"the 'function_type' of '{op.name}' must be a function type, found {ftype}")
        return
    if f.is_declaration:
        return
    entry = f.body
    if tuple(a.type for a in entry.arguments) != f.type.inputs:
        c.error(op, f"the entry block arguments of @{f.name} do not match its signature {f.type}")
    for block in f.blocks:
        last = block.ops[-1] if block.ops else None
        if last is None:
            c.error(op, f"a block of @{f.name} is empty (it needs a terminator)")
        elif not _may_terminate(last):
            c.error(last, f"block with no terminator: @{f.name} ends with '{last.name}' (a function body ends with a return)")
        elif last.name in ("func.return", "util.return"):
            types = tuple(v.type for v in last.operands)
            if types != f.type.results:
                c.error(last, f"@{f.name} returns ({', '.join(map(str, types))}) but its signature says {f.type}")


def _may_terminate(op: Op) -> bool:
    """Whether `op` can end a block: a terminator by its spec; an op without a spec (`cf.br`,
    kept generic) only if it has no results (no MLIR terminator has results)."""
    spec = spec_of(op)
    return "terminator" in spec.traits if spec is not None else not op.results


_RULES: RuleTable[Callable[[_Collector, Op, OpSpec], None]] = RuleTable(
    "_RULES",
    """Structural checks beyond the spec's shape for the op (`fn(collector, op, spec)`: captures
    of execution regions, dispatch ranges, cmd.dispatch bindings, awaits, pack slices). An op
    without one gets the spec's shape checks and the tie checks (identity).""",
    policy="identity",
    requires=Requirement(ops=frozenset({"stream.async.execute", "stream.async.concurrent", "stream.cmd.execute", "stream.async.dispatch", "stream.cmd.dispatch", "stream.timepoint.await", "stream.resource.pack"})),
    entries={
        "stream.async.execute": _check_captures,
        "stream.async.concurrent": _check_captures,
        "stream.cmd.execute": _check_captures,
        "stream.async.dispatch": _check_dispatch_ranges,
        "stream.cmd.dispatch": _check_cmd_dispatch,
        "stream.timepoint.await": _check_await,
        "stream.resource.pack": _check_pack,
    },
)


# -- static byte ranges --------------------------------------------------------------------------
# The ranges come from the op's interfaces: every declared access with an offset and an end or a
# length (`OpSpec.accesses`), and every aliased window (`Alias` with an offset: a subview).


def _check_range(c: _Collector, op: Op, what: str, size: int | None, offset: int | None, end: int | None, length: int | None) -> None:
    if length is not None and length < 0:
        c.error(op, f"'{op.name}': {what} has a negative length {length}")
    if end is not None and offset is not None and length is not None and end != offset + length:
        c.error(op, f"'{op.name}': {what} is [{offset} to {end} for {length}], but {offset} + {length} != {end}")


@functools.cache  # specs live as long as the process
def _checks_ranges(spec: OpSpec) -> bool:
    """Whether the spec declares a range that can be checked (an access with an offset and an end
    or a length, or a windowed alias): most ops have none, and binding them is not free."""
    return (any(a.offset is not None and (a.end is not None or a.length is not None) for a in spec.accesses or ())
            or any(al.offset is not None for al in spec.aliases))


def _check_static_ranges(c: _Collector, op: Op, spec: OpSpec, defs: dict[Value, Op]) -> None:
    if not _checks_ranges(spec):
        return

    def const(v: Value | None) -> int | None:
        return constant_int(v, defs) if v is not None else None

    for a in bound_accesses(spec, op) or ():
        if a.offset is None or (a.end is None and a.length is None):
            continue
        what = f"{a.access.label} #{a.element}" if a.element is not None else f"the {a.access.resource} range"
        _check_range(c, op, what, const(a.size), const(a.offset), const(a.end), const(a.length))
    for al in spec.aliases:
        if al.offset is not None:
            groups = spec.operand_groups(op)
            size = next((s for g, s in spec.sized.operands if g == al.operand), None) if spec.sized else None
            first = {n: groups[n][0] if groups[n] else None for n in (size, al.offset, al.length) if n is not None}
            _check_range(c, op, f"the {al.operand} range", const(first.get(size) if size else None), const(first[al.offset]),
                         None, const(first.get(al.length) if al.length else None))


# -- dominance -----------------------------------------------------------------------------------
def dominators(region: Region) -> list[set[int]]:
    """Iterative dominator sets of a region's blocks (entry = block 0)."""
    n = len(region.blocks)
    preds: list[set[int]] = [set() for _ in range(n)]
    for i, block in enumerate(region.blocks):
        if block.ops:
            for s in block.ops[-1].successors:
                if 0 <= s < n:
                    preds[s].add(i)
    dom = [set(range(n)) for _ in range(n)]
    dom[0] = {0}
    changed = True
    while changed:
        changed = False
        for i in range(1, n):
            new = set(range(n))
            for p in preds[i]:
                new &= dom[p]
            if not preds[i]:
                new = set()
            new.add(i)
            if new != dom[i]:
                dom[i] = new
                changed = True
    return dom


def _check_region_dominance(c: _Collector, region: Region, visible: set[Value], isolated: bool) -> None:
    """Check every use in `region` against what dominates it. `visible` holds the values of the
    enclosing scopes; it is extended while the region's blocks are walked and is as it was when
    this returns. Nesting thus costs only the region's own values (copying the enclosing scope
    for every region was quadratic: tens of thousands of values times thousands of execute and
    concurrent regions in a 10k-dispatch cmd program)."""
    scope: set[Value] = set() if isolated else visible
    if len(region.blocks) <= 1:
        for block in region.blocks:
            _check_block(c, block, scope, ())
        return
    defined = [[*b.arguments, *(r for op in b.ops for r in op.results)] for b in region.blocks]
    for i, (block, doms) in enumerate(zip(region.blocks, dominators(region))):
        _check_block(c, block, scope, [v for d in sorted(doms - {i}) for v in defined[d]])


def _check_block(c: _Collector, block: Block, available: set[Value], inherited: Sequence[Value]) -> None:
    """Check the uses in `block`, where `available` and `inherited` (the values of the blocks
    dominating it) are visible. What this adds to `available` it removes again; a value that was
    already there stays."""
    added: list[Value] = []
    for v in (*block.arguments, *inherited):
        if v not in available:
            available.add(v)
            added.append(v)
    for op in block.ops:
        for i, v in enumerate(op.operands):
            if v not in available:
                c.error(op, f"operand #{i} of '{op.name}' does not dominate this use (defined later, elsewhere, or outside an isolated region)")
                break
        if op.regions:
            spec = spec_of(op)
            for region in op.regions:
                _check_region_dominance(c, region, available, bool(spec and spec.isolated))
        for r in op.results:
            if r not in available:
                available.add(r)
                added.append(r)
    available.difference_update(added)


# -- levels --------------------------------------------------------------------------------------
def _level_sources(ops: Iterable[Op]) -> dict[str, Op]:
    """The first op of each level among `ops`."""
    first: dict[str, Op] = {}
    for op in ops:
        spec = spec_of(op)
        if spec is not None and spec.defines_level is not None:
            first.setdefault(spec.defines_level, op)
    return first


def _earliest(first: Mapping[str, Op]) -> str | None:
    return next((level for level in LEVEL_ORDER if level in first), None)


def function_level(func_op: Op) -> str | None:
    """The level a function is at: the earliest level any of its ops belongs to (IREE's tensor
    phase, for instance, also holds a few async ops), or None for host ops only."""
    return _earliest(_level_sources(func_op.walk()))


def _check_levels(c: _Collector, func_op: Op) -> None:
    f = Function(func_op)
    ops = list(func_op.walk())  # walked once: a 10k-dispatch function has ~100k ops
    first = _level_sources(ops)
    level = _earliest(first)
    if level is None:
        return
    source = first[level]
    for op in ops:
        if op is func_op:
            continue
        spec = spec_of(op)
        if spec is not None and level not in spec.levels:
            allowed = ", ".join(sorted(spec.levels, key=LEVEL_ORDER.index)) if spec.levels else "none"
            c.error(
                op,
                f"'{op.name}' is not allowed in @{f.name}, which is at the {level} level (allowed at: {allowed})",
                (source, f"@{f.name} is at the {level} level because of this '{source.name}'"),
            )
    # Lifetimes are assigned by refine-usage, which runs at the async level before scheduling (as
    # IREE's VerifyLoweringToAsyncResources allows `*` and VerifyLoweringToAsync does not): `*`
    # is an error at the cmd level and in scheduled async functions (with execution regions).
    scheduled = level == "cmd" or any(op.name == "stream.async.execute" for op in ops)
    if scheduled:
        for op in ops:
            values: list[Value] = list(op.results) + list(op.operands)
            for region in op.regions:
                for block in region.blocks:
                    values.extend(block.arguments)
            for v in values:
                if isinstance(v.type, ResourceType) and v.type.lifetime is Lifetime.UNKNOWN:
                    c.error(op, f"'{op.name}' uses a !stream.resource<*> at the {level} level (lifetimes must be assigned)")
                    break


# -- driver --------------------------------------------------------------------------------------
def _op_checks(c: _Collector, op: Op, spec: OpSpec) -> bool:
    """The checks of `op` alone; False when its groups cannot be told apart. They read only the
    op (immutable, regions included), so an op that passed them is marked (`Op._checked`) and an
    op a pass kept (`remap_op` returns the very same op when nothing changed) is not checked
    again in the next pass's output. The range checks read constants around the op: they always
    run."""
    if op._checked:
        return True
    before = len(c.diagnostics)
    if not _check_shape(c, op, spec):
        return False
    rule = _RULES.get(op.name)
    if rule is not None:
        rule(c, op, spec)
    if spec.ties is not None and op.name not in _RULES:
        _check_ties(c, op, spec, len(op.operands))
    check = OP_CHECKS.get(op.name)
    if check is not None:
        for at, message in check(op, spec):
            c.error(at, message)
    if len(c.diagnostics) == before:
        object.__setattr__(op, "_checked", True)
    return True


def structural_diagnostics(module: Module) -> list[Diagnostic]:
    c = _Collector()
    for top in module.ops:
        defs = defining_ops(top)
        for op in top.walk():
            spec = spec_of(op)
            if spec is None:
                continue
            if not _op_checks(c, op, spec):
                continue
            _check_static_ranges(c, op, spec, defs)
            if op.name in FUNCTION_OPS:
                _check_function(c, op)
                _check_levels(c, op)
            elif op.name == "util.initializer":
                for block in (b for r in op.regions for b in r.blocks):
                    if block.ops and not _may_terminate(block.ops[-1]):
                        c.error(block.ops[-1], f"block with no terminator: a 'util.initializer' ends with '{block.ops[-1].name}'")
        _check_terminator_positions(c, top)
        for region in top.regions:
            _check_region_dominance(c, region, set(), True)
    c.diagnostics.extend(symbol_diagnostics(module))
    return c.diagnostics


def _check_terminator_positions(c: _Collector, top: Op) -> None:
    for op in top.walk():
        for region in op.regions:
            for block in region.blocks:
                for inner in block.ops[:-1]:
                    spec = spec_of(inner)
                    if spec is not None and "terminator" in spec.traits:
                        c.error(inner, f"'{inner.name}' must be the last op of its block")


def op_shape_errors(op: Op) -> list[str]:
    """What is wrong with one op's own shape (groups, attributes, regions, op rules), without
    looking at its surroundings. The printer uses it to fall back to generic form for a
    malformed op, as MLIR does, instead of failing on it."""
    spec = spec_of(op)
    if spec is None:
        return []
    c = _Collector()
    if _check_shape(c, op, spec):
        rule = _RULES.get(op.name)
        if rule is not None:
            rule(c, op, spec)
        if op.name in FUNCTION_OPS:
            _check_function(c, op)
    return [d.message for d in c.diagnostics]


def verify_structure(module: Module) -> None:
    """Raise a DiagnosticError for the first structural problem (the rest become notes)."""
    diagnostics = structural_diagnostics(module)
    if diagnostics:
        raise DiagnosticError(diagnostics[0], tuple(diagnostics[1:10]))
