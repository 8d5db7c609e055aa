"""ElideTimepoints (`elide-timepoints`): drop every wait another wait already implies.

Run to a fixed point over each function, block by block, using TimepointCoverage
(`stream.analysis.timepoint_coverage`) over the ops that certainly ran before each op (below):

* for every op that waits on the device (`cmd.execute`, `async.execute`, `resource.alloca`,
  `resource.dealloca`), its await is flattened through joins into the timepoints it really
  waits for, and only the *roots* are kept: a timepoint is dropped when it is immediate, when
  another kept timepoint covers it, or when the host already awaited something covering it
  before the op is issued (host awaits count as coverage, which IREE ignores: #9747; an await is
  pure, so it counts from its first host consumer on, `stream.analysis.timepoint_coverage`). The await
  becomes nothing, the single root, or a join of the roots;
* a `timepoint.join` keeps only its roots (it becomes its single input, or an immediate);
* a host `timepoint.await` whose timepoint the host has already seen reached, or that its
  resources already carry (they come through an await of a timepoint covering it), is removed
  (its results are its operands); a `sync` await is never touched; likewise a timeline op does
  not wait for what the awaited values it captures carry (it starts after that anyway);
* joins and immediates nobody uses any more are deleted.

Coverage takes the intersection at alternatives (`arith.select` of timepoints), never the union,
so a timepoint reachable on only one side never justifies dropping a wait (the IREE caveat of
reference section 2.16). After the pass no await of any op is covered by another one it keeps.

Control flow (several blocks, `scf.for`/`if`/`while`/`execute_region`/`index_switch` regions):
what is known at an op is what the ops that ran on *every* path to it establish. Those are the
ops before it in its block, the ops of the blocks that dominate its block (each ran to its end on
every path here, in its latest run, which defined the values seen here), and, in an `scf`
region, what was known before the op holding the region. Of a block's arguments and an `scf`
op's results nothing is assumed (they cover only themselves), so at a join point or loop header
the coverage is what every incoming path shares through the dominators: a subset of the
intersection over the paths, never more. The one exception is an inductive fact about an
`scf.for`'s carried timepoint: the timepoints from before the loop that its initial value covers
and that every iteration's yielded value covers again, assuming the argument covers them
(`_carried_coverage`). Control-flow ops and terminators are not host
consumers here: passing an awaited value to a branch, a loop or a yield orders nothing by
itself (an await orders only the users of its results).

Invariant established: for every op, the timepoints it waits for (with what the host has awaited
before it) cover everything they covered before the pass; only redundant waits disappear, so
the happens-before order between any two device ops is unchanged.
"""

from __future__ import annotations

from collections.abc import Callable

from stream.analysis.timepoint_coverage import AWAIT_HOLDERS, TimepointCoverage
from stream.ir.attributes import DenseArrayAttr
from stream.ir.core import Block, Location, Module, Op, Region, Value
from stream.ir.interfaces import awaited, awaits_group
from stream.ir.rule_table import OpSet, Requirement, RuleTable
from stream.ir.spec import spec_of
from stream.ir.types import I32, TIMEPOINT, TimepointType
from stream.ir.verifier import dominators
from stream.ir.walk import Function, bodies, defined_inside, replace_op
from stream.passes.async_to_cmd import build
from stream.passes.block_builder import remap_op
from stream.passes.pass_manager import register_pass

__all__ = ["elide_timepoints", "with_await", "MAX_ROUNDS"]

# The rewrite only removes wait edges, so it converges in a few rounds; this bounds a bug.
MAX_ROUNDS = 64


@register_pass("elide-timepoints")
def elide_timepoints(module: Module) -> Module:
    """Remove awaits covered by other awaits or by earlier host awaits, to a fixed point."""
    out = module
    for f in bodies(module):
        if any(_waits(op) for op in f.op.walk()):  # any block: refuse, never skip
            out = replace_op(out, f.op, _elide_function(f).op)
    return out


def _waits(op: Op) -> bool:
    return op.name in AWAIT_HOLDERS or op.name in ("stream.timepoint.join", "stream.timepoint.await")


