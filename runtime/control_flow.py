"""Host control flow, shared by the executor and the reference interpreter: blocks, branches, `scf`.

A function body, an initializer body or a region of an `scf` op is a list of blocks
(`Region.blocks`); `run_blocks` runs one from its entry block, op by op, until a terminator leaves
it. What a terminator does is a rule of `TRANSFER_RULES` (keyed by op name), which returns where
control goes:

* `cf.br ^bb(%v...)`: a `Jump` to the successor (an index into the enclosing region's blocks,
  `Op.successors`) with the operands as the block's arguments;
* `cf.cond_br %c, ^t(%a...), ^f(%b...)`: the operands split by `operandSegmentSizes`
  (condition, true-dest operands, false-dest operands); `cf.switch %flag, ^default(...), [v: ^bb(...)]`:
  `case_values` against the flag, the case operands split by `case_operand_segments`;
* `scf.yield` / `scf.condition`: an `Exit` out of the region with its operands (the `scf` rule
  that ran the region decides what they become).

A terminator without a rule (`func.return`, `util.return`) is executed as an ordinary op: it ends
the function by raising the interpreter's own exception. A block ending in anything else is an
error, and so is a jump to a block that does not exist or with the wrong number of arguments.

The `scf` ops are rules of `REGION_RULES`, registered into `runtime.host_ops`'s `HOST_RULES` and
`runtime.reference`'s `REFERENCE_RULES` alike, so both interpreters give them one meaning:

* `scf.for %lb, %ub, %step, %init...`: the body runs for `iv = lb, lb + step, ...` while
  `iv < ub` (unsigned with `unsignedCmp`), with arguments `(iv, iter_args...)`; its `scf.yield`
  gives the next iter_args; the results are the last ones (the inits for a zero-trip loop). A step
  that is not positive fails the run (INVALID_ARGUMENT), as it would never end;
* `scf.if %c`: the then region or, when `%c` is false, the else region (none: no results);
* `scf.while %init...`: the before region (arguments: the inits, then what the after region
  yields) ends in `scf.condition(%c) %args...`; while `%c` holds the after region runs on
  `%args`, else `%args` are the results;
* `scf.execute_region`: its one region (it may have several blocks), once;
* `scf.index_switch %i`: the region of the case equal to `%i` (`cases`), else the default (the
  first region).

A loop runs as long as its program says (an `scf.while` whose condition always holds does not
end, as it would not in IREE).

Each rule talks to the interpreter through a `Machine`: `value` reads an SSA value, `execute` runs
one op that does not transfer control (`run_ops` several), `bind` binds values (block arguments,
iter_args, results) and says which SSA value each came from (so the executor's race detector can
hand on what it carries: `runtime.gates`), `decide` reads a value the host branches or loops on
(for the race detector a use: the host cannot choose its path before the value exists). Values
defined in a block are bound again each time it runs; every binding replaces the previous one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from runtime.status import ExecutionError, Status, StatusCode
from stream.dialect.scf_cf import case_values
from stream.ir.attributes import DenseArrayAttr
from stream.ir.core import Block, Location, Op, Region, Value
from stream.ir.diagnostics import DiagnosticError
from stream.ir.rule_table import OpSet, RuleTable
from stream.ir.types import IntegerType

__all__ = ["Machine", "Jump", "Exit", "TRANSFER_RULES", "REGION_RULES", "CONTROL_OPS", "run_blocks", "run_region", "MAX_LOOP_TRIPS"]

# The most iterations one run of a loop may make (an `scf.for` or `scf.while`, or the backward
# jumps of one run of a multi-block region: every cycle of blocks has one). A simulated device
# makes some 25,000 iterations a second, so a loop bound taken from a huge input would otherwise
# run for days; past the limit the run fails (RESOURCE_EXHAUSTED) naming the loop.
# `streamproof run --max-trips N` changes it.
MAX_LOOP_TRIPS = 100_000


def _too_many_trips(what: str, location: Location) -> ExecutionError:
    return ExecutionError(Status(StatusCode.RESOURCE_EXHAUSTED,
                                 f"{what} ran {MAX_LOOP_TRIPS} iterations (streamproof's limit, MAX_LOOP_TRIPS; "
                                 "`streamproof run --max-trips N` raises it)", str(location)))


class Machine(Protocol):
    """What the control-flow rules need of an interpreter (an activation of a function)."""

    def value(self, v: Value) -> Any:
        """The run-time value `v` is bound to now (a diagnostic when it is not bound)."""
        ...

    def execute(self, op: Op) -> None:
        """Run one op that does not transfer control (a region op runs its regions itself)."""
        ...

    def run_ops(self, ops: Sequence[Op]) -> None:
        """`execute` each of `ops` in order (a block without its terminator: the hot loop)."""
        ...

    def bind(self, targets: Sequence[Value], values: Sequence[Any], sources: Sequence[Value | None]) -> None:
        """Bind `targets[i]` to `values[i]`, which is the value of SSA value `sources[i]` (None:
        a value of its own, such as an induction variable); all at once, replacing old bindings."""
        ...

    def decide(self, v: Value) -> Any:
        """The value of `v`, which the host branches or loops on."""
        ...


@dataclass(frozen=True, slots=True)
class Jump:
    """Control goes to block `block` of the enclosing region with `operands` as its arguments."""

    block: int
    operands: tuple[Value, ...]


@dataclass(frozen=True, slots=True)
class Exit:
    """Control leaves the region at terminator `op` (`scf.yield`, `scf.condition`) with `operands`."""

    op: Op
    operands: tuple[Value, ...]


Transfer = Callable[[Machine, Op], Jump | Exit]
RegionRule = Callable[[Machine, Op], None]


def _segments(op: Op, name: str, count: int) -> tuple[int, ...]:
    attr = op.properties.get(name)
    if not isinstance(attr, DenseArrayAttr) or len(attr.values) != count or sum(int(v) for v in attr.values) > len(op.operands):
        raise DiagnosticError.at(op.location, f"'{op.name}' needs {name} with {count} entries that fit its {len(op.operands)} operand(s)")
    return tuple(int(v) for v in attr.values)


def _successor(op: Op, i: int) -> int:
    if i >= len(op.successors):
        raise DiagnosticError.at(op.location, f"'{op.name}' needs {i + 1} successor block(s), it has {len(op.successors)}")
    return op.successors[i]


def _br(m: Machine, op: Op) -> Jump:
    return Jump(_successor(op, 0), op.operands)


def _cond_br(m: Machine, op: Op) -> Jump:
    if "operandSegmentSizes" in op.properties:
        _, n_true, n_false = _segments(op, "operandSegmentSizes", 3)
    elif len(op.operands) == 1:
        n_true = n_false = 0
    else:
        raise DiagnosticError.at(op.location, "'cf.cond_br' with successor operands needs operandSegmentSizes")
    if bool(m.decide(op.operands[0])):
        return Jump(_successor(op, 0), op.operands[1 : 1 + n_true])
    return Jump(_successor(op, 1), op.operands[1 + n_true : 1 + n_true + n_false])


def _switch(m: Machine, op: Op) -> Jump:
    _, n_default, _ = _segments(op, "operandSegmentSizes", 3)
    cases = case_values(op, "case_values")
    sizes = _segments(op, "case_operand_segments", len(cases)) if cases else ()
    flag = int(m.decide(op.operands[0]))
    start = 1 + n_default
    for i, (case, size) in enumerate(zip(cases, sizes)):
        if _same_int(flag, case, op.operands[0]):
            return Jump(_successor(op, 1 + i), op.operands[start : start + size])
        start += size
    return Jump(_successor(op, 0), op.operands[1 : 1 + n_default])


def _same_int(a: int, b: int, v: Value) -> bool:
    """Whether two integers are the same value of `v`'s type (a case value may be written unsigned)."""
    t = v.type
    if isinstance(t, IntegerType):
        mask = (1 << t.width) - 1
        return a & mask == b & mask
    return a == b


