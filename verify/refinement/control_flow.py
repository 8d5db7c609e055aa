"""Control flow in the symbolic interpreter: branches by case split, loops by induction.

`run_blocks` runs a function (or initializer) body of several blocks. `scf.for` and `scf.while`
are first rewritten into the blocks and branches they stand for (`verify.cfg.lower_loops`), so
structured and unstructured loops are one case and a pass that turns one into the other (IREE's
scf-to-cf lowering between ElideTimepoints' input and output) changes nothing here.

**Branches** (`cf.cond_br`, `scf.if`): the condition is an integer term. When the facts decide
it, the one successor runs; when it depends on the inputs, the check splits the case
(`Undecided.split`, as for any size question) and runs both programs once per answer. Both
programs see the same assumption, so a branch both take on the same term goes the same way in
both; a branch only one of them has (a `try_map` fallback) is followed both ways.

**Loops** are not unrolled: the trip count is usually data-dependent (a loaded bound). The k-th
loop BEFORE runs is paired with the k-th loop AFTER runs, and their states (the header's
block arguments, timepoints aside, paired by position) are related by equality. The
interpreter runs each loop's header and body once, on a symbolic state X that is the *same*
fresh terms in both programs, and records (`LoopRecord`) the initial state, the condition to go
on, and the state the back edge passes. `check_loops` then requires, for every k:

1. the initial states are equal;
2. the go-on conditions at X are equal, for every X (checked on their own, not under the facts
   the bodies' runs assumed, which include each condition);
3. the states the bodies pass back are equal, for the same X, assuming the condition holds.

By induction on the iteration count, both programs then leave the loop after the same number of
iterations in the same state, so the state after it is one unknown Y, the same fresh terms in
both programs (with the condition false at Y), and the programs continue from there. A loop in
a loop's body is summarized the same way inside the one run of the outer body (its X and Y are
terms of its own, numbered after the outer loop's), so its checks 1-3 hold for every state the
outer loop may be in; its blocks are the natural loop of its header (`verify.cfg.natural_loop`,
by dominance), not every block on a cycle through it (that would be the outer loop too). A pair of
loops that fails 1-3 is undecided (the equality relation is the only one tried: a pass that
changed what a loop carries is not followed), never a proof.

What a state is: carried indices and scalars, and the bytes of carried resources. Memory is not
part of it, so a body may write only storage allocated in the same iteration (`Machine.write`
refuses a write to anything older, a carried resource included; reading older storage is fine,
since nothing in the loop changes it). Two carried resources that share storage are two
independent unknowns, which covers their being equal, since neither is written. Two parts are
added when the body needs them (the body runs again with each, `LoopWrite` / `LoopGlobal`): at
the cmd level, storage from before the loop that the body writes (its bytes), and a mutable
global the body stores (its value, `global_state.snapshot`; globals pair by name, so both
programs' loops must store the same globals).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import zip_longest
from typing import Any

import z3

from stream.dialect.scf_cf import case_values
from stream.ir.core import Block, Op, Value
from stream.ir.rule_table import OpSet
from stream.ir.types import ComplexType, FloatType, IndexType, IntegerType, ResourceType, TensorType, TimepointType
from stream.ir.walk import Function
from verify.cfg import cond_br_groups, lower_loops, natural_loop, switch_edges
from verify.control_flow import loop_headers
from verify.refinement.compare import Comparer
from verify.refinement.global_state import entry_value as global_entry
from verify.refinement.global_state import snapshot as global_snapshot
from verify.refinement.ints import IntExpr, Poly
from verify.refinement.layout import tensor_bytes
from verify.refinement.machine import BufView, Context, Entry, LoopGlobal, LoopWrite, Machine, Res, rule
from verify.refinement.memory import Allocation
from verify.refinement.solver import Fact, Undecided
from verify.refinement.terms import ByteStr

__all__ = ["RETURNS", "LoopRecord", "MAX_BLOCK_STEPS", "run_blocks", "run_function", "lowered_blocks", "check_loops", "decide"]

RETURNS = OpSet("RETURNS", "The terminators that leave a function or initializer body.",
                 {"func.return", "util.return", "util.initializer.return"})
MAX_BLOCK_STEPS = 100_000  # branches followed in one run (loops are summarized, so a DAG walk)


@dataclass(slots=True)
class LoopRecord:
    """What one run of a loop showed about it (see the module docstring)."""

    op: Op  # the header's terminator (for locations)
    init: list[tuple[Any, ...]]
    cont: IntExpr
    step: list[tuple[Any, ...]]
    facts: list[Fact]  # what the run of one iteration assumed (its scope and the enclosing ones)
    sizes: list[IntExpr | None]  # per state component, the size storage from before the loop keeps
    globals: list[str]  # the mutable globals the body stores (the last state components, by name)


@dataclass(frozen=True, slots=True)
class _Within:
    header: int
    body: frozenset[int]


# -- branches ---------------------------------------------------------------------------------------
def decide(m: Machine, v: Value, at: Op) -> bool:
    """Is the i1 `v` true? (Undecided with a split when it depends on the inputs.)"""
    e = m.entry(v)
    if not (type(e) is int or isinstance(e, Poly)):
        raise Undecided(f"the condition of '{at.name}' at {at.location} is not an integer the refinement check follows")
    return not m.facts.must_eq(e, 0, f"the condition of '{at.name}' at {at.location}")


def run_region(m: Machine, block: Block, args: list[Entry]) -> list[Entry]:
    """Run a single-block scf region; the entries its `scf.yield` yields."""
    for a, e in zip(block.arguments, args):
        m.set(a, e)
    for op in block.ops:
        if op.name == "scf.yield":
            return [m.entry(v) for v in op.operands]
        m.exec(op)
    return []


@rule("scf.if")
def _if(m: Machine, op: Op) -> None:
    region = op.regions[0 if decide(m, op.operands[0], op) else 1]
    yields = run_region(m, region.blocks[0], []) if region.blocks else []
    for r, e in zip(op.results, yields):
        m.set(r, e)


@rule("scf.execute_region")
def _execute_region(m: Machine, op: Op) -> None:
    blocks = op.regions[0].blocks
    if len(blocks) != 1:
        raise Undecided(f"the scf.execute_region at {op.location} has {len(blocks)} blocks")
    for r, e in zip(op.results, run_region(m, blocks[0], [])):
        m.set(r, e)


@rule("scf.for", "scf.while")
def _nested_loop(m: Machine, op: Op) -> None:
    # Top-level loops were rewritten into blocks before the run; this one is inside a region.
    raise Undecided(f"the '{op.name}' at {op.location} is nested in another op's region (only loops in a "
                    "function's own blocks are followed by the refinement check)")


# -- blocks ------------------------------------------------------------------------------------------
def lowered_blocks(op: Op) -> tuple[Block, ...]:
    """The blocks of a function or initializer body, its top-level scf loops rewritten as blocks."""
    return lower_loops(Function(op)).blocks


def run_function(m: Machine) -> None:
    """Run `m.func`: a single block straight through, else by `run_blocks`."""
    blocks = lowered_blocks(m.func.op)
    if len(blocks) == 1:
        for op in blocks[0].ops:
            m.exec(op)
            if m.results is not None:
                return
        return
    run_blocks(m, blocks)


def run_blocks(m: Machine, blocks: tuple[Block, ...]) -> None:
    headers = loop_headers(blocks)
    loops = {h: natural_loop(blocks, h) for h in headers}
    _walk(m, blocks, loops, 0, [], None)


def _successor(m: Machine, term: Op) -> tuple[int, list[Entry]]:
    if term.name == "cf.br":
        return term.successors[0], [m.entry(v) for v in term.operands]
    if term.name == "cf.cond_br":
        cond, on_true, on_false = cond_br_groups(term)
        taken = decide(m, cond, term)
        return term.successors[0 if taken else 1], [m.entry(v) for v in (on_true if taken else on_false)]
    if term.name == "cf.switch":
        edges = switch_edges(term)
        for i, case in enumerate(case_values(term, "case_values")):
            if _is_case(m, term.operands[0], case, term):
                dest, args = edges[1 + i]
                return dest, [m.entry(v) for v in args]
        dest, args = edges[0]
        return dest, [m.entry(v) for v in args]
    raise Undecided(f"the terminator '{term.name}' at {term.location} is not followed by the refinement check")


def _is_case(m: Machine, flag: Value, case: int, at: Op) -> bool:
    """Does the switch's `flag` equal `case`? (Decided, or split on.) A case value is an N-bit
    pattern: it is read as a signed N-bit integer, as the flag's other values are."""
    e = m.entry(flag)
    if not (type(e) is int or isinstance(e, Poly)):
        raise Undecided(f"the flag of '{at.name}' at {at.location} is not an integer the refinement check follows")
    if isinstance(flag.type, IntegerType):
        w = flag.type.width
        case %= 1 << w
        if case >= 1 << (w - 1) and flag.type.signedness != "u":
            case -= 1 << w
    return m.facts.must_eq(e, case, f"the case {case} of '{at.name}' at {at.location}")


