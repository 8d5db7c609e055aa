"""The storage map: which allocation, at which byte offset, every resource value names.

SPEC §3.2: a resource value is a window `(allocation, offset, size)` of some allocation. Values
get their storage from the op that defines them, by a rule table keyed by op name or by the
op's interfaces (sizes from `Sized`, aliases from `Alias`):

* allocations: `resource.alloca` / `resource.alloc` (owned), `tensor.import` (borrowed, or owned
  by the program with `consume`), `resource.constants`, resource-typed function arguments
  (caller storage), and at the async and tensor levels every untied result (a fresh value);
* aliases: results an op's spec declares as an operand's storage (`Alias`, stream.ir.interfaces:
  `timepoint.await` / `timepoint.barrier` / `async.cast` / `async.barrier`, the same version
  passed through; `resource.subview`, a window that adds its offset), region captures (block
  arguments alias the captured operands), tied results (the result *is* its operand's storage: a
  new *version* of it), execute and concurrent results (the storage of the value the region yields).

`version` numbers the values of one storage at the async level: an in-place write (a tie) ends
the operand's version and starts a new one, so "every reader of the old version happens before
the writer" is the tie-linearity rule (reference A2). Untied resource results of ops without an
effect rule get an `UNKNOWN` allocation: it may alias anything, so every access through it is
undecided (fail closed, `verify.obligations.opaque`), and it is never freeable.

Assumptions: distinct imports and distinct resource arguments do not alias (SPEC §3.2).

API: `analyze_storage(function, module=None) -> StorageMap`; `StorageMap.view(value)`;
`StorageMap.symbols` holds the symbolic index values (see `verify.symbolic`).
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import verify.int_facts  # noqa: F401  (registers the evaluators of util/hal/cf facts)
from stream.ir.attributes import AnyAffinity, Attribute, StringAttr, SymbolRefAttr
from stream.ir.core import Block, Location, Module, Op, Value
from stream.ir.diagnostics import DiagnosticError
from stream.ir.interfaces import alias_pairs, sized_operands, sized_results
from stream.ir.rule_table import OpSet, Requirement, RuleTable
from stream.ir.spec import OpSpec, affinity_of, spec_of
from stream.ir.types import IndexType, IntegerType, Lifetime, ResourceType
from stream.ir.walk import Function
from verify.globals import LOAD, STORE, ModuleGlobals, global_name
from verify.symbolic import ZERO, Expr, Symbols

__all__ = ["AllocKind", "Allocation", "View", "StorageMap", "Walker", "analyze_storage", "devices_of", "spec_for", "operand_groups", "STORAGE_RULES"]


class AllocKind(enum.Enum):
    ALLOCA = "alloca"
    ALLOC = "alloc"
    IMPORT = "import"  # borrowed: the caller's storage, read-only
    IMPORT_CONSUMED = "import consume"  # ownership passed to the program
    ARGUMENT = "argument"  # a resource-typed function argument (caller storage, read/write)
    CONSTANTS = "constants"  # stream.resource.constants
    MAPPED = "mapped"  # stream.resource.try_map: a host buffer mapped for the device (storage of its own)
    VALUE = "value"  # a fresh async/tensor-level value
    GLOBAL = "global"  # the storage a resource global holds (`util.global.load`; verify.globals)
    UNKNOWN = "unknown"  # produced by an op the verifier does not model


@dataclass(slots=True, eq=False)
class Allocation:
    id: int
    kind: AllocKind
    value: Value
    op: Op | None
    size: Expr
    lifetime: Lifetime | None
    placement: frozenset[str] | None  # devices it may live on; None = unknown (any device)
    location: Location
    indeterminate: bool = False
    symbol: str | None = None  # GLOBAL: the global's name
    mutable: bool = True  # GLOBAL: declared `mutable`

    @property
    def readonly(self) -> str | None:
        """Why writing it is a BORROWED_INPUT_MUTATED, or None when it may be written."""
        if self.kind is AllocKind.IMPORT:
            return "an import without `consume` (borrowed caller storage)"
        if self.kind is AllocKind.GLOBAL and not self.mutable:
            return f"the immutable global @{self.symbol} (only initializers set it)"
        if self.lifetime is Lifetime.CONSTANT:
            return "a constant"
        return None

    @property
    def owned(self) -> bool:
        """Allocated by this function, so it may (and for transients must) be freed by it."""
        return self.kind in (AllocKind.ALLOCA, AllocKind.ALLOC)

    @property
    def caller_visible(self) -> bool:
        """Observed outside the function once it returns: the caller's storage, and a mutable
        global's (the next function to load it). An immutable global is never written again."""
        return self.kind in (AllocKind.IMPORT, AllocKind.IMPORT_CONSUMED, AllocKind.ARGUMENT) or (
            self.kind is AllocKind.GLOBAL and self.mutable)


