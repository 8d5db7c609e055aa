"""Mutation operators over proved programs (SPEC §8): each mutant breaks one ordering or layout
fact and must be rejected by the verifier with the class the mutation implies.

Every operator yields `(description, mutant module, expected classes)`; the expected classes are
the ones the broken fact protects (a mutant may show more than one symptom).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator

from stream.ir.attributes import DenseArrayAttr, IntegerAttr
from stream.ir.core import Block, Module, Op, Region, Value
from stream.ir.spec import spec_of
from stream.ir.types import INDEX
from stream.ir.walk import Function, functions, replace_function

Mutant = tuple[str, Module, set[str]]

RACES = {"RACE_READ_AFTER_WRITE", "RACE_WRITE_AFTER_READ", "RACE_WRITE_AFTER_WRITE", "MISSED_WAIT"}
ORDERING = RACES | {"USE_BEFORE_ALLOC", "USE_AFTER_FREE"}


def substitute(ops: tuple[Op, ...], mapping: dict[Value, Value]) -> tuple[Op, ...]:
    """`ops` with every use of a key of `mapping` replaced (nested regions included)."""
    out = []
    for op in ops:
        operands = tuple(mapping.get(v, v) for v in op.operands)
        regions = tuple(Region(tuple(Block(b.arguments, substitute(b.ops, mapping)) for b in r.blocks)) for r in op.regions)
        out.append(op.replace(operands=operands, regions=regions) if operands != op.operands or op.regions else op)
    return tuple(out)


def _with_body(module: Module, f: Function, ops: tuple[Op, ...]) -> Module:
    return replace_function(module, f.with_body(ops))


def _drop_operand(op: Op, group: str, index: int = 0) -> Op:
    """`op` without value `index` of an operand group (segment sizes updated)."""
    spec = spec_of(op)
    assert spec is not None
    start = spec.operand_offset(op, group) + index
    operands = op.operands[:start] + op.operands[start + 1:]
    props = dict(op.properties)
    if spec.segmented:
        sizes = list(spec.operand_sizes(op))
        sizes[spec._operand_index[group]] -= 1
        props["operandSegmentSizes"] = DenseArrayAttr(props["operandSegmentSizes"].element_type, tuple(sizes))  # type: ignore[union-attr]
    return op.replace(operands=operands, properties=props)


def drop_await(module: Module) -> Iterator[Mutant]:
    """A device op stops awaiting its timepoint, or a host await disappears."""
    for f in functions(module):
        for i, op in enumerate(f.body.ops):
            spec = spec_of(op)
            if spec is not None and "await_timepoint" in spec._operand_index and spec.operand_group(op, "await_timepoint") \
                    and op.name != "stream.timepoint.await":
                ops = f.body.ops[:i] + (_drop_operand(op, "await_timepoint"),) + f.body.ops[i + 1:]
                yield f"drop the await of {op.name} at {op.location}", _with_body(module, f, ops), ORDERING
            if op.name == "stream.timepoint.await":
                mapping = dict(zip(op.results, op.operands))
                ops = f.body.ops[:i] + substitute(f.body.ops[i + 1:], mapping)
                yield f"drop the host await at {op.location}", _with_body(module, f, ops), ORDERING


def drop_join_input(module: Module) -> Iterator[Mutant]:
    for f in functions(module):
        for i, op in enumerate(f.body.ops):
            if op.name == "stream.timepoint.join" and len(op.operands) >= 2:
                for k in range(len(op.operands)):
                    new = op.replace(operands=op.operands[:k] + op.operands[k + 1:])
                    ops = f.body.ops[:i] + (new,) + f.body.ops[i + 1:]
                    yield f"drop input #{k} of the join at {op.location}", _with_body(module, f, ops), ORDERING


def move_dealloca_earlier(module: Module) -> Iterator[Mutant]:
    """A dealloca awaits the alloca of its allocation instead of the work that uses it."""
    for f in functions(module):
        alloca_tp = {op.results[0]: op.results[1] for op in f.body.ops if op.name == "stream.resource.alloca"}
        for i, op in enumerate(f.body.ops):
            if op.name != "stream.resource.dealloca":
                continue
            tp = alloca_tp.get(op.operands[0])
            spec = spec_of(op)
            assert spec is not None
            if tp is None or not spec.operand_group(op, "await_timepoint"):
                continue
            start = spec.operand_offset(op, "await_timepoint")
            new = op.replace(operands=op.operands[:start] + (tp,) + op.operands[start + 1:])
            ops = f.body.ops[:i] + (new,) + f.body.ops[i + 1:]
            yield f"free {op.location} right after its alloca", _with_body(module, f, ops), {"USE_AFTER_FREE"}


def _constant(op: Op) -> int | None:
    value = op.properties.get("value")
    return value.value if op.name == "arith.constant" and isinstance(value, IntegerAttr) else None


def move_into_wave(module: Module) -> Iterator[Mutant]:
    """Two consecutive commands of an execute region are put into one `cmd.concurrent` wave."""
    for f in functions(module):
        for i, op in enumerate(f.body.ops):
            if op.name != "stream.cmd.execute":
                continue
            body = op.regions[0].blocks[0]
            children = [c for c in body.ops if c.name != "stream.yield"]
            for k in range(len(children) - 1):
                a, b = children[k], children[k + 1]
                wave = Op("stream.cmd.concurrent", regions=(Region.of((), (a, b, Op("stream.yield"))),), location=a.location)
                new_ops = body.ops[: body.ops.index(a)] + (wave,) + body.ops[body.ops.index(b) + 1:]
                new_exec = op.replace(regions=(Region.of(body.arguments, new_ops),))
                ops = f.body.ops[:i] + (new_exec,) + f.body.ops[i + 1:]
                yield f"run {a.name} and {b.name} at {a.location} concurrently", _with_body(module, f, ops), RACES


def shift_pack_offset(module: Module, shift: int = 64) -> Iterator[Mutant]:
    """One use of a `resource.pack` slice offset is shifted by `shift` bytes."""
    for f in functions(module):
        packs = [op for op in f.body.ops if op.name == "stream.resource.pack"]
        for pack in packs:
            for slot, offset in enumerate(pack.results[1:]):
                users = [op for op in f.op.walk() if offset in op.operands and op.name.startswith("stream.cmd.")]
                if not users:
                    continue
                c = Op("arith.constant", results=(Value(INDEX, f"shift{shift}"),), properties={"value": IntegerAttr(shift, INDEX)})
                shifted = Value(INDEX, "shifted")
                add = Op("arith.addi", operands=(offset, c.results[0]), results=(shifted,), location=pack.location)
                target = users[0]
                ops = substitute_once(f.body.ops, target, offset, shifted)
                index = f.body.ops.index(pack) + 1
                ops = ops[:index] + (c, add) + ops[index:]
                yield f"shift slice #{slot} of the pack at {pack.location} for {target.name} at {target.location}", \
                    _with_body(module, f, ops), {"PACK_OVERLAP"}


def substitute_once(ops: tuple[Op, ...], target: Op, old: Value, new: Value) -> tuple[Op, ...]:
    out = []
    for op in ops:
        if op is target:
            op = op.replace(operands=tuple(new if v is old else v for v in op.operands))
        elif op.regions:
            regions = tuple(Region(tuple(Block(b.arguments, substitute_once(b.ops, target, old, new)) for b in r.blocks)) for r in op.regions)
            op = op.replace(regions=regions)
        out.append(op)
    return tuple(out)


# -- an independent brute-force checker for concrete programs --------------------------------------
class _Reach:
    """Path existence by breadth-first search, memoised per source event."""

    def __init__(self, succ: dict[int, list[int]]) -> None:
        self.succ = succ
        self.memo: dict[int, set[int]] = {}

    def __call__(self, u: int, v: int) -> bool:
        if u not in self.memo:
            seen = {u}
            queue = deque([u])
            while queue:
                for y in self.succ.get(queue.popleft(), ()):
                    if y not in seen:
                        seen.add(y)
                        queue.append(y)
            self.memo[u] = seen
        return u != v and v in self.memo[u]


def brute_force_classes(module: Module) -> set[str]:
    """The ordering classes a concrete cmd-level program violates, decided by breadth-first path
    search on the raw event graph and integer range overlap: no vector clocks, no region
    structure, no obligation pruning, no SMT (the model's accesses and lifetime facts are the
    only shared input). Used as the oracle for mutants."""
    from verify.model import WRITE, build_model

    found: set[str] = set()
    for f in functions(module):
        model = build_model(f, module)
        g = model.graph
        succ: dict[int, list[int]] = {}
        for u, v in zip(g.src, g.dst):
            succ.setdefault(u, []).append(v)
        reach = _Reach(succ)

        acc = [a for a in model.accesses if a.lo.is_const and a.length.is_const]
        for i, x in enumerate(acc):
            for y in acc[i + 1:]:
                if x.alloc is not y.alloc or not ((x.mode | y.mode) & WRITE) or not x.mode or not y.mode:
                    continue
                if not (x.lo.const < y.hi.const and y.lo.const < x.hi.const and x.length.const and y.length.const):
                    continue
                if x.site is y.site or not (reach(x.site.end, y.site.start) or reach(y.site.end, x.site.start)):
                    a, b = (x, y) if x.site.order <= y.site.order else (y, x)
                    if a.site is b.site:
                        found.add("RACE_READ_AFTER_WRITE" if not (a.writes and b.writes) else "RACE_WRITE_AFTER_WRITE")
                    elif a.writes and b.reads:
                        found.add("MISSED_WAIT" if a.site.unit != b.site.unit else "RACE_READ_AFTER_WRITE")
                    else:
                        found.add("RACE_WRITE_AFTER_READ" if not a.writes else "RACE_WRITE_AFTER_WRITE")
        for alloc_id, site in model.allocas.items():
            for x in model.accesses:
                if x.alloc.id == alloc_id and not reach(site.end, x.site.start):
                    found.add("USE_BEFORE_ALLOC")
        for d, alloc in model.deallocas:
            alloca = model.allocas.get(alloc.id)
            if alloca is not None and not reach(alloca.end, d.start):
                found.add("USE_BEFORE_ALLOC")
            for x in model.accesses:
                if x.alloc is alloc and not reach(x.site.end, d.start):
                    found.add("USE_AFTER_FREE")
        ret = model.return_site
        if ret is not None and not model.completions:
            for x in model.accesses:
                if (x.alloc.caller_visible or x.alloc.id in model.escapes) and not x.site.host and not reach(x.site.end, ret.start):
                    found.add("MISSED_WAIT")
    return found


def remove_clone(module: Module) -> Iterator[Mutant]:
    """An `async.clone` is removed: its users see (and write in place into) the source itself."""
    for f in functions(module):
        for op in f.op.walk():
            if op.name == "stream.async.clone":
                mapping = {op.results[0]: op.operands[0]}
                ops = substitute(f.body.ops, mapping)
                yield f"remove the clone at {op.location}", _with_body(module, f, ops), {
                    "BORROWED_INPUT_MUTATED", "RACE_WRITE_AFTER_READ", "RACE_WRITE_AFTER_WRITE"}