@rule("scf.index_switch")
def _index_switch(m: Machine, op: Op) -> None:
    # Regions: the default, then one per case value.
    index = 0
    for i, case in enumerate(case_values(op, "cases")):
        if _is_case(m, op.operands[0], case, op):
            index = 1 + i
            break
    blocks = op.regions[index].blocks
    for r, e in zip(op.results, run_region(m, blocks[0], []) if blocks else []):
        m.set(r, e)


def _walk(m: Machine, blocks: tuple[Block, ...], loops: dict[int, frozenset[int]], start: int, args: list[Entry],
          within: _Within | None) -> list[Entry] | None:
    """Run from block `start`: the arguments of the branch back to `within`'s header, or None when
    the body returned."""
    i, a = start, args
    for _ in range(MAX_BLOCK_STEPS):
        if i in loops and (within is None or i != within.header):
            i, a = _loop(m, blocks, loops, i, a)
            continue
        block = blocks[i]
        for arg, e in zip(block.arguments, a):
            m.set(arg, e)
        *ops, term = block.ops
        for op in ops:
            m.exec(op)
        if term.name in RETURNS:
            if within is not None:
                raise Undecided(f"the loop at {blocks[within.header].ops[-1].location} returns from inside its body")
            if not m.in_initializer:
                m.exec(term)
            return None
        i, a = _successor(m, term)
        if within is not None:
            if i == within.header:
                return a
            if i not in within.body:
                raise Undecided(f"the loop at {blocks[within.header].ops[-1].location} is left from {term.location}, "
                                "not from its header (only loops that exit from their header are followed)")
    raise Undecided(f"more than {MAX_BLOCK_STEPS} branches followed")