@dataclass(frozen=True, slots=True)
class View:
    """A resource value: `size` bytes at `offset` in `alloc`, in version `version`."""

    alloc: Allocation
    offset: Expr
    size: Expr
    version: int


@functools.cache
def _spec_named(name: str) -> OpSpec | None:
    return spec_of(name)


def spec_for(op: Op) -> OpSpec | None:
    """`spec_of(op)`, memoised by op name (the verifier asks for every op several times; a cache,
    not a table: tests/test_op_coverage.py counts module-level dicts of op names as tables)."""
    return _spec_named(op.name)


def devices_of(attr: Attribute | None) -> frozenset[str] | None:
    """The devices an affinity names (None without one). One set per distinct affinity: every
    op of a function asks, and a 10k-dispatch program names only a few."""
    return _devices(attr) if isinstance(attr, AnyAffinity) else None


@functools.lru_cache(maxsize=1024)
def _devices(attr: Attribute | None) -> frozenset[str] | None:
    if isinstance(attr, AnyAffinity):
        devices = attr.devices()
        return frozenset(devices) if devices else None
    return None


@dataclass(slots=True, eq=False)
class StorageMap:
    symbols: Symbols
    views: dict[Value, View] = field(default_factory=dict)
    allocations: list[Allocation] = field(default_factory=list)
    # The device each op runs on (its own affinity, else the enclosing region's, else the
    # function's or module's default); None when unknown.
    op_device: dict[Op, frozenset[str] | None] = field(default_factory=dict)
    # Calls to private functions of the module with a summary (verify.calls.CallSummary).
    call_summaries: dict[Op, Any] = field(default_factory=dict)
    call_reasons: dict[Op, str] = field(default_factory=dict)  # the other calls: why they have none
    globals: ModuleGlobals = field(default_factory=lambda: ModuleGlobals(None))  # the module's util.globals
    # The storage each resource global holds in this function: the allocation of its first load,
    # or the value the function stored into it (a later load names that value's storage).
    global_allocs: dict[str, Allocation] = field(default_factory=dict)
    global_values: dict[str, Value] = field(default_factory=dict)
    mapped: dict[Value, Value] = field(default_factory=dict)  # try_map: host buffer -> the first resource mapping it
    _version: int = 0

    def view(self, value: Value) -> View | None:
        return self.views.get(value)

    def new_version(self) -> int:
        self._version += 1
        return self._version

    # -- used by the rules ------------------------------------------------------------------
    def allocate(
        self,
        value: Value,
        kind: AllocKind,
        op: Op | None,
        size: Expr,
        placement: frozenset[str] | None,
        location: Location,
        indeterminate: bool = False,
    ) -> Allocation:
        lifetime = value.type.lifetime if isinstance(value.type, ResourceType) else None
        alloc = Allocation(len(self.allocations), kind, value, op, size, lifetime, placement, location, indeterminate)
        self.allocations.append(alloc)
        self.views[value] = View(alloc, ZERO, size, self.new_version())
        return alloc

    def alias(self, value: Value, source: Value, offset: Expr = ZERO, size: Expr | None = None, new_version: bool = False) -> None:
        src = self.views.get(source)
        if src is None:  # e.g. a non-resource operand; nothing to alias
            return
        version = self.new_version() if new_version else src.version
        self.views[value] = View(src.alloc, src.offset + offset, src.size if size is None else size, version)