def _exit(m: Machine, op: Op) -> Exit:
    return Exit(op, op.operands)


TRANSFER_RULES: RuleTable[Transfer] = RuleTable(
    "TRANSFER_RULES",
    """Where the terminator sends control (`fn(machine, op) -> Jump | Exit`): a `Jump` to a block
    of the enclosing region with the values of its arguments, or an `Exit` out of the region with
    the values its region op gets. A terminator without one (a return) is executed as an ordinary
    op, which ends the function.""",
    policy="identity",
    entries=dict[str, Transfer]({"cf.br": _br, "cf.cond_br": _cond_br, "cf.switch": _switch, "scf.yield": _exit,
                                 "scf.condition": _exit}),
)


def run_blocks(m: Machine, region: Region, what: str, location: Location) -> Exit:
    """Run `region` from its entry block, whose arguments are already bound, until a terminator
    leaves it (returned as an `Exit`) or a return op raises the interpreter's exception. `what`
    names the region in diagnostics ("@f", "region 0 of scf.for at f.mlir:3:5"), `location` is
    its op's."""
    blocks = region.blocks
    if not blocks:
        raise DiagnosticError.at(location, f"{what} has no blocks to run")
    block: Block = blocks[0]
    index, back = 0, 0
    while True:
        ops = block.ops
        if not ops:
            raise DiagnosticError.at(location, f"a block of {what} is empty (it needs a terminator)")
        m.run_ops(ops[:-1])
        term = ops[-1]
        rule = TRANSFER_RULES.get(term.name)
        if rule is None:
            m.execute(term)  # a return raises; anything else leaves the block without a terminator
            raise DiagnosticError.at(term.location, f"{what} does not end: a block ends with '{term.name}', not a terminator")
        transfer = rule(m, term)
        if isinstance(transfer, Exit):
            return transfer
        if not 0 <= transfer.block < len(blocks):
            raise DiagnosticError.at(term.location, f"'{term.name}' jumps to block {transfer.block}; {what} has {len(blocks)}")
        if transfer.block <= index:
            back += 1
            if back > MAX_LOOP_TRIPS:
                raise _too_many_trips(f"a loop of {what} (the jump to block {transfer.block})", term.location)
        index = transfer.block
        block = blocks[transfer.block]
        if len(transfer.operands) != len(block.arguments):
            raise DiagnosticError.at(term.location, f"'{term.name}' passes {len(transfer.operands)} value(s) to a block of {len(block.arguments)} argument(s)")
        m.bind(block.arguments, [m.value(v) for v in transfer.operands], transfer.operands)