# -- loops -------------------------------------------------------------------------------------------
def _paired(block: Block) -> list[int]:
    return [j for j, v in enumerate(block.arguments) if not isinstance(v.type, TimepointType)]


def _snapshot(m: Machine, e: Entry) -> tuple[Any, ...]:
    if e is None:
        return ("none",)
    if type(e) is int or isinstance(e, Poly):
        return ("int", e)
    if isinstance(e, Res):
        return ("res", e.size, m.bytes_of(e))
    if isinstance(e, BufView):
        return ("view", e.arg, e.res)
    return ("scalar", e)


def _state(m: Machine, k: int, tag: str, j: int, v: Value, init: Entry) -> Entry:
    """Component `j` (among the paired values; -1 for a timepoint) of loop `k`'s symbolic state
    `tag` ("x": an iteration's start, "y": after the loop): the same terms in both programs."""
    key = ("loop", k, tag, j)
    label = f"loop{k}.{tag}{j}"
    t = v.type
    if isinstance(t, (IndexType, IntegerType)):
        return m.ints.sym(key, label)
    if isinstance(t, (FloatType, ComplexType)):
        return m.terms.scalar("loop", key, label)
    if isinstance(t, TensorType):
        # The input level: a statically shaped tensor value, whose size its type fixes in
        # every iteration. AFTER's paired resource takes the same size (below): its entry
        # and back-edge sizes are compared with these, so that holds by induction.
        if not t.is_static or t.encoding is not None:
            raise Undecided(f"loop state {label} is a tensor of type {t}; only static shapes are followed")
        size = tensor_bytes(m.ints, t, [], label)
        m.ctx.loop_sizes[(k, ("tensor", j))] = size
        return Res(size, m.terms.of(m.terms.opaque(key, f"the tensor {label} the loop carries"), size))
    if isinstance(t, ResourceType):
        if not isinstance(init, Res):
            raise Undecided(f"loop state {label} is not a resource the refinement check follows")
        # Its size is part of the state too (IREE's lowered loops carry a slab whose size
        # changes after the first iteration): compared on entry and at the back edge.
        typed = m.ctx.loop_sizes.get((k, ("tensor", j))) if m.program == "after" else None
        size = typed if typed is not None else m.ints.sym((*key, "size"), f"size({label})")
        m.facts.assume_nonneg(size)
        data = m.terms.of(m.terms.opaque(key, f"the resource {label} the loop carries"), size)
        if m.memory_mode:
            alloc = m.new_alloc("loop", f"the storage of {label}", None, size, data, fresh=False)
            return Res(size, None, alloc, 0)
        if init.alloc is not None:  # storage-backed: an in-place write to it is refused in the body
            out = Res(size, data, m.new_alloc("loop", f"the storage of {label}", None, size, data, fresh=False))
        else:
            out = Res(size, data)
        if typed is None:
            m.loop_sized.add(id(out))
        return out
    if isinstance(t, TimepointType):
        return None
    raise Undecided(f"the loop carries a value of type {t}, which the refinement check does not follow")


