"""The symbolic interpreter: runs one function of one program to value terms.

`Machine` walks a function body in block order, which is one happens-before-consistent order
(every HB edge follows SSA def-use, and host program order is block order), and applies the rule
registered for each op name (`RULES`, filled by the `rules_*` modules, one rule per op). Once a
program is race-free its results are deterministic, so this one order gives its meaning; races,
missed waits and use-after-free are the safety checker's business, not this module's.

What the machine holds per SSA value (`env`):

* a resource is a `Res`: its size, and either its bytes (`data`, value semantics: the async and
  higher levels, where every resource value is an immutable byte string) or its storage
  (`alloc`, `offset`: the cmd level, where contents live in `Memory`). A value-level resource
  whose storage matters (an import, a resource argument, and everything tied to them) has both:
  a tied result *is* its operand's storage, so an in-place write also updates that storage, which
  is how the caller-visible contents of imports are tracked at the async level;
* an index or integer is an `IntExpr`, another scalar a `ScalarTerm`;
* a `!hal.buffer_view` is a `BufView` (a function argument, or an exported resource);
* timepoints and other values with no contents are None.

Ops the semantics does not model are opaque: their results are fresh terms keyed by the op, its
operands and a world counter that every such op advances (so reordering two of them changes the
terms), and any resource they take is havocked (SPEC: an unknown op reads and writes all of it).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import z3

from stream.dialect.common import SYNTAX_ONLY
from stream.ir.attributes import ArrayAttr, Attribute, FloatAttr, IntegerAttr
from stream.ir.core import Block, Module, Op, Value
from stream.ir.diagnostics import DiagnosticError
from stream.ir.rule_table import OpSet, Requirement, RuleTable
from stream.ir.spec import spec_of
from stream.ir.types import ComplexType, FloatType, IndexType, IntegerType, ResourceType, TensorType, TimepointType, Type
from stream.ir.walk import Function
from verify.refinement.ints import IntExpr, Ints, Poly
from verify.refinement.layout import tensor_bytes
from verify.refinement.memory import Allocation, Memory
from verify.refinement.solver import Facts, Undecided
from verify.refinement.terms import Atom, ByteStr, Scalar, ScalarTerm, Terms

__all__ = ["Res", "BufView", "Machine", "Context", "RULES", "rule", "Rule", "groups", "tied_in_group", "LoopGlobal", "LoopWrite"]


@dataclass(eq=False, slots=True)
class Res:
    """A resource value: `size` bytes, held as `data` (value semantics) and/or in storage.

    Provenance (for reports only): `producer` wrote bytes `written` of the value (all of them when
    None and there is no `source`); the other bytes are `source`'s from offset `shift` on."""

    size: IntExpr
    data: ByteStr | None
    alloc: Allocation | None = None
    offset: IntExpr = 0
    version: int = 0
    producer: Op | None = None
    source: Res | None = None
    shift: IntExpr = 0
    written: tuple[IntExpr, IntExpr] | None = None
    arg: int | None = None  # the function argument this input-level tensor is


@dataclass(eq=False, slots=True)
class BufView:
    """A `!hal.buffer_view`: function argument `arg`, or the resource `res` an export handed out
    (`data` is the value-level snapshot at the export; at the cmd level the contents are read from
    storage when the function ends)."""

    arg: int | None = None
    res: Res | None = None
    data: ByteStr | None = None
    export: Op | None = None


Entry = Any  # Res | BufView | IntExpr | ScalarTerm | None
Rule = Callable[["Machine", Op], None]
# Ops that never run in a function body the machine interprets: executable contents, function
# declarations, and the terminators `run_block` handles itself.
_NOT_RUN = OpSet(
    "_NOT_RUN",
    "Ops that never run in a function body the machine interprets: executable contents, and the terminators `run_block` handles itself.",
    {
    "stream.binding.subspan", "stream.dispatch.workgroup.count", "stream.dispatch.workgroup.id",
    "stream.dispatch.workgroup.size", "stream.executable", "stream.executable.end", "stream.executable.export",
    "stream.return", "stream.yield", "stream.async.func", "stream.cmd.func",
},
)
RULES: RuleTable[Rule] = RuleTable(
    "RULES",
    """The value semantics of the op for the refinement check: bind its results to value terms
    (`m.set`) and apply its writes to the symbolic memory (`m.write`), from its operands' terms
    (`fn(machine, op)`, registered with `@rule(name)` in a `verify/refinement/rules_*` module).
    Without a rule an op is opaque (fresh result terms, a havoc of every resource it takes: the
    default, `rules_host._opaque`); an op with regions and no rule is refused (exit 2).""",
    policy="conservative",
    requires=Requirement(prefixes=("stream.", "flow.", "arith."), unless=frozenset(_NOT_RUN) | SYNTAX_ONLY,
                         why="executable contents and terminators are not run as ops; SYNTAX_ONLY ops "
                         "(stream.dialect.common) get the conservative default, as unknown ops"),
)