class Walker:
    """Walks a function in program order, evaluating index values and applying storage rules."""

    def __init__(self, storage: StorageMap, default_device: frozenset[str] | None, first_size: dict[Value, Value] | None = None,
                 module: Module | None = None) -> None:
        self.storage = storage
        self.module = module  # where calls find their callees (verify.calls)
        self.first_size = first_size or {}
        self.symbols = storage.symbols
        self.device_stack: list[frozenset[str] | None] = [default_device]

    def device(self, op: Op) -> frozenset[str] | None:
        own = devices_of(affinity_of(op))
        return own if own is not None else self.device_stack[-1]

    def block(self, block: Block) -> None:
        for op in block.ops:
            self.op(op)

    def op(self, op: Op) -> None:
        self.storage.op_device[op] = self.device(op)
        rule = STORAGE_RULES.get(op.name)
        spec = spec_for(op)
        if rule is not None:
            rule(self, op)
        elif spec is not None and spec.aliases:
            alias_results(self, op, spec)
        elif any(isinstance(r.type, ResourceType) for r in op.results):
            default_results(self, op)
        elif op.regions and op.name not in OPAQUE_REGION_OPS:
            # Unknown region ops (scf, ...) are refused before we get here; walk defensively.
            for region in op.regions:
                for block in region.blocks:
                    self.block(block)

    def size(self, v: Value | None) -> Expr:
        return self.symbols.expr(v) if v is not None else self.symbols.fresh("opaque")


OPAQUE_REGION_OPS = OpSet(
    "OPAQUE_REGION_OPS",
    "Region ops whose bodies the verifier does not walk (executables).",
    {"stream.executable", "stream.executable.export"},
)
# Region ops whose bodies the effect rules walk (verify.rules.regions); any other op with regions
# inside a function is refused, since nothing it holds would be checked.
MODELLED_REGION_OPS = OpSet(
    "MODELLED_REGION_OPS",
    "Region ops whose bodies the effect rules walk (verify.rules.regions); any other op with regions inside a function is refused.",
    frozenset({"stream.async.execute", "stream.async.concurrent", "stream.cmd.execute", "stream.cmd.serial", "stream.cmd.concurrent"})
    | OPAQUE_REGION_OPS,
)

# `cf.assert` aborts or falls through: a straight-line op whose condition is a fact for what
# follows it (verify.int_facts), not a branch.
STRAIGHT_LINE_CF = OpSet(
    "STRAIGHT_LINE_CF",
    "cf ops that abort or fall through (runtime checks): straight-line, their conditions are facts (verify.int_facts).",
    {"cf.assert"},
)

StorageRule = Callable[[Walker, Op], None]
STORAGE_RULES: RuleTable[StorageRule] = RuleTable(
    "STORAGE_RULES",
    """Where the op's resource results live: allocate them (`w.storage.allocate`, with kind,
    size and placement) or alias an operand's view (`w.storage.alias`), and walk the bodies of
    region ops (`fn(walker, op)`, registered with `@storage_rule(name)`). Without a rule the
    default applies (`default_results`: a tied result aliases its operand, an untied one is a
    fresh value for an op with an effect rule and UNKNOWN storage otherwise, never proved).""",
    policy="conservative",
    requires=Requirement(
        ops=(MODELLED_REGION_OPS - OPAQUE_REGION_OPS) | {"stream.resource.alloca", "stream.resource.alloc", "stream.resource.constants",
                                                        "stream.tensor.import"},
        why="allocations, imports and the region ops whose bodies are modelled (aliases such as subviews, awaits and "
            "casts come from the spec's `Alias` interface, `alias_results`)"),
)

def storage_rule(*names: str) -> Callable[[StorageRule], StorageRule]:
    """Register the rule of the named ops in `STORAGE_RULES`."""
    return STORAGE_RULES.register(*names)


@storage_rule("util.call", "func.call")
def _call(w: Walker, op: Op) -> None:
    """A call to a private function with a summary (verify.calls): its results are the storage
    of the arguments they return, or fresh values; any other call: `default_results`."""
    from verify.calls import call_storage, fence_callee

    touched = _callee_global(w.module, op)
    if touched is not None and fence_callee(w.module, op) is None:
        # A summary says what the callee does to its arguments, not to globals: the caller's
        # accesses to the same global would go unchecked against the callee's. No summary.
        w.storage.call_reasons[op] = f"the callee uses the resource global @{touched} (calls touching globals are not summarised)"
        default_results(w, op)
        return
    call_storage(w, op)