MAX_MEMORY_STATE = 64  # storage from before a loop that its body may write (each a rerun of the body)


def _loop(m: Machine, blocks: tuple[Block, ...], loops: dict[int, frozenset[int]], h: int,
          init: list[Entry]) -> tuple[int, list[Entry]]:
    """Summarize the loop at header `h` entered with `init`: the exit successor and its arguments."""
    header = blocks[h]
    k = len(m.ctx.loops[m.program])
    m.ctx.loops[m.program].append(None)  # claimed: loops nested in this one number after it
    paired = _paired(header)
    # The state's components are numbered among the paired values (timepoints aside), so that a
    # pass adding timepoints to what a loop carries (IREE's propagate-timepoints) keeps the keys.
    position = {j: i for i, j in enumerate(paired)}
    init_snap = [_snapshot(m, init[j]) for j in paired]
    world_in = (m.world_epoch, m.world)
    *header_ops, term = header.ops
    if term.name != "cf.cond_br":
        raise Undecided(f"the loop header at {term.location} ends in '{term.name}', not a conditional branch")
    body = loops[h]
    inside = [t in body for t in term.successors]
    if inside not in ([True, False], [False, True]):
        raise Undecided(f"the loop header at {term.location} does not branch once into the loop and once out of it")
    go_on = 0 if inside[0] else 1
    start = len(m.allocs)
    memory: list[Allocation] = []  # storage from before the loop the body writes: its memory state
    memory_init: list[tuple[Any, ...]] = []
    stored: list[str] = []  # mutable globals the body stores: part of the state, by name
    stored_init: list[tuple[Any, ...]] = []
    globals_before, snaps_before = dict(m.global_now), dict(m.global_snap)
    while True:
        del m.ctx.loops[m.program][k + 1:]  # a rerun numbers its nested loops again
        m.loop_fresh.append({a.id for a in memory})
        m.loop_start.append(start)
        m.loop_globals.append(set(stored))
        m.global_now, m.global_snap = dict(globals_before), dict(snaps_before)
        m.facts.begin_scope()  # what the iteration assumes holds in it, not after the loop
        stores: str | None = None
        try:
            # Unmodelled ops are keyed by how many ran before (Machine.opaque_key): in an iteration,
            # by the count on entry to the loop and the count within the iteration.
            m.world_epoch, m.world = ("loop", k, "x", world_in), 0
            for i, a in enumerate(memory):
                _havoc(m, k, "x", i, a, term)
            for name in stored:
                _global_state(m, k, "x", name, globals_before)
            x = [_state(m, k, "x", position.get(j, -1), header.arguments[j], init[j]) for j in range(len(header.arguments))]
            sizes: list[IntExpr | None] = [None for _ in paired] + [m.ctx.loop_sizes[(k, ("mem", i))] for i in range(len(memory))]
            sizes += [m.ctx.loop_sizes.get((k, ("global", name))) for name in stored]
            cont, into = _run_header(m, header, header_ops, term, x, go_on, go_on)
            m.facts.assume(m.ints.to_z3(cont) != 0)
            step = _walk(m, blocks, loops, term.successors[go_on], into, _Within(h, body))
            assert step is not None
            step_snap = [_snapshot(m, step[j]) for j in paired] + [_memory_snapshot(m, a) for a in memory]
            step_snap += [global_snapshot(m, name) for name in stored]
            world_step = (m.world_epoch, m.world)
            written = None
        except LoopWrite as e:
            if e.level != len(m.loop_fresh) - 1:
                raise  # an enclosing loop's state grows: it runs its body again, this loop with it
            written = e.alloc
        except LoopGlobal as e:
            if e.level != len(m.loop_globals) - 1:
                raise
            written, stores = None, e.name
        finally:
            m.loop_fresh.pop()
            m.loop_start.pop()
            m.loop_globals.pop()
            facts = m.facts.end_scope()
        if stores is not None:
            if len(stored) == MAX_MEMORY_STATE:
                raise Undecided(f"the loop at {term.location} stores more than {MAX_MEMORY_STATE} globals")
            m.global_now, m.global_snap = dict(globals_before), dict(snaps_before)
            stored.append(stores)
            stored_init.append(global_snapshot(m, stores))  # what it held on entry to the loop
            order = sorted(range(len(stored)), key=lambda i: stored[i])
            stored, stored_init = [stored[i] for i in order], [stored_init[i] for i in order]
            continue
        if written is None:
            break
        if len(memory) == MAX_MEMORY_STATE:
            raise Undecided(f"the loop at {term.location} writes more than {MAX_MEMORY_STATE} allocations made before it")
        memory.append(written)
        memory_init.append(_memory_snapshot(m, written))  # not written yet: what it held on entry
        # Paired between the programs in the order the allocations were made in.
        order = sorted(range(len(memory)), key=lambda i: memory[i].id)
        memory, memory_init = [memory[i] for i in order], [memory_init[i] for i in order]
    # A carried resource must not live in storage the loop writes as memory: its bytes and that
    # storage's are separate parts of the state (entering with it, or passing it on).
    mem_ids = {a.id for a in memory}
    assert step is not None
    for what, entries in (("enters the loop", init), ("is passed on", step)):
        for entry in entries:
            if isinstance(entry, Res) and entry.alloc is not None and entry.alloc.id in mem_ids:
                raise Undecided(f"a resource the loop at {term.location} carries {what} in storage its body writes in place")
    m.ctx.loops[m.program][k] = LoopRecord(
        term, [*init_snap, *memory_init, *stored_init], cont, step_snap, [*m.facts.open_facts(), *facts], sizes, stored)
    # After the loop: the same count in both programs when they entered it with the same count and
    # run as many per iteration (the trip counts are equal by the induction); otherwise other keys.
    m.world_epoch, m.world = ("loop", k, "y", world_in, world_step), 0
    for i, a in enumerate(memory):
        _havoc(m, k, "y", i, a, term)
    for name in stored:
        _global_state(m, k, "y", name, globals_before)
    y = [_state(m, k, "y", position.get(j, -1), header.arguments[j], init[j]) for j in range(len(header.arguments))]
    if any(isinstance(e, Res) and e.alloc is not None for e in (*y, *(m.global_now[name] for name in stored))):
        # A result may live in the storage of what entered the loop or what the loop read from
        # outside (a yielded outer value; an initial value when it ran no time): storage the
        # loop never touched cannot hold a result.
        # The results themselves may be any of that storage: writing one in place is not
        # followed either.
        touched = [e for e in (*init, *y, *(m.global_now[name] for name in stored)) if isinstance(e, Res)]
        touched += [entry for v in _outer_values(blocks, body) if isinstance(entry := m.env.get(v), Res)]
        m.loop_aliased |= {e.alloc.id for e in touched if e.alloc is not None}
        m.loop_floor_why = f"the loop at {term.location}"
    cont_y, out = _run_header(m, header, header_ops, term, y, go_on, 1 - go_on)
    m.facts.assume(m.ints.to_z3(cont_y) == 0)  # the state after the loop fails the condition
    return term.successors[1 - go_on], out