def _elide_function(f: Function) -> Function:
    op = f.op
    # In one block without control flow each op is remapped as it is rewritten; otherwise a value
    # replaced in one block may be used in another (a dominated block, a region).
    control = len(f.blocks) > 1 or any(_control(inner) for inner in op.walk())
    for _ in range(MAX_ROUNDS):
        mapping: dict[Value, Value] = {}
        regions = tuple(_elide_region(region, [], mapping) for region in op.regions)
        if all(a is b for a, b in zip(regions, op.regions)):
            return Function(op)
        new = op.replace(regions=regions)
        op = _dead_timepoints(remap_op(new, _resolved(mapping)) if control else new)
    raise RuntimeError(f"elide-timepoints did not converge on @{f.name} in {MAX_ROUNDS} rounds")


def _resolved(mapping: dict[Value, Value]) -> dict[Value, Value]:
    out = {}
    for k, v in mapping.items():
        while v in mapping and mapping[v] is not v:
            v = mapping[v]
        out[k] = v
    return out


def _control(op: Op) -> bool:
    """Host control flow: branches, loops, their terminators (not host consumers, see above)."""
    return op.dialect in ("scf", "cf")


def _elide_region(region: Region, known: list[Op], mapping: dict[Value, Value]) -> Region:
    """`region` rewritten; `known` are the ops that ran before it on every path (the region's
    own dominators add theirs per block)."""
    doms = dominators(region) if len(region.blocks) > 1 else [{0}]
    blocks = []
    for i, block in enumerate(region.blocks):
        chain = sorted(doms[i] - {i}, key=lambda d: len(doms[d]))  # outermost dominator first
        before = [*known, *(op for d in chain for op in region.blocks[d].ops)]
        blocks.append(_elide_block(block, before, mapping))
    if all(a is b for a, b in zip(blocks, region.blocks)):
        return region
    return Region(tuple(blocks))


def with_await(op: Op, timepoint: Value | None) -> Op:
    """`op` with its optional `await_timepoint` operand set to `timepoint` (or removed)."""
    spec = spec_of(op)
    assert spec is not None
    sizes = spec.operand_sizes(op)
    awaits = awaits_group(spec)
    groups: list[tuple[Value, ...]] = []
    start = 0
    for group, n in zip(spec.operands, sizes):
        values = op.operands[start : start + n]
        start += n
        if group.name == awaits:
            values = () if timepoint is None else (timepoint,)
        groups.append(values)
    properties = dict(op.properties)
    properties.update(spec.segment_properties([len(g) for g in groups]))
    return op.replace(operands=tuple(v for g in groups for v in g), properties=properties)


class _Round:
    """One rewrite round over a block, deciding on the old values' coverage. `block` is the
    block's ops after the ops known to have run before them, control flow left out."""

    def __init__(self, block: Block, mapping: dict[Value, Value]) -> None:
        self.block = block
        self.coverage = TimepointCoverage.of(block)
        self.joins: dict[Value, Op] = {op.results[0]: op for op in block.ops if op.name == "stream.timepoint.join"}
        self.mapping = mapping
        self.ops: list[Op] = []
        # Values control flow passes on (operands of yields and branches of this block).
        self.passed_on: set[Value] = set()

    def flatten(self, t: Value) -> list[Value]:
        """What awaiting `t` really waits for: the inputs of joins, recursively."""
        join = self.joins.get(t)
        if join is None:
            return [t]
        out: list[Value] = []
        for v in join.operands:
            out.extend(self.flatten(v))
        return out

    def roots(self, t: Value, position: int, op: Op | None = None) -> list[Value]:
        """The roots of what `t` waits for at `position`; with `op`, leaving out what the
        awaited values `op` uses already order it after (stream.dialect.awaits)."""
        waited = self.coverage.carried.get(op, ()) if op is not None else ()
        return self.coverage.roots(self.flatten(t), position, waited)

    def join_of(self, roots: list[Value], old: Value, location: Location) -> Value | None:
        """`old` when it already waits for exactly `roots`, else a value that does (a new join
        at `location`, the op it is made for)."""
        if not roots:
            return None
        if len(roots) == 1:
            return roots[0]
        old_join = self.joins.get(old)
        if old_join is not None and list(old_join.operands) == roots:
            return self.mapping.get(old, old)
        join = build("stream.timepoint.join", {"await_timepoints": tuple(roots)}, {"result_timepoint": TIMEPOINT}, location=location)
        self.ops.append(join)
        return join.results[0]


