"""Mutation operators of the kill-rate self-test (issue 9, "Keep it true").

Each operator takes a proved program and yields `(description, mutant)`; every mutant breaks one
ordering fact the program relied on. The class of the mutation says which verifier class must
reject it (`MutationClass.predicted`); `must_kill` classes are non-equivalent by construction
(nothing else orders what the mutation unordered), so no survivor is excused for them.

| class | what changes | predicted |
|---|---|---|
| `drop-await` | a device op (execute, alloca, dealloca, ...) stops awaiting its timepoint, or a host await disappears (its users take the un-awaited values) | an ordering class |
| `drop-join-input` | one input of a `timepoint.join` is removed | an ordering class |
| `unawaited-export` | the first consumer of a host await's results, an export or return, uses the value the await was given instead (the await stays, dead) | MISSED_WAIT |
| `unawaited-later-export` | the same for an export after the first consumer (an export is pure: the first consumer, itself an export, does not make the host wait for the later one) | MISSED_WAIT |
| `dealloca-before-last-use` | a dealloca moves before the last execute that uses its resource, awaiting what that execute awaits | USE_AFTER_FREE |
| `drop-wait-fence` | a region stops (transitively) awaiting the coarse-fences ABI's imported wait fence | MISSED_WAIT |
| `into-wave` | a command that shares a resource with the one before it moves into a `cmd.concurrent` wave with it | a race class |
| `async-into-wave` | an op that uses a result of an `async.concurrent` wave moves into the wave (capturing what it reads) | a race class |
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from stream.ir.attributes import DenseArrayAttr
from stream.ir.core import Block, Module, Op, Region, Value
from stream.ir.spec import spec_of
from stream.ir.walk import Function, functions, replace_function

Mutant = tuple[str, Module]
RACES = frozenset({"RACE_READ_AFTER_WRITE", "RACE_WRITE_AFTER_READ", "RACE_WRITE_AFTER_WRITE", "MISSED_WAIT"})
ORDERING = RACES | {"USE_BEFORE_ALLOC", "USE_AFTER_FREE"}
METADATA = frozenset({"stream.resource.size", "stream.resource.is_terminal"})  # not a use of the value (IREE folds them)
EXPORTS = frozenset({"stream.tensor.export", "stream.resource.export", "util.return", "func.return"})


def substitute(ops: tuple[Op, ...], mapping: dict[Value, Value], only: Op | None = None) -> tuple[Op, ...]:
    """`ops` with every use of a key of `mapping` replaced (nested regions included); with
    `only`, in that op alone."""
    out = []
    for op in ops:
        if only is None or op is only:
            operands = tuple(mapping.get(v, v) for v in op.operands)
            if operands != op.operands:
                op = op.replace(operands=operands)
        if op.regions:
            regions = tuple(Region(tuple(Block(b.arguments, substitute(b.ops, mapping, only)) for b in r.blocks)) for r in op.regions)
            op = op.replace(regions=regions)
        out.append(op)
    return tuple(out)


def _with_body(module: Module, f: Function, ops: tuple[Op, ...]) -> Module:
    return replace_function(module, f.with_body(ops))


def _awaits(op: Op) -> tuple[Value, ...]:
    """The optional `await(...)` of a device op (execute, alloca, dealloca, ...); not the
    timepoint operand of host ops (`timepoint.await`, `chain_external`), which cannot go."""
    spec = spec_of(op)
    if spec is None or "await_timepoint" not in spec._operand_index \
            or spec.operands[spec._operand_index["await_timepoint"]].arity != "optional":
        return ()
    return spec.operand_group(op, "await_timepoint")


def _drop_operand(op: Op, group: str, index: int = 0) -> Op:
    """`op` without value `index` of an operand group (segment sizes updated)."""
    spec = spec_of(op)
    assert spec is not None
    start = spec.operand_offset(op, group) + index
    props = dict(op.properties)
    if spec.segmented:
        sizes = list(spec.operand_sizes(op))
        sizes[spec._operand_index[group]] -= 1
        segments = props["operandSegmentSizes"]
        assert isinstance(segments, DenseArrayAttr)
        props["operandSegmentSizes"] = DenseArrayAttr(segments.element_type, tuple(sizes))
    return op.replace(operands=op.operands[:start] + op.operands[start + 1:], properties=props)


def _set_await(op: Op, timepoint: Value | None) -> Op:
    """`op` awaiting `timepoint` instead of what it awaited (nothing when None)."""
    if not _awaits(op):
        return op
    if timepoint is None:
        return _drop_operand(op, "await_timepoint")
    spec = spec_of(op)
    assert spec is not None
    start = spec.operand_offset(op, "await_timepoint")
    return op.replace(operands=op.operands[:start] + (timepoint,) + op.operands[start + 1:])


def drop_await(module: Module) -> Iterator[Mutant]:
    for f in functions(module):
        waits = _wait_fences(f)
        ops = f.body.ops
        for i, op in enumerate(ops):
            if set(op.operands) & waits:
                continue  # awaits of a wait fence are drop-wait-fence's (the executor cannot see them: its fences are immediate)
            if op.name == "stream.timepoint.await":
                mapping = dict(zip(op.results, op.operands))
                yield f"drop the host await at {op.location}", _with_body(module, f, ops[:i] + substitute(ops[i + 1:], mapping))
            elif _awaits(op):
                yield f"drop the await of {op.name} at {op.location}", _with_body(module, f, ops[:i] + (_set_await(op, None),) + ops[i + 1:])


def drop_join_input(module: Module) -> Iterator[Mutant]:
    for f in functions(module):
        ops = f.body.ops
        for i, op in enumerate(ops):
            if op.name == "stream.timepoint.join" and len(op.operands) >= 2:
                for k in range(len(op.operands)):
                    new = op.replace(operands=op.operands[:k] + op.operands[k + 1:])
                    yield f"drop input #{k} of the join at {op.location}", _with_body(module, f, ops[:i] + (new,) + ops[i + 1:])


def _users(ops: tuple[Op, ...], value: Value) -> list[Op]:
    return [op for top in ops for op in top.walk() if value in op.operands]


def _unawaited_exports(module: Module, first: bool) -> Iterator[Mutant]:
    """Exports that take the value an await was given instead of its result: with `first`, only
    where the export was the await's first consumer (then nothing orders it: a MISSED_WAIT);
    otherwise only where another op used a result of the await before it (exports are pure, IREE
    may move them above the await: nothing orders them either, docs/VERIFIER.md)."""
    for f in functions(module):
        ops = f.body.ops
        for i, op in enumerate(ops):
            if op.name != "stream.timepoint.await":
                continue
            mapping = dict(zip(op.results, op.operands))
            consumers = [k for k in range(i + 1, len(ops))
                         if ops[k].name not in METADATA and any(set(x.operands) & set(op.results) for x in ops[k].walk())]
            for k in consumers:
                for user in ops[k].walk():
                    if user.name in EXPORTS and set(user.operands) & set(op.results) and (k == consumers[0]) == first:
                        mutant = _with_body(module, f, ops[: i + 1] + substitute(ops[i + 1:], mapping, only=user))
                        yield f"{user.name} at {user.location} uses the value the await at {op.location} was given", mutant


def unawaited_export(module: Module) -> Iterator[Mutant]:
    return _unawaited_exports(module, first=True)


def unawaited_later_export(module: Module) -> Iterator[Mutant]:
    return _unawaited_exports(module, first=False)


def dealloca_before_last_use(module: Module) -> Iterator[Mutant]:
    for f in functions(module):
        ops = f.body.ops
        for i, op in enumerate(ops):
            if op.name != "stream.resource.dealloca" or not _awaits(op):
                continue
            resource = op.operands[0]  # dealloca(operand, operand_size, await_timepoint?)
            users = [k for k in range(i) if ops[k].name in ("stream.cmd.execute", "stream.async.execute") and resource in ops[k].operands]
            if not users:
                continue
            k = users[-1]
            before = _awaits(ops[k])
            moved = _set_await(op, before[0] if before else None)
            if any(v in ops[k].results for v in moved.operands):
                continue
            body = ops[:k] + (moved,) + ops[k:i] + ops[i + 1:]
            yield f"dealloca at {op.location} moved before the execute at {ops[k].location}", _with_body(module, f, body)


def _wait_fences(f: Function) -> set[Value]:
    """The imported timepoints of fences the function does not signal (coarse-fences waits)."""
    signalled = {v for op in f.body.ops if op.name == "stream.timepoint.chain_external" for v in op.operands[1:]}
    return {op.results[0] for op in f.body.ops if op.name == "stream.timepoint.import"
            and op.operands and op.operands[0] in f.arguments and op.operands[0] not in signalled}


def drop_wait_fence(module: Module) -> Iterator[Mutant]:
    for f in functions(module):
        waits = _wait_fences(f)
        ops = f.body.ops
        for i, op in enumerate(ops):
            if op.name == "stream.timepoint.join":
                for k, v in enumerate(op.operands):
                    if v in waits and len(op.operands) >= 2:
                        new = op.replace(operands=op.operands[:k] + op.operands[k + 1:])
                        yield f"the join at {op.location} drops the wait fence", _with_body(module, f, ops[:i] + (new,) + ops[i + 1:])
            elif op.name == "stream.timepoint.await" and set(op.operands) & waits:
                mapping = dict(zip(op.results, op.operands))
                yield f"drop the host await of the wait fence at {op.location}", \
                    _with_body(module, f, ops[:i] + substitute(ops[i + 1:], mapping))
            elif set(_awaits(op)) & waits:
                yield f"{op.name} at {op.location} stops awaiting the wait fence", _with_body(module, f, ops[:i] + (_set_await(op, None),) + ops[i + 1:])


def _resources(op: Op) -> set[Value]:
    return {v for o in op.walk() for v in o.operands if "resource" in str(v.type)}


def into_wave(module: Module) -> Iterator[Mutant]:
    for f in functions(module):
        ops = f.body.ops
        for i, op in enumerate(ops):
            if op.name != "stream.cmd.execute":
                continue
            body = op.regions[0].blocks[0]
            children = [c for c in body.ops if c.name != "stream.yield"]
            for k in range(len(children) - 1):
                a, b = children[k], children[k + 1]
                if not _resources(a) & _resources(b):
                    continue
                parts = [c for x in (a, b) for c in (x.regions[0].blocks[0].ops if x.name == "stream.cmd.concurrent" else (x,))
                         if c.name != "stream.yield"]
                wave = Op("stream.cmd.concurrent", regions=(Region.of((), (*parts, Op("stream.yield"))),), location=a.location)
                at = body.ops.index(a)
                new_body = body.ops[:at] + (wave,) + body.ops[at + 2:]
                new_exec = op.replace(regions=(Region.of(body.arguments, new_body),))
                yield f"{b.name} at {b.location} joins {a.name} at {a.location} in one wave", \
                    _with_body(module, f, ops[:i] + (new_exec,) + ops[i + 1:])


def _size_of(v: Value, execute: Op) -> Value | None:
    """The size an execute region gives a resource it captures (None for other values)."""
    block = execute.regions[0].blocks[0]
    if v not in block.arguments:
        return None
    spec = spec_of(execute)
    assert spec is not None
    return spec.operand_group(execute, "resource_operand_sizes")[block.arguments.index(v)]


def _result_sizes(op: Op) -> tuple[Value, ...] | None:
    spec = spec_of(op)
    if spec is None:
        return None
    for group in ("result_sizes", "result_size", "target_size"):
        if group in spec._operand_index:
            sizes = spec.operand_group(op, group)
            return sizes if len(sizes) == len(op.results) else None
    return None


def _join_wave(execute: Op, wave: Op, b: Op) -> tuple[Op, dict[Value, Value]] | None:
    """`wave` with `b` (which uses its results) moved inside, capturing what `b` reads from the
    region; with the map from old results (the wave's and `b`'s) to the new wave's."""
    spec, block = spec_of(wave), wave.regions[0].blocks[0]
    assert spec is not None
    yield_op = block.ops[-1]
    yspec = spec_of(yield_op)
    b_sizes = _result_sizes(b)
    if yspec is None or b_sizes is None:
        return None
    captured = list(spec.operand_group(wave, "resource_operands"))
    capture_sizes = list(spec.operand_group(wave, "resource_operand_sizes"))
    args = list(block.arguments)
    yielded = yspec.operand_group(yield_op, "resource_operands")
    inner: dict[Value, Value] = dict(zip(wave.results, yielded))
    for v in b.operands:
        if v in inner or "resource" not in str(v.type):
            continue
        if v in captured:
            inner[v] = args[captured.index(v)]
            continue
        size = _size_of(v, execute)
        if size is None:
            return None
        captured.append(v)
        capture_sizes.append(size)
        args.append(Value(v.type, "captured"))
        inner[v] = args[-1]
    moved = b.replace(operands=tuple(inner.get(v, v) for v in b.operands))
    new_yield = yspec.build(operands={"resource_operands": (*yielded, *b.results),
                                      "resource_operand_sizes": (*yspec.operand_group(yield_op, "resource_operand_sizes"), *b_sizes)},
                            location=yield_op.location)
    attrs = {k: v for k, v in wave.properties.items() if k not in ("operandSegmentSizes", "resultSegmentSizes")}
    new_wave = spec.build(
        operands={"resource_operands": tuple(captured), "resource_operand_sizes": tuple(capture_sizes),
                  "result_sizes": (*spec.operand_group(wave, "result_sizes"), *b_sizes)},
        results={"results": tuple(r.type for r in (*wave.results, *b.results))},
        attrs=attrs, regions=(Region.of(tuple(args), (*block.ops[:-1], moved, new_yield)),), location=wave.location)
    return new_wave, dict(zip((*wave.results, *b.results), new_wave.results))