def _outer_values(blocks: tuple[Block, ...], body: frozenset[int]) -> list[Value]:
    """The values the loop's blocks (their nested regions too) use that they do not define."""
    defined: set[Value] = set()
    used: dict[Value, None] = {}
    for i in body:
        defined.update(blocks[i].arguments)
        for op in blocks[i].ops:
            for inner in op.walk():
                defined.update(inner.results)
                for region in inner.regions:
                    for b in region.blocks:
                        defined.update(b.arguments)
                for v in inner.operands:
                    used.setdefault(v, None)
    return [v for v in used if v not in defined]


def _memory_snapshot(m: Machine, alloc: Allocation) -> tuple[Any, ...]:
    return ("res", alloc.size, m.memory.read(alloc, 0, alloc.size))


def _global_state(m: Machine, k: int, tag: str, name: str, before: dict[str, Entry]) -> None:
    """The mutable global `name` in state `tag` of loop `k`: the same unknown in both programs (of
    BEFORE's size on entry to the loop, as storage the body writes keeps its size)."""
    was = before[name] if name in before else global_entry(m, name)
    key = ("loop", k, tag, "global", name)
    label = f"@{name} in loop{k}.{tag}"
    e: Entry
    if isinstance(was, Res):
        size = m.ctx.loop_sizes.setdefault((k, ("global", name)), was.size)
        data = m.terms.of(m.terms.opaque(key, f"the value of {label}"), size)
        if m.memory_mode:
            e = Res(size, None, m.new_alloc("loop", f"the storage of {label}", None, size, data, fresh=False))
        elif was.alloc is not None:  # storage-backed: an in-place write to it is refused in the body
            e = Res(size, data, m.new_alloc("loop", f"the storage of {label}", None, size, data, fresh=False))
        else:
            e = Res(size, data)
        if type(size) is not int:
            m.loop_sized.add(id(e))  # a use that spells its size fixes it (the IR's sizes hold)
    elif type(was) is int or isinstance(was, Poly):
        e = m.ints.sym(key, label)
    elif was is None or isinstance(was, BufView):
        raise Undecided(f"the loop stores @{name}, whose value the refinement check does not follow")
    else:
        e = m.terms.scalar("loop", key, label)
    m.global_now[name] = e
    m.global_snap[name] = None