def _callee_global(module: Module | None, op: Op) -> str | None:
    """A resource global the function `op` calls loads or stores, if any."""
    callee = op.properties.get("callee")
    if module is None or not isinstance(callee, SymbolRefAttr):
        return None
    for top in module.ops:
        name = top.properties.get("sym_name")
        if top.name in ("util.func", "func.func") and isinstance(name, StringAttr) and name.value == callee.root:
            for inner in top.walk():
                if inner.name in (LOAD, STORE) and any(isinstance(v.type, ResourceType) for v in (*inner.operands, *inner.results)):
                    return global_name(inner)
    return None


@storage_rule(LOAD)
def _global_load(w: Walker, op: Op) -> None:
    """A load of a resource global names the storage the global holds (verify.globals): the
    value this function stored into it last, else the global's own storage (one allocation per
    global and function, sized by what the first load's users declare, like an argument)."""
    r = op.results[0] if op.results else None
    name = global_name(op)
    if r is None or name is None or not isinstance(r.type, ResourceType):
        return
    declared = w.first_size.get(r)
    stored = w.storage.global_values.get(name)
    if stored is not None and stored in w.storage.views:
        w.storage.alias(r, stored, size=w.symbols.expr(declared) if declared is not None else None)
        return
    alloc = w.storage.global_allocs.get(name)
    if alloc is not None:
        w.storage.alias(r, alloc.value, size=w.symbols.expr(declared) if declared is not None else None)
        return
    decl = w.storage.globals.get(name)
    size = w.symbols.expr(declared) if declared is not None else w.symbols.fresh("global_size", None, op.location, f"size of @{name}")
    alloc = w.storage.allocate(r, AllocKind.GLOBAL, op, size, None, op.location)
    alloc.symbol, alloc.mutable = name, decl.mutable if decl is not None else True
    w.storage.global_allocs[name] = alloc


@storage_rule(STORE)
def _global_store(w: Walker, op: Op) -> None:
    """After a store, the global holds the stored value's storage (a later load in the function)."""
    name = global_name(op)
    if name is not None and op.operands and isinstance(op.operands[0].type, ResourceType):
        w.storage.global_values[name] = op.operands[0]


def result_sizes(op: Op, spec: OpSpec | None) -> list[Value | None]:
    """The size operand of each resource result of `op` (None where the op states none), from the
    spec's `Sized` interface."""
    if spec is None or spec.sized is None or spec.sized.results is None:
        return [None] * sum(1 for r in op.results if isinstance(r.type, ResourceType))
    return [size for _i, size in sized_results(spec, op)]


def default_results(w: Walker, op: Op, skip: set[int] | frozenset[int] = frozenset()) -> None:
    """Tied resource results alias their operand (a new version); the others are fresh values
    on the op's device (UNKNOWN allocations for ops without an effect rule)."""
    spec = spec_for(op)
    sizes = result_sizes(op, spec)
    k = 0
    for i, r in enumerate(op.results):
        if not isinstance(r.type, ResourceType):
            continue
        if i in skip:
            k += 1
            continue
        declared = (sizes[k] if k < len(sizes) else None) or w.first_size.get(r)
        size = w.size(declared)
        k += 1
        tied = spec.tied_operand(op, i) if spec is not None else None
        if tied is not None and tied < len(op.operands) and op.operands[tied] in w.storage.views:
            w.storage.alias(r, op.operands[tied], size=size, new_version=True)
        else:
            kind = AllocKind.VALUE if _creates_values(op) else AllocKind.UNKNOWN
            placement = w.device(op) if kind is AllocKind.VALUE else None
            w.storage.allocate(r, kind, op, size, placement, op.location)


def _creates_values(op: Op) -> bool:
    """Does `op` have an effect rule, so that its untied results are known to be fresh values?
    Any other op (`util.call`, `arith.select` on resources, ...) may return storage that
    aliases its operands or anything else: UNKNOWN."""
    from verify.rules import EFFECTS  # the rules import this module

    return op.name in EFFECTS


@storage_rule("stream.resource.alloca")
def _alloca(w: Walker, op: Op) -> None:
    spec = spec_for(op)
    assert spec is not None
    size = w.size(spec.operand_group(op, "storage_size")[0])
    indeterminate = "indeterminate_lifetime" in op.properties
    w.storage.allocate(op.results[0], AllocKind.ALLOCA, op, size, w.device(op), op.location, indeterminate)


@storage_rule("stream.resource.alloc")
def _alloc(w: Walker, op: Op) -> None:
    spec = spec_for(op)
    assert spec is not None
    w.storage.allocate(op.results[0], AllocKind.ALLOC, op, w.size(spec.operand_group(op, "storage_size")[0]), w.device(op), op.location)