def run_region(m: Machine, op: Op, index: int, values: Sequence[Any], sources: Sequence[Value | None], exit_name: str) -> Exit:
    """Run region `index` of region op `op` with `values` (of `sources`) as its entry block's
    arguments, until an `exit_name` terminator (`scf.yield`, `scf.condition`) leaves it."""
    region = op.regions[index]
    what = f"region {index} of {op.name} at {op.location}"
    if not region.blocks:
        raise DiagnosticError.at(op.location, f"{what} has no blocks to run")
    entry = region.blocks[0]
    if len(values) != len(entry.arguments):
        raise DiagnosticError.at(op.location, f"{what} takes {len(entry.arguments)} argument(s), {len(values)} given")
    m.bind(entry.arguments, values, sources)
    out = run_blocks(m, region, what, op.location)
    if out.op.name != exit_name:
        raise DiagnosticError.at(out.op.location, f"{what} ends with '{out.op.name}', not '{exit_name}'")
    return out


def _finish(m: Machine, op: Op, operands: Sequence[Value]) -> None:
    """Bind the results of region op `op` to the values of `operands` (what its region yielded)."""
    _bind_results(m, op, [m.value(v) for v in operands], operands)


def _bind_results(m: Machine, op: Op, values: Sequence[Any], sources: Sequence[Value]) -> None:
    if len(values) != len(op.results):
        raise DiagnosticError.at(op.location, f"'{op.name}' has {len(op.results)} result(s), its region gives {len(values)}")
    m.bind(op.results, values, sources)


def _as_int(value: Any, v: Value, unsigned: bool) -> int:
    n = int(value)
    t = v.type
    if unsigned and isinstance(t, IntegerType):
        n &= (1 << t.width) - 1
    return n