def rule(*names: str) -> Callable[[Rule], Rule]:
    """Register the semantics of one op (or several ops that share it)."""
    return RULES.register(*names)


@dataclass(slots=True)
class Context:
    """State shared by the two programs of one check: the interners and the assumptions."""

    ints: Ints
    facts: Facts
    terms: Terms
    # Per program: atom id -> the op that first produced it (for locating a divergence).
    creators: dict[str, dict[int, Op]] = field(default_factory=lambda: {"before": {}, "after": {}})
    # Argument index -> the byte size BEFORE's first use of it gave (its sized type or the
    # encoded size of its tensor type). The caller passes both programs the same argument, so an
    # AFTER that never spells the size (a returned argument whose copy was elided) has this one.
    arg_sizes: dict[int, IntExpr] = field(default_factory=dict)
    # Per program: the kernels (entry points) it dispatches. A kernel only one program runs is
    # a function the other does not have (IREE's materialize-builtins replaces a splat or fill
    # with a builtin executable): whether its output equals other bytes is unknown.
    kernels: dict[str, set[tuple[str, ...]]] = field(default_factory=lambda: {"before": set(), "after": set()})
    # Per program: the loops run, in order (verify.refinement.control_flow.LoopRecord; None while
    # one runs), and the size each carried resource got (BEFORE's, so both programs' loop states
    # are the same terms).
    loops: dict[str, list[Any]] = field(default_factory=lambda: {"before": [], "after": []})
    loop_sizes: dict[tuple[int, Any], IntExpr] = field(default_factory=dict)
    # Mutable resource globals: the byte size BEFORE gave a global's value at the call (its
    # tensor type, or a symbol its uses fix), so AFTER's entry value is the same term
    # (verify.refinement.rules_globals).
    global_sizes: dict[str, IntExpr] = field(default_factory=dict)

    @staticmethod
    def create(rlimit: int, z3_context: z3.Context | None = None) -> Context:
        """A fresh case. The cases of one function share `z3_context` (their split conditions
        are formulas over the same symbols); a check that passes none gets one of its own."""
        ints = Ints(ctx=z3_context) if z3_context is not None else Ints()
        facts = Facts(ints, rlimit)
        return Context(ints, facts, Terms(ints, facts))


class LoopGlobal(Exception):
    """A loop body (`level` deep) stores the mutable global `name`, which is not yet part of the
    loop's state: the loop is run again with it (verify.refinement.control_flow)."""

    def __init__(self, level: int, name: str) -> None:
        super().__init__(f"loop {level} stores @{name}")
        self.level = level
        self.name = name


class LoopWrite(Exception):
    """A loop body (`level` deep) writes `alloc`, storage from before the loop that is not yet
    part of the loop's state: the loop is run again with it (verify.refinement.control_flow)."""

    def __init__(self, level: int, alloc: Allocation) -> None:
        super().__init__(f"loop {level} writes {alloc.what}")
        self.level = level
        self.alloc = alloc