@storage_rule("stream.tensor.import")
def _import(w: Walker, op: Op) -> None:
    spec = spec_for(op)
    assert spec is not None
    kind = AllocKind.IMPORT_CONSUMED if "consume" in op.properties else AllocKind.IMPORT
    w.storage.allocate(op.results[0], kind, op, w.size(spec.operand_group(op, "result_size")[0]), w.device(op), op.location)


@storage_rule("stream.resource.try_map")
def _try_map(w: Walker, op: Op) -> None:
    """The mapped resource is the host buffer's memory: storage of its own, distinct from every
    allocation, import and global (assumption, docs/VERIFIER.md: distinct `!util.buffer`s do not
    overlap), and the same storage for another map of the same buffer value."""
    spec = spec_for(op)
    assert spec is not None
    source = spec.operand_group(op, "source")[0]
    result = spec.result_group(op, "result")[0]
    earlier = w.storage.mapped.get(source)
    if earlier is not None:
        w.storage.alias(result, earlier)
        return
    w.storage.allocate(result, AllocKind.MAPPED, op, w.size(spec.operand_group(op, "result_size")[0]), w.device(op), op.location)
    w.storage.mapped[source] = result


@storage_rule("stream.resource.constants")
def _constants(w: Walker, op: Op) -> None:
    spec = spec_for(op)
    assert spec is not None
    for r, s in zip(spec.result_group(op, "results"), spec.operand_group(op, "result_sizes")):
        w.storage.allocate(r, AllocKind.CONSTANTS, op, w.size(s), w.device(op), op.location)


def alias_results(w: Walker, op: Op, spec: OpSpec) -> None:
    """Results the spec declares as an operand's storage unchanged (`Alias`: await, barriers,
    cast) are the same version of it; a window (subview) adds its offset and has its own size.
    Other resource results follow `default_results`."""
    aliased: set[int] = set()
    groups = operand_groups(op, spec)
    for operand, result, alias in alias_pairs(spec, op):
        aliased.add(result)
        if alias.offset is None:
            w.storage.alias(op.results[result], op.operands[operand])
        else:
            offset = w.symbols.expr(groups[alias.offset][0])
            size = w.symbols.expr(groups[alias.length][0]) if alias.length is not None else None
            w.storage.alias(op.results[result], op.operands[operand], offset, size)
    if any(isinstance(r.type, ResourceType) for i, r in enumerate(op.results) if i not in aliased):
        default_results(w, op, skip=aliased)


@storage_rule("stream.async.transfer")
def _transfer(w: Walker, op: Op) -> None:
    spec = spec_for(op)
    assert spec is not None
    target = devices_of(op.properties.get("target_affinity"))
    placement = target if target is not None else w.device(op)
    size = w.size(spec.operand_group(op, "result_size")[0])
    w.storage.allocate(op.results[0], AllocKind.VALUE, op, size, placement, op.location)


@storage_rule("stream.cmd.execute")
def _cmd_execute(w: Walker, op: Op) -> None:
    spec = spec_for(op)
    assert spec is not None
    block = op.regions[0].blocks[0]
    sizes = spec.operand_group(op, "resource_operand_sizes")
    for outer, inner, size in zip(spec.operand_group(op, "resource_operands"), block.arguments, sizes):
        w.storage.alias(inner, outer, size=w.symbols.expr(size))
    w.device_stack.append(w.device(op))
    w.block(block)
    w.device_stack.pop()


@storage_rule("stream.cmd.serial", "stream.cmd.concurrent")
def _cmd_container(w: Walker, op: Op) -> None:
    for block in op.regions[0].blocks:
        w.block(block)