def _holder(r: _Round, op: Op, position: int) -> None:
    spec = spec_of(op)
    assert spec is not None
    group = awaited(spec, op)
    new = remap_op(op, r.mapping)
    if group:
        old = group[0]
        await_tp = r.join_of(r.roots(old, position, op), old, op.location)
        if await_tp is not old:
            new = with_await(new, await_tp)
    r.ops.append(new)


def _join(r: _Round, op: Op, position: int) -> None:
    result = op.results[0]
    # A join that control flow passes on (to a yield, a branch): only what its own inputs
    # imply is dropped, not what the host awaited here. The value stands for its inputs where
    # it arrives (after a loop that ran no time, or on another path), where that host wait may
    # not have happened; and the loop argument asks one carried timepoint to cover the work.
    at = None if result in r.passed_on else position
    roots = r.coverage.roots([v for t in op.operands for v in r.flatten(t)], at)
    if roots == list(op.operands):
        r.ops.append(remap_op(op, r.mapping))
        return
    if not roots:
        immediate = build("stream.timepoint.immediate", results={"result_timepoint": TIMEPOINT}, location=op.location)
        r.ops.append(immediate)
        r.mapping[result] = immediate.results[0]
    elif len(roots) == 1:
        r.mapping[result] = roots[0]
    else:
        r.mapping[result] = r.join_of(roots, result, op.location)  # type: ignore[assignment]


def _host_await(r: _Round, op: Op, position: int) -> None:
    spec = spec_of(op)
    assert spec is not None
    if op.properties.get("sync") is not None:
        r.ops.append(remap_op(op, r.mapping))
        return
    old = awaited(spec, op)[0]
    roots = r.roots(old, position, op)
    if not roots:
        operands = spec.operand_group(op, "resource_operands")
        for result, operand in zip(op.results, operands):
            r.mapping[result] = r.mapping.get(operand, operand)
        return
    new = remap_op(op, r.mapping)
    await_tp = r.join_of(roots, old, op.location)
    if await_tp is not old:
        new = with_await(new, await_tp)
    r.ops.append(new)


_RULES: RuleTable[Callable[[_Round, Op, int], None]] = RuleTable(
    "_RULES",
    """Rewrite the timeline op of one round: drop the await timepoints (or join inputs) already
    covered by others, fold joins, keep host awaits that order something (`fn(round, op,
    position)`). An op without one is copied with its operands remapped (identity).""",
    policy="identity",
    requires=Requirement(ops=AWAIT_HOLDERS | {"stream.timepoint.join", "stream.timepoint.await"}, why="the ops holding an await timepoint, and joins"),
    entries={
        **dict.fromkeys(AWAIT_HOLDERS, _holder),
        "stream.timepoint.join": _join,
        "stream.timepoint.await": _host_await,
    },
)


def _elide_block(block: Block, known: list[Op], mapping: dict[Value, Value]) -> Block:
    ordered = [op for op in (*known, *block.ops) if not _control(op)]
    position = {id(op): i for i, op in enumerate(ordered)}
    r = _Round(Block((), tuple(ordered)), mapping)
    r.passed_on = {v for op in block.ops if _control(op) and not op.regions for v in op.operands}
    ran: list[Op] = []
    for op in block.ops:
        rule = _RULES.get(op.name)
        if op.regions and _control(op):
            carried = _carried_coverage(r, op, [*known, *ran])
            regions = tuple(_elide_region(region, [*known, *ran, *carried], mapping) for region in op.regions)
            new = op if all(a is b for a, b in zip(regions, op.regions)) else op.replace(regions=regions)
            r.ops.append(remap_op(new, r.mapping))
        elif rule is None or id(op) not in position:
            r.ops.append(remap_op(op, r.mapping))
        else:
            rule(r, op, position[id(op)])
        ran.append(op)
    if len(r.ops) == len(block.ops) and all(a is b for a, b in zip(r.ops, block.ops)):
        return block
    return Block(block.arguments, tuple(r.ops))