def async_into_wave(module: Module) -> Iterator[Mutant]:
    """An op that uses a result of an `async.concurrent` wave moves into that wave."""
    for f in functions(module):
        ops = f.body.ops
        for i, ex in enumerate(ops):
            if ex.name != "stream.async.execute":
                continue
            body = ex.regions[0].blocks[0]
            for k in range(len(body.ops) - 1):
                wave, b = body.ops[k], body.ops[k + 1]
                if wave.name != "stream.async.concurrent" or b.name == "stream.yield" or not set(b.operands) & set(wave.results):
                    continue
                joined = _join_wave(ex, wave, b)
                if joined is None:
                    continue
                new_wave, outer = joined
                new_body = (*body.ops[:k], new_wave, *substitute(body.ops[k + 2:], outer))
                new_ex = ex.replace(regions=(Region.of(body.arguments, tuple(new_body)),))
                yield f"{b.name} at {b.location} moves into the wave at {wave.location}", \
                    _with_body(module, f, ops[:i] + (new_ex,) + ops[i + 1:])


@dataclass(frozen=True)
class MutationClass:
    operator: Callable[[Module], Iterator[Mutant]]
    predicted: frozenset[str]
    must_kill: bool = False  # non-equivalent by construction: a survivor is a verifier hole


CLASSES: dict[str, MutationClass] = {
    "drop-await": MutationClass(drop_await, ORDERING),
    "drop-join-input": MutationClass(drop_join_input, ORDERING),
    "unawaited-export": MutationClass(unawaited_export, frozenset({"MISSED_WAIT"}), must_kill=True),
    "unawaited-later-export": MutationClass(unawaited_later_export, frozenset({"MISSED_WAIT"}), must_kill=True),
    "dealloca-before-last-use": MutationClass(dealloca_before_last_use, frozenset({"USE_AFTER_FREE"}), must_kill=True),
    "drop-wait-fence": MutationClass(drop_wait_fence, frozenset({"MISSED_WAIT"}), must_kill=True),
    "into-wave": MutationClass(into_wave, RACES),
    "async-into-wave": MutationClass(async_into_wave, RACES, must_kill=True),
}