@storage_rule("stream.async.execute", "stream.async.concurrent")
def _async_region(w: Walker, op: Op) -> None:
    """Captures alias their operands; each result is the storage of the value the region yields
    for it (a tied result stays on its operand's storage, as a new version)."""
    spec = spec_for(op)
    assert spec is not None
    block = op.regions[0].blocks[0]
    operands = spec.operand_group(op, "resource_operands")
    sizes = iter(spec.operand_group(op, "resource_operand_sizes"))
    for outer, inner in zip(operands, block.arguments):
        if isinstance(outer.type, ResourceType):
            w.storage.alias(inner, outer, size=w.symbols.expr(next(sizes)))
    w.device_stack.append(w.device(op))
    w.block(block)
    w.device_stack.pop()
    terminator = block.ops[-1] if block.ops else None
    yielded = terminator.operands[: len(terminator.operands) // 2] if terminator is not None and terminator.name == "stream.yield" else ()
    results = spec.result_group(op, "results")
    result_sizes_ = spec.operand_group(op, "result_sizes")
    for i, r in enumerate(results):
        size = w.symbols.expr(result_sizes_[i]) if i < len(result_sizes_) else w.size(None)
        inner_view = w.storage.view(yielded[i]) if i < len(yielded) else None
        tied = spec.tied_operand(op, i)
        if tied is not None and tied < len(op.operands):
            outer_view = w.storage.view(op.operands[tied])
            if outer_view is not None:
                same = inner_view is not None and inner_view.alloc is outer_view.alloc
                version = inner_view.version if same and inner_view is not None else w.storage.new_version()
                w.storage.views[r] = View(outer_view.alloc, outer_view.offset, size, version)
                continue
        if inner_view is not None:
            w.storage.views[r] = View(inner_view.alloc, inner_view.offset, size, inner_view.version)
        else:
            w.storage.allocate(r, AllocKind.VALUE, op, size, w.device(op), op.location)


def default_device(func: Function, module: Module | None) -> frozenset[str] | None:
    """The function's `stream.affinity`, else the module's `stream.affinity.default`."""
    own = devices_of(func.op.attr("stream.affinity"))
    if own is not None:
        return own
    if module is not None:
        return devices_of(module.attributes.get("stream.affinity.default"))
    return None


def operand_groups(op: Op, spec: OpSpec | None = None) -> dict[str, tuple[Value, ...]]:
    """Every operand group of `op` by name (segment sizes computed once)."""
    spec = spec or spec_for(op)
    return spec.operand_groups(op) if spec is not None else {}


def declared_sizes(op: Op) -> list[tuple[Value, Value]]:
    """(resource operand, the size operand the op declares for it) pairs of one op (`Sized`)."""
    spec = spec_for(op)
    if spec is None or spec.sized is None or not op.operands:
        return []
    return [(v, size) for _i, v, size in sized_operands(spec, op)]


def analyze_storage(func: Function, module: Module | None = None) -> StorageMap:
    """The storage map and symbolic index values of one single-block function.

    A resource argument has the size its uses declare (`%arg{%n}`): the first declaration is
    taken as its size, so every access is checked against what the program says it passed.
    """
    if len(func.blocks) != 1:
        raise DiagnosticError.at(
            func.op.location, f"@{func.name} has {len(func.blocks)} blocks; the verifier handles straight-line functions only (control flow is not supported yet)"
        )
    storage = StorageMap(Symbols(), globals=ModuleGlobals(module))
    symbols = storage.symbols
    for arg in func.arguments:
        if isinstance(arg.type, (IndexType, IntegerType)):
            symbols.argument(arg, func.op.location)
    first_size: dict[Value, Value] = {}
    for position, top in enumerate(func.body.ops):
        symbols.position = position  # runtime checks hold for what is issued after them
        for op in top.walk():
            if op.name.startswith(("scf.", "cf.")) and op.name not in STRAIGHT_LINE_CF:
                raise DiagnosticError.at(
                    op.location, f"'{op.name}' in @{func.name}: control flow is not supported by the verifier yet (straight-line functions only)"
                )
            if op.regions and op.name not in MODELLED_REGION_OPS:
                # The effect rules would not walk into it: whatever it holds would go unchecked.
                raise DiagnosticError.at(
                    op.location, f"'{op.name}' in @{func.name} has regions the verifier does not model (only execute, serial and concurrent regions)"
                )
            symbols.evaluate_op(op)
            for value, size in declared_sizes(op):
                first_size.setdefault(value, size)
    for i, arg in enumerate(func.arguments):
        if isinstance(arg.type, ResourceType):
            declared = first_size.get(arg)
            arg_size = symbols.expr(declared) if declared is not None else symbols.fresh("argument_size", None, func.op.location, f"size of argument #{i}")
            storage.allocate(arg, AllocKind.ARGUMENT, None, arg_size, None, func.op.location)
    Walker(storage, default_device(func, module), first_size, module).block(func.body)
    return storage