def _havoc(m: Machine, k: int, tag: str, i: int, alloc: Allocation, term: Op) -> None:
    """Memory state `i` of loop `k` in state `tag`: the same unknown bytes in both programs (of
    BEFORE's size: the entry states are compared, sizes included)."""
    size = m.ctx.loop_sizes.setdefault((k, ("mem", i)), alloc.size)
    key = ("loop", k, tag, "mem", i)
    data = m.terms.of(m.terms.opaque(key, f"the bytes of {alloc.what} in loop{k}.{tag}"), size)
    m.memory.write(alloc, 0, data, term)
    alloc.version += 1


def _run_header(m: Machine, header: Block, ops: list[Op], term: Op, state: list[Entry], go_on: int,
                taken: int) -> tuple[IntExpr, list[Entry]]:
    """Run the header on `state`: the condition to go on (non-zero: into the loop) and the
    arguments of successor `taken`."""
    for arg, e in zip(header.arguments, state):
        m.set(arg, e)
    for op in ops:
        m.exec(op)
    cond, on_true, on_false = cond_br_groups(term)
    c = m.entry(cond)
    if not (type(c) is int or isinstance(c, Poly)):
        raise Undecided(f"the loop condition at {term.location} is not an integer the refinement check follows")
    cont: IntExpr = c if go_on == 0 else m.ints.apply("cmpi_eq", c, 0)
    return cont, [m.entry(v) for v in (on_true if taken == 0 else on_false)]


