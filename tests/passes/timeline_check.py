"""An independent, deliberately naive happens-before check for the cmd-level pass tests.

`HappensBefore(block)` answers "is timepoint (or device op) `a` certainly finished before `b`
starts?" by a depth-first search over the edges of SPEC section 3.1 in one straight-line block:
an op waits for its `await` operand, a join for its inputs, and every op issued after a host
wait waits for what that wait waited for. `stream.timepoint.await` is pure: a `sync` one is a host
wait where it stands; a plain one orders only what uses its results (through subviews, barriers,
casts and other awaits): each such timeline op (execute, alloca, dealloca) waits for it itself,
a pure host op (an export, an async load or store) and scalar arithmetic are ordered alone and
hand it on to their results, and the first other host op is where the host waits. No bitsets,
no caching tricks: slow and obviously right, so it can check the passes' own coverage analysis.
"""

from __future__ import annotations

from stream.ir.core import Block, Module, Op, Value
from stream.ir.spec import spec_of
from stream.ir.walk import functions

WAITING_OPS = {"stream.cmd.execute", "stream.async.execute", "stream.resource.alloca", "stream.resource.dealloca"}
# Ops that hand an awaited resource on without using it (written out here, independently of
# stream.dialect.awaits).
PURE_HOST = {"stream.tensor.export", "stream.async.load", "stream.async.store", "stream.tensor.load", "stream.tensor.store"}
PASS_THROUGH = {"stream.timepoint.await", "stream.resource.subview", "stream.timepoint.barrier", "stream.async.barrier",
                "stream.async.cast"}


def _scalar_arith(op: Op) -> bool:
    """Pure arithmetic on scalars: it orders nothing, a value computed from an awaited one is
    still only available after the await."""
    return op.name.split(".")[0] in ("arith", "math", "index") and not any(
        str(v.type).startswith("!stream.resource") for v in (*op.operands, *op.results))


def awaits(op: Op) -> list[Value]:
    if op.name == "stream.timepoint.join":
        return list(op.operands)
    spec = spec_of(op)
    if spec is not None and "await_timepoint" in spec._operand_index:
        return list(spec.operand_group(op, "await_timepoint"))
    return []


class HappensBefore:
    """`select_side` (True/False) evaluates every `arith.select` of timepoints as if its
    condition had that value; None leaves selects opaque (covering only themselves)."""

    def __init__(self, block: Block, select_side: bool | None = None) -> None:
        self.block = block
        self.select_side = select_side
        self.producer: dict[Value, Op] = {}
        self.position: dict[Op, int] = {}
        self.host_waits: list[tuple[int, Value]] = []
        self.extra_waits: dict[Op, list[Value]] = {}  # timeline ops and barriers: awaited values they use
        self.carried: dict[Value, list[Value]] = {}  # a value derived from an await's results -> its timepoint
        ops = block.ops
        for i, op in enumerate(ops):
            self.position[op] = i
            for r in op.results:
                self.producer[r] = op
        for i, op in enumerate(ops):
            if op.name != "stream.timepoint.await":
                continue
            (t,) = awaits(op)
            if op.properties.get("sync") is not None:
                self.host_waits.append((i, t))
                continue
            derived = set(op.results)
            for later in ops[i + 1 :]:
                if not any(v in derived for inner in later.walk() for v in inner.operands):
                    continue
                if later.name in PASS_THROUGH and later.properties.get("sync") is None:
                    if later.name == "stream.timepoint.barrier":
                        self.extra_waits.setdefault(later, []).append(t)
                    derived |= {r for r in later.results if str(r.type).startswith("!stream.resource")}
                    continue
                if later.name in WAITING_OPS:
                    self.extra_waits.setdefault(later, []).append(t)
                    continue
                if later.name in PURE_HOST or _scalar_arith(later):  # ordered itself, its results carry it on
                    derived |= set(later.results)
                    continue
                self.host_waits.append((self.position[later], t))  # the first host consumer with effects
                break
            for v in derived:
                self.carried.setdefault(v, []).append(t)

    def _predecessors(self, t: Value) -> list[Value]:
        """Timepoints that are reached before `t` is, by one edge."""
        op = self.producer.get(t)
        if op is None:
            return []
        if op.name == "arith.select" and self.select_side is not None:
            return [op.operands[1] if self.select_side else op.operands[2]]
        preds = list(awaits(op)) + self.extra_waits.get(op, [])
        if op.name in WAITING_OPS or op.name == "stream.resource.constants":
            # Issued after every earlier host await.
            preds += [w for i, w in self.host_waits if i < self.position[op]]
        return preds

    def reached_before(self, a: Value, t: Value) -> bool:
        """`a` is reached whenever `t` is."""
        seen: set[int] = set()
        stack = [t]
        while stack:
            v = stack.pop()
            if v is a:
                return True
            if id(v) in seen:
                continue
            seen.add(id(v))
            op = self.producer.get(v)
            if op is not None and op.name == "stream.timepoint.immediate" and a is v:
                return True
            stack.extend(self._predecessors(v))
        producer = self.producer.get(a)
        return producer is not None and producer.name == "stream.timepoint.immediate"

    def finished_before_start(self, a: Value, op: Op) -> bool:
        """Timepoint `a` is reached before `op` starts: through its awaits or a host await
        issued before it."""
        if any(self.reached_before(a, w) for w in awaits(op) + self.extra_waits.get(op, [])):
            return True
        return any(i < self.position[op] and self.reached_before(a, w) for i, w in self.host_waits)


def _flatten(block: Block, t: Value) -> list[Value]:
    joins = {op.results[0]: op for op in block.ops if op.name == "stream.timepoint.join"}
    if t in joins:
        return [v for x in joins[t].operands for v in _flatten(block, x)]
    return [t]


def check_no_redundant_wait(module: Module) -> None:
    """No op waits for a timepoint another of its waits (or an earlier host await) implies."""
    for f in functions(module):
        hb = HappensBefore(f.body)
        for op in f.body.ops:
            if op.name not in WAITING_OPS and op.name != "stream.timepoint.await":
                continue
            candidates = [v for w in awaits(op) for v in _flatten(f.body, w)]
            for i, c in enumerate(candidates):
                for j, other in enumerate(candidates):
                    assert i == j or not hb.reached_before(c, other), f"@{f.name}: {op.name} at {op.location} waits for a covered timepoint"
                host = [w for p, w in hb.host_waits if p < hb.position[op]] + hb.extra_waits.get(op, [])
                if op.name == "stream.timepoint.await":  # what its resources already carry
                    host += [w for v in op.operands for w in hb.carried.get(v, [])]
                assert not any(hb.reached_before(c, w) for w in host) or op.properties.get("sync") is not None, \
                    f"@{f.name}: {op.name} at {op.location} waits for what the host already awaited"