class Machine:
    """Interprets one function of one program (`program` is "before" or "after")."""

    def __init__(self, ctx: Context, program: str, func: Function, level: str | None) -> None:
        self.ctx = ctx
        self.ints = ctx.ints
        self.facts = ctx.facts
        self.terms = ctx.terms
        self.program = program
        self.func = func
        self.level = level
        self.memory_mode = level == "cmd"
        self.memory = Memory(ctx.terms, ctx.facts)
        self.env: dict[Value, Entry] = {}
        self.allocs: list[Allocation] = []
        self.arg_allocs: dict[int, Allocation] = {}
        self.arg_index = {v: i for i, v in enumerate(func.arguments)}
        self.results: list[Entry] | None = None
        self.return_op: Op | None = None
        self.world = 0
        # Which run of the straight-line code `world` counts in: () before any loop, then one
        # epoch per loop iteration run symbolically and per exit state (control_flow._loop).
        self.world_epoch: tuple[Any, ...] = ()
        self.exports: list[BufView] = []
        # Input-level tensor arguments some op writes in place (a tied result): see check.py.
        self.tied_args: set[int] = set()
        # The module the function is in (its executables say what a dispatch's bindings address:
        # verify.refinement.bindings) and what was read of them.
        self.module: Module | None = None
        self.bindings: Any = None
        # Globals (verify.refinement.rules_globals): what the initializers (and, for mutable
        # ones, this call) stored; why the initializers could not be run, if they could not.
        self.global_values: dict[str, Entry] = {}
        self.initializer_failure: str | None = None
        self.in_initializer = False
        # Mutable globals in the call (rules_globals): the value each holds when the call starts
        # (the same terms in both programs), what it holds now once the call stored it (with the
        # bytes at the store, at the value levels), the globals the call loads or stores, and
        # what the initializers left in each (the base case of the induction over calls).
        self.global_entry: dict[str, Entry] = {}
        self.global_now: dict[str, Entry] = {}
        self.global_snap: dict[str, Any] = {}
        self.global_touched: set[str] = set()
        self.global_initial: dict[str, Any] = {}
        # Per loop body being run (innermost last): the mutable globals that are part of its
        # state (it stores them), as `loop_fresh` is for storage.
        self.loop_globals: list[set[str]] = []
        # One set per loop body being run (innermost last): the allocations made in it and, at
        # the cmd level, the storage from before the loop that it writes (its memory state), the
        # only storage a body may write; and the number of allocations when the loop began
        # (verify.refinement.control_flow).
        self.loop_fresh: list[set[int]] = []
        self.loop_start: list[int] = []
        # After a loop whose results have storage: the allocations in `loop_aliased` (what
        # entered the loop or was read by it) may be that storage (the loop may have run zero
        # times, or passed a value through), so an in-place write to one of them is not followed
        # (`loop_floor_why` says which loop).
        self.loop_aliased: set[int] = set()
        self.loop_floor_why = ""
        # Resources a loop carries whose size is a symbol of the loop state: a use that spells
        # the size (`%r{%n}`) fixes it, as a use fixes a function argument's size (`res`).
        self.loop_sized: set[int] = set()

    # -- running ---------------------------------------------------------------------------------
    def exec(self, op: Op) -> None:
        fn = RULES.get(op.name)
        if fn is None:
            if op.regions:
                raise DiagnosticError.at(
                    op.location,
                    f"refinement: '{op.name}' has regions the refinement check does not model",
                )
            fn = RULES.resolve(op.name)  # the opaque default
        fn(self, op)

    def run_block(self, block: Block, args: list[Entry]) -> list[Entry]:
        """Run a region body with its arguments bound; the entries its `stream.yield` yields."""
        for a, e in zip(block.arguments, args):
            self.env[a] = e
        for op in block.ops:
            if op.name == "stream.yield":
                return [self.env.get(v) for v in op.operands if isinstance(v.type, ResourceType)]
            self.exec(op)
        return []

    # -- reading values --------------------------------------------------------------------------
    def entry(self, v: Value) -> Entry:
        if v in self.env:
            return self.env[v]
        index = self.arg_index.get(v)
        if index is None:
            raise Undecided(f"value {v} has no definition the refinement check knows")
        return self._argument(v, index, None)

    def integer(self, v: Value) -> IntExpr:
        e = self.entry(v)
        if type(e) is int or isinstance(e, Poly):
            return e  # type: ignore[no-any-return]
        raise Undecided(f"{v} is not an integer the refinement check can follow")

    def ints_of(self, values: tuple[Value, ...] | list[Value]) -> list[IntExpr]:
        return [self.integer(v) for v in values]

    def scalar(self, v: Value) -> Scalar:
        e = self.entry(v)
        if isinstance(e, (Res, BufView)) or e is None:
            raise Undecided(f"{v} is not a scalar")
        return e  # type: ignore[no-any-return]

    def res(self, v: Value, size: IntExpr | None = None) -> Res:
        """The resource `v`; a function argument is created on first use with the `size` its
        user spells (the size of a tensor or resource argument is known only from its uses)."""
        e = self.env.get(v)
        if e is None:
            index = self.arg_index.get(v)
            if index is not None:
                e = self._argument(v, index, size)
        if not isinstance(e, Res):
            raise Undecided(f"{v} is not a resource the refinement check can follow")
        if size is not None and id(e) in self.loop_sized and self.ints.sub(e.size, size) != 0:
            self.facts.assume_eq(e.size, size)
        return e

    def _argument(self, v: Value, index: int, size: IntExpr | None) -> Entry:
        t = v.type
        name = f"%{v.name_hint}" if v.name_hint else f"%arg{index}"
        e: Entry
        if isinstance(t, (IndexType, IntegerType)):
            e = self.ints.sym(("arg", index), name)
        elif isinstance(t, (FloatType, ComplexType)):
            e = self.terms.scalar("arg", (index,), name)
        elif isinstance(t, (TensorType, ResourceType)):
            if size is None and isinstance(t, TensorType) and t.is_static and t.encoding is None:
                size = tensor_bytes(self.ints, t, [], name)
            if size is None and self.program == "after":
                size = self.ctx.arg_sizes.get(index)
            if size is None:
                size = self.ints.sym(("argsize", index), f"size({name})")
            if self.program == "before":
                self.ctx.arg_sizes.setdefault(index, size)
            data = self.terms.of(self.terms.arg(index), size)
            if isinstance(t, TensorType):
                e = Res(size, data, arg=index)  # input level: arguments are values (ABI observables, not storage)
            else:
                alloc = self.new_alloc("argument", f"argument {name}", None, size, data, arg_index=index, fresh=False)
                self.arg_allocs[index] = alloc
                e = Res(size, None if self.memory_mode else data, alloc)
        elif isinstance(t, TimepointType):
            e = None
        else:
            e = BufView(arg=index)
        self.env[v] = e
        return e

    def bytes_of(self, r: Res) -> ByteStr:
        """The contents of `r` now.

        A value-level read of a value whose storage was written in place since it was made:
        * if a write went through this very window (a tie of `r` or of an alias of it, such as
          an await result), the program read a value it had consumed: by value semantics it
          still sees the old bytes, and the storage becomes unconstrained in the source (the
          program relied on a copy it never made; COW makes it explicit);
        * if the writes went through other windows only (a `resource.subview` of it, as in
          IREE's tied region operands), storage is shared by design: it sees the storage now."""
        if r.data is not None:
            a = r.alloc
            if a is not None and r.version != a.version:
                later = [t for t in a.ties if t[0] > r.version]
                if any(same(off, r.offset) and same(size, r.size) for _, off, size in later):
                    if a.unconstrained is None:
                        a.unconstrained = "it is read after an in-place write replaced it"
                    return r.data
                return self.memory.read(a, r.offset, r.size)
            return r.data
        assert r.alloc is not None
        return self.memory.read(r.alloc, r.offset, r.size)

    def storage(self, r: Res, op: Op) -> tuple[Allocation, IntExpr]:
        """The storage of `r`: a value that has none yet gets an allocation holding its bytes."""
        if r.alloc is None:
            assert r.data is not None
            r.alloc = self.new_alloc("value", f"storage of a value used by '{op.name}'", op, r.size, r.data, fresh=False)
            r.offset = 0
            r.data = None
        return r.alloc, r.offset

    # -- producing values --------------------------------------------------------------------------
    def set(self, v: Value, e: Entry) -> None:
        self.env[v] = e

    def note(self, atom: Atom, op: Op) -> Atom:
        self.ctx.creators[self.program].setdefault(atom.id, op)
        return atom

    def fresh(self, data: ByteStr, op: Op) -> Res:
        """A new value whose every byte `op` computed."""
        return Res(data.length, data, producer=op)

    def derived(self, source: Res, data: ByteStr, op: Op, shift: IntExpr = 0) -> Res:
        """A new value that is bytes of `source` from `shift` on (a clone, transfer or slice)."""
        return Res(data.length, data, producer=op, source=source, shift=shift)

    def writer_of(self, r: Res, position: IntExpr) -> Op | None:
        """The op that put byte `position` of value `r` there (value levels; for reports)."""
        for _ in range(10_000):
            inside = r.written is not None and self.facts.le(r.written[0], position) is True and (
                self.facts.le(self.ints.add(position, 1), r.written[1]) is True
            )
            if r.source is None or inside:
                return r.producer
            position = self.ints.add(position, r.shift)
            r = r.source
        return r.producer

    def tied(self, operand: Res, data: ByteStr, op: Op, written: tuple[IntExpr, IntExpr] | None = None) -> Res:
        """The result of an op that writes `data` (the operand's full new contents) in place;
        `written` is the range it changed (for reports; None: all of it)."""
        a = operand.alloc
        if a is None:
            if operand.arg is not None:
                self.tied_args.add(operand.arg)
            return Res(operand.size, data, producer=op, source=operand if written else None, written=written)
        self._loop_guard(a, op)
        if operand.data is not None:
            self.bytes_of(operand)  # the staleness check of a value-level read
        if a.borrowed and a.unconstrained is None:
            a.unconstrained = "it is a borrowed import written in place"
        self.memory.write(a, operand.offset, data, op)
        a.version += 1
        a.ties.append((a.version, operand.offset, operand.size))
        if operand.data is None:
            return Res(operand.size, None, a, operand.offset, a.version, op)
        return Res(operand.size, data, a, operand.offset, a.version, op, operand if written else None, 0, written)

    def write(self, alloc: Allocation, offset: IntExpr, data: ByteStr, op: Op) -> None:
        """A cmd-level store into storage."""
        self._loop_guard(alloc, op)
        if alloc.borrowed and alloc.unconstrained is None:
            alloc.unconstrained = "it is a borrowed import written in place"
        self.memory.write(alloc, offset, data, op)
        alloc.version += 1

    def _loop_guard(self, alloc: Allocation, op: Op) -> None:
        for level, writable in enumerate(self.loop_fresh):
            if alloc.id in writable:
                continue
            if self.memory_mode and (alloc.id < self.loop_start[level] or alloc.kind in ("argument", "import", "global")):
                raise LoopWrite(level, alloc)  # storage from before the loop: part of its state from now on
            raise Undecided(f"'{op.name}' at {op.location} writes {alloc.what}, storage made before the loop iteration "
                            "it runs in that is not storage from before the loop either (a carried resource's, or a "
                            "value's): the check does not follow it")
        if alloc.id in self.loop_aliased:
            raise Undecided(f"'{op.name}' at {op.location} writes {alloc.what} after {self.loop_floor_why}, whose results may "
                            "live in that storage: an in-place write that may change a loop result is not followed")

    def new_alloc(
        self, kind: str, what: str, op: Op | None, size: IntExpr, base: ByteStr, arg_index: int | None = None,
        fresh: bool = True,
    ) -> Allocation:
        """New storage; `fresh` when it is new memory (not storage a value already had in the
        program), which a loop body that made it may write."""
        alloc = Allocation(len(self.allocs), kind, what, op, size, base, arg_index)
        self.allocs.append(alloc)
        if fresh:
            for made in self.loop_fresh:
                made.add(alloc.id)
        return alloc

    def uninit(self, op: Op, size: IntExpr, what: str | None = None) -> ByteStr:
        atom = self.terms.uninit(self.program, (id(op),), what or f"{op.name} at {op.location}")
        self.note(atom, op)
        return self.terms.of(atom, size)

    def dispatch_out(
        self,
        op: Op,
        binding: int,
        inputs: list[ByteStr],
        uniforms: list[Scalar],
        workload: list[IntExpr],
        length: IntExpr,
        implicit_dims: int = 0,
    ) -> ByteStr:
        """The bytes a dispatch writes to binding `binding`: `dispatch_out(entry, binding, inputs,
        uniforms, workload)`, the same uninterpreted function at every level. Bindings are
        numbered as ScheduleAllocation lays them out (resource operands in order, then each untied
        result); `inputs` are the bytes of the bindings the kernel reads (the resource operands,
        a tied operand with its old contents), `uniforms` the scalar operands in order, of which
        the last `implicit_dims` are encoding dims the op passes implicitly."""
        entry = entry_points(op)
        atom = self.terms.dispatch(entry, binding, inputs, uniforms, workload, length, implicit_dims)
        self.ctx.kernels[self.program].add(entry)
        self.note(atom, op)
        return self.terms.of(atom, length)

    def in_bounds(self, offset: IntExpr, length: IntExpr, size: IntExpr) -> None:
        """Record that an access is in bounds (OUT_OF_BOUNDS is the safety checker's property;
        refinement is claimed for executions without out-of-bounds accesses)."""
        self.facts.assume_in_bounds(offset, length, size)

    # -- opaque ops --------------------------------------------------------------------------------
    def operand_key(self, v: Value) -> Any:
        e = self.env.get(v)
        if isinstance(e, Res):
            return ("res", self.bytes_of(e))
        if isinstance(e, BufView):
            return ("view", e.arg, e.data if e.data is not None else (self.bytes_of(e.res) if e.res else None))
        return e

    def opaque_key(self, op: Op) -> tuple[Any, ...]:
        self.world += 1
        attrs = tuple(sorted((k, str(a)) for k, a in (*op.properties.items(), *op.attributes.items())))
        return (op.name, attrs, tuple(self.operand_key(v) for v in op.operands), self.world_epoch, self.world)

    def opaque_result(self, op: Op, key: tuple[Any, ...], index: int, t: Type) -> Entry:
        what = f"result {index} of '{op.name}'"
        if isinstance(t, (IndexType, IntegerType)):
            return self.ints.sym(("opaque", key, index), f"{op.name}#{index}")
        if isinstance(t, ResourceType):
            size = self.ints.sym(("opaque-size", key, index), f"size({op.name}#{index})")
            atom = self.note(self.terms.opaque((key, index), what), op)
            return self.fresh(self.terms.of(atom, size), op)
        if isinstance(t, TimepointType):
            return None
        return self.terms.scalar("opaque", (key, index), f"{op.name}#{index}")