def _carried_coverage(r: _Round, op: Op, before: list[Op]) -> list[Op]:
    """For an `scf.for`: what each carried timepoint covers in every iteration, as stand-in ops
    for the body's analysis (an execute awaiting a join of those timepoints, whose result is the
    carried block argument). A set S of timepoints from before the loop qualifies when the
    initial value covers S and, assuming the block argument covers S, so does the value the body
    yields: by induction the argument covers S at every iteration. S starts as what the initial
    value covers of the outer timepoints the body uses and shrinks to a fixed point."""
    if op.name != "scf.for" or not op.regions or not op.regions[0].blocks:
        return []
    body = op.regions[0].blocks[0]
    if not body.ops or body.ops[-1].name != "scf.yield":
        return []
    inits, args, yields = op.operands[3:], body.arguments[1:], body.ops[-1].operands
    inner = defined_inside(op)
    outer = list(dict.fromkeys(v for o in op.walk() if o is not op for v in o.operands
                               if isinstance(v.type, TimepointType) and v not in inner))
    covered = {k: [t for t in outer if t is not inits[k] and r.coverage.covers(inits[k], t)]
               for k, a in enumerate(args) if isinstance(a.type, TimepointType) and k < len(inits) and k < len(yields)}
    for _ in range(len(outer) + 1):
        stand_ins = _stand_ins(args, covered)
        ordered = [o for o in (*before, *stand_ins, *body.ops) if not _control(o)]
        coverage = TimepointCoverage.of(Block((), tuple(ordered)))
        kept = {k: [t for t in ts if coverage.covers(yields[k], t)] for k, ts in covered.items()}
        if kept == covered:
            return stand_ins
        covered = kept
    return []  # does not converge (it cannot: each round drops a timepoint): assume nothing


def _stand_ins(args: tuple[Value, ...], covered: dict[int, list[Value]]) -> list[Op]:
    out: list[Op] = []
    for k, ts in covered.items():
        if not ts:
            continue
        join = build("stream.timepoint.join", {"await_timepoints": tuple(ts)}, {"result_timepoint": TIMEPOINT})
        out.append(join)
        out.append(Op("stream.cmd.execute", operands=(join.results[0],), results=(args[k],),
                      properties={"operandSegmentSizes": DenseArrayAttr(I32, (0, 0, 1))}, regions=(Region((Block((), ()),)),)))
    return out


_PURE_TIMEPOINT_OPS = OpSet(
    "_PURE_TIMEPOINT_OPS",
    "Timepoint ops without side effects: dropped when nothing uses their result.",
    {"stream.timepoint.join", "stream.timepoint.immediate"},
)


def _dead_timepoints(func: Op) -> Op:
    """Delete joins and immediates whose result nobody uses, in every block (repeatedly)."""
    while True:
        used = {v for inner in func.walk() for v in inner.operands}
        dead = {id(op) for op in func.walk() if op.name in _PURE_TIMEPOINT_OPS and op.results[0] not in used}
        if not dead:
            return func
        func = _without(func, dead)


def _without(op: Op, dead: set[int]) -> Op:
    """`op` with the ops `dead` (by id) removed from its regions; the same op when none is there."""
    if not op.regions:
        return op
    regions = []
    for region in op.regions:
        blocks = []
        for b in region.blocks:
            ops = tuple(_without(o, dead) for o in b.ops if id(o) not in dead)
            blocks.append(b if len(ops) == len(b.ops) and all(x is y for x, y in zip(ops, b.ops)) else Block(b.arguments, ops))
        regions.append(region if all(x is y for x, y in zip(blocks, region.blocks)) else Region(tuple(blocks)))
    return op if all(x is y for x, y in zip(regions, op.regions)) else op.replace(regions=tuple(regions))