def check_loops(ctx: Context) -> None:
    """The premises 1-3 of the module docstring for every pair of loops; Undecided when one fails."""
    for b, a in zip_longest(ctx.loops["before"], ctx.loops["after"]):
        if b is None or a is None:
            raise Undecided(f"BEFORE runs {len(ctx.loops['before'])} loops and AFTER {len(ctx.loops['after'])}: "
                            "loops are paired in the order they run")
        where = f"the loop at {b.op.location} (BEFORE) and at {a.op.location} (AFTER)"
        if b.globals != a.globals:
            raise Undecided(f"{where} store different mutable globals ({', '.join('@' + n for n in b.globals) or 'none'} and "
                            f"{', '.join('@' + n for n in a.globals) or 'none'}): their states are paired by name")
        if len(b.init) != len(a.init):
            raise Undecided(f"{where} carry {len(b.init)} and {len(a.init)} values (timepoints aside)")
        cmp = Comparer(ctx)  # a comparer of its own: its answers may rest on the iteration's facts
        for j, (sb, sa) in enumerate(zip(b.init, a.init)):
            if not _same(ctx, cmp, sb, sa, f"{where}, state {j} on entry"):
                raise Undecided(f"{where} start from different states (value {j}, timepoints aside)")
        if not _always_equal(ctx, b.cont, a.cont):
            raise Undecided(f"{where} go on under different conditions on the same state "
                            f"({ctx.ints.render(b.cont)} and {ctx.ints.render(a.cont)})")
        ctx.facts.begin_scope()
        try:
            ctx.facts.replay(b.facts)
            ctx.facts.replay(a.facts)
            cmp = Comparer(ctx)
            for j, (sb, sa) in enumerate(zip(b.step, a.step)):
                for rec in (b, a):
                    size = rec.sizes[j]  # storage from before the loop keeps its size
                    if rec.step[j][0] == "res" and size is not None and not ctx.facts.must_eq(rec.step[j][1], size, where):
                        raise Undecided(f"{where}: the storage the loop writes as state {j} changes size in an iteration")
                if not _same(ctx, cmp, sb, sa, f"{where}, state {j} after an iteration"):
                    raise Undecided(f"{where} compute different states in one iteration from the same state (value {j}, "
                                    "timepoints aside): the relation 'equal loop states' does not hold")
        finally:
            ctx.facts.end_scope()


def _always_equal(ctx: Context, b: IntExpr, a: IntExpr) -> bool:
    """`b == a` for every value of every symbol. Not under the case's facts: those include what
    each program assumed of its own condition while it ran its body, and `b != 0` together with
    `a != 0` would make any two conditions look equal."""
    if type(ctx.ints.sub(b, a)) is int:
        return ctx.ints.sub(b, a) == 0
    solver = z3.Solver(ctx=ctx.ints.ctx)
    solver.set("rlimit", ctx.facts.rlimit)
    solver.add(ctx.ints.to_z3(b) != ctx.ints.to_z3(a))
    return solver.check() == z3.unsat


def _same(ctx: Context, cmp: Comparer, b: tuple[Any, ...], a: tuple[Any, ...], why: str) -> bool:
    if b[0] != a[0]:
        return False
    kind = b[0]
    if kind == "none":
        return True
    if kind == "int":
        return ctx.facts.must_eq(b[1], a[1], why)
    if kind == "res":
        if not ctx.facts.must_eq(b[1], a[1], why):
            return False
        data_b: ByteStr = b[2]
        data_a: ByteStr = a[2]
        return cmp.bytes(data_b, data_a) is None
    if kind == "scalar":
        return cmp.scalar(b[1], a[1])
    return False