# -- attribute helpers shared by the rules ------------------------------------------------------------
def entry_points(op: Op) -> tuple[str, ...]:
    """The dispatch's entry points as text (`@ex::@fn`), the kernel's name in its terms."""
    return _entry_text(op.properties.get("entry_points"))


@functools.lru_cache(maxsize=4096)
def _entry_text(attr: Attribute | None) -> tuple[str, ...]:
    if isinstance(attr, ArrayAttr):
        return tuple(str(a) for a in attr.elements)
    return (str(attr),)


def int_attr(attr: Attribute | None) -> int | None:
    return attr.value if isinstance(attr, IntegerAttr) else None


def float_scalar(terms: Terms, attr: FloatAttr) -> ScalarTerm:
    from stream.ir.attributes import float_bits

    t = attr.type
    width = (t.width + 7) // 8
    return terms.scalar("bits", (width, float_bits(attr.value, t)), f"{attr.value} : {t}")


def same(a: IntExpr, b: IntExpr) -> bool:
    """Syntactic equality of two IntExprs (normal forms)."""
    return a is b or (type(a) is int and type(b) is int and a == b)


def tied_in_group(op: Op, result_index: int) -> int | None:
    """For ops whose ties IREE stores in `tied_operands` (dispatches, regions): the index, within
    the op's tiable operand group, of the operand result `result_index` is tied to."""
    tied = op.properties.get("tied_operands")
    if not isinstance(tied, ArrayAttr) or result_index >= len(tied):
        return None
    entry = tied.elements[result_index]
    return entry.value if isinstance(entry, IntegerAttr) and entry.value >= 0 else None


def groups(op: Op) -> Any:
    """The op's operand groups by name, computed once (`view(op)` recomputes the segment sizes
    on every access, which the interpreter's hot rules cannot afford). A single operand is a
    Value, an optional one a Value or None, a variadic one a tuple."""
    spec = spec_of(op)
    if spec is None:
        raise Undecided(f"no spec for '{op.name}'")
    out: dict[str, Any] = {}
    b = spec.operand_bounds(op)
    for i, o in enumerate(spec.operands):
        values = op.operands[b[i] : b[i + 1]]
        if o.arity == "single":
            out[o.name] = values[0]
        elif o.arity == "optional":
            out[o.name] = values[0] if values else None
        else:
            out[o.name] = values
    return SimpleNamespace(**out)