def _as_typed(n: int, v: Value) -> int:
    """An unsigned-compared induction value as a value of `v`'s (signless) type."""
    t = v.type
    if isinstance(t, IntegerType) and t.signedness != "u" and n >> (t.width - 1):
        return n - (1 << t.width)
    return n


def _for(m: Machine, op: Op) -> None:
    if len(op.operands) < 3:
        raise DiagnosticError.at(op.location, "'scf.for' needs a lower bound, an upper bound and a step")
    unsigned = "unsignedCmp" in op.properties
    lb, ub, step = (_as_int(m.decide(v), v, unsigned) for v in op.operands[:3])
    if step <= 0:
        raise ExecutionError(Status(StatusCode.INVALID_ARGUMENT, f"scf.for: the step must be positive, it is {step}",
                                    f"scf.for at {op.location}"))
    iv_value = op.operands[0]
    sources: Sequence[Value] = op.operands[3:]
    values = [m.value(v) for v in sources]
    iv, trips = lb, 0
    while iv < ub:
        trips += 1
        if trips > MAX_LOOP_TRIPS:
            raise _too_many_trips("this scf.for", op.location)
        out = run_region(m, op, 0, [_as_typed(iv, iv_value) if unsigned else iv, *values], [None, *sources], "scf.yield")
        sources = out.operands
        values = [m.value(v) for v in sources]
        iv += step
    _bind_results(m, op, values, sources)


def _if(m: Machine, op: Op) -> None:
    taken = 0 if bool(m.decide(op.operands[0])) else 1
    if taken >= len(op.regions) or not op.regions[taken].blocks:
        if op.results:
            raise DiagnosticError.at(op.location, "'scf.if' with results needs an else region")
        return
    _finish(m, op, run_region(m, op, taken, (), (), "scf.yield").operands)


def _while(m: Machine, op: Op) -> None:
    sources: Sequence[Value] = op.operands
    values = [m.value(v) for v in sources]
    trips = 0
    while True:
        cond = run_region(m, op, 0, values, sources, "scf.condition")
        if not cond.operands:
            raise DiagnosticError.at(cond.op.location, "'scf.condition' needs a condition")
        sources = cond.operands[1:]
        values = [m.value(v) for v in sources]
        if not bool(m.decide(cond.operands[0])):
            break
        trips += 1
        if trips > MAX_LOOP_TRIPS:
            raise _too_many_trips("this scf.while", op.location)
        sources = run_region(m, op, 1, values, sources, "scf.yield").operands
        values = [m.value(v) for v in sources]
    _bind_results(m, op, values, sources)


def _execute_region(m: Machine, op: Op) -> None:
    _finish(m, op, run_region(m, op, 0, (), (), "scf.yield").operands)


def _index_switch(m: Machine, op: Op) -> None:
    index = int(m.decide(op.operands[0]))
    cases = case_values(op, "cases")
    taken = 1 + cases.index(index) if index in cases else 0
    if taken >= len(op.regions):
        raise DiagnosticError.at(op.location, f"'scf.index_switch' has {len(op.regions)} region(s) for {len(cases)} case(s)")
    _finish(m, op, run_region(m, op, taken, (), (), "scf.yield").operands)


REGION_RULES: RuleTable[RegionRule] = RuleTable(
    "REGION_RULES",
    """Run the structured control-flow op (`fn(machine, op)`): read its operands, run its regions
    with `run_region` as its semantics says, bind its results to what the last region run
    yielded. `runtime.host_ops` and `runtime.reference` register every entry in their own tables,
    so an op without one is refused by both.""",
    policy="identity",
    entries={"scf.for": _for, "scf.if": _if, "scf.while": _while, "scf.execute_region": _execute_region,
             "scf.index_switch": _index_switch},
)

CONTROL_OPS = OpSet(
    "CONTROL_OPS",
    "Ops that only move values between blocks and regions (the region ops and the terminators above): "
    "they hand on what their operands carry and use nothing themselves but the values they decide on.",
    {*TRANSFER_RULES, *REGION_RULES},
)
