"""TimepointCoverage: joins, selects (intersection), host awaits, immediates; checked against a
naive search on random timelines."""

from __future__ import annotations

import random
import tracemalloc

from hypothesis import given, settings
from hypothesis import strategies as st
from timeline_check import HappensBefore

import stream.ir as ir
from stream.analysis.timepoint_coverage import TimepointCoverage
from stream.ir.core import Block, Value
from stream.ir.walk import functions


def block_of(body: str, args: str = "") -> Block:
    module = ir.parse_module(f"util.func public @f({args}) {{\n{body}\n  util.return\n}}\n", "t.mlir")
    return functions(module)[0].body


def named(block: Block) -> dict[str, Value]:
    out: dict[str, Value] = {}
    for v in list(block.arguments) + [r for op in block.ops for r in op.results]:
        if v.name_hint:
            out[v.name_hint] = v
    return out


TIMELINE = """
  %c64 = arith.constant 64 : index
  %a, %at = stream.resource.alloca uninitialized : !stream.resource<transient>{%c64} => !stream.timepoint
  %b, %bt = stream.resource.alloca uninitialized : !stream.resource<transient>{%c64} => !stream.timepoint
  %j = stream.timepoint.join max(%at, %bt) => !stream.timepoint
  %d = stream.resource.dealloca await(%j) => %a : !stream.resource<transient>{%c64} => !stream.timepoint
  %i = stream.timepoint.immediate => !stream.timepoint
  %ji = stream.timepoint.join max(%i, %i) => !stream.timepoint
  %s_one = arith.select %c, %d, %bt : !stream.timepoint
  %s_both = arith.select %c, %d, %j : !stream.timepoint
  %w = stream.timepoint.await sync %at => %b : !stream.resource<transient>{%c64}
  %late, %latet = stream.resource.alloca uninitialized : !stream.resource<transient>{%c64} => !stream.timepoint
"""


def test_join_and_timeline_ops_cover_what_they_wait_for() -> None:
    block = block_of(TIMELINE, "%c: i1, %ext: !stream.timepoint")
    c, v = TimepointCoverage.of(block), named(block)
    assert c.covers(v["j"], v["at"]) and c.covers(v["j"], v["bt"])
    assert c.covers(v["d"], v["at"]) and c.covers(v["d"], v["j"])
    assert not c.covers(v["at"], v["bt"]) and not c.covers(v["at"], v["d"])
    assert c.covers(v["at"], v["at"])
    assert not c.covers(v["d"], v["ext"])  # an argument covers only itself


def test_immediates_are_covered_by_everything() -> None:
    block = block_of(TIMELINE, "%c: i1, %ext: !stream.timepoint")
    c, v = TimepointCoverage.of(block), named(block)
    assert {v["i"], v["ji"]} <= c.immediate
    assert c.covers(v["ext"], v["i"]) and c.covers(v["at"], v["ji"])
    assert c.roots([v["i"], v["at"], v["ji"]]) == [v["at"]]


def test_select_takes_the_intersection() -> None:
    block = block_of(TIMELINE, "%c: i1, %ext: !stream.timepoint")
    c, v = TimepointCoverage.of(block), named(block)
    # %s_one is %d (covers %at) or %bt (does not): %at is not guaranteed.
    assert not c.covers(v["s_one"], v["at"])
    # %s_both is %d or %j, both of which cover %at and %bt.
    assert c.covers(v["s_both"], v["at"]) and c.covers(v["s_both"], v["bt"])
    assert not c.covers(v["s_both"], v["d"])
    assert c.covers(v["s_one"], v["bt"])  # %d covers %bt through %j, and %bt is itself


def test_host_awaits_cover_later_ops() -> None:
    block = block_of(TIMELINE, "%c: i1, %ext: !stream.timepoint")
    c, v = TimepointCoverage.of(block), named(block)
    late = next(op for op in block.ops if op.results and op.results[0] is v["late"])
    position = c.position[late]
    assert c.host_covered(position, v["at"])
    assert not c.host_covered(position, v["bt"])
    assert not c.host_covered(c.position[late] - 1, v["at"])  # not before the await itself
    assert c.covers(v["latet"], v["at"])  # issued after the host wait
    assert c.roots([v["at"], v["bt"]], position) == [v["bt"]]


def test_roots_keep_order_and_drop_duplicates() -> None:
    block = block_of(TIMELINE, "%c: i1, %ext: !stream.timepoint")
    c, v = TimepointCoverage.of(block), named(block)
    assert c.roots([v["bt"], v["at"], v["bt"], v["j"]]) == [v["j"]]
    assert c.roots([v["ext"], v["bt"], v["at"]]) == [v["ext"], v["bt"], v["at"]]


def random_timeline(seed: int, n: int, extras: bool = False) -> str:
    """Allocas and frees awaiting random joins of earlier timepoints, with a few host awaits.
    With `extras`, also immediates, opaque barriers and the argument `%ext` among the timepoints
    (the block needs `%c: i1, %ext: !stream.timepoint`)."""
    rng = random.Random(seed)
    lines = ["  %c64 = arith.constant 64 : index"]
    tps: list[str] = ["%ext"] if extras else []
    resources: list[str] = []
    for i in range(n):
        kind = rng.random()
        if extras and kind < 0.12:
            if kind < 0.06 or not resources:
                lines.append(f"  %i{i} = stream.timepoint.immediate => !stream.timepoint")
                tps.append(f"%i{i}")
            else:
                lines.append(f"  %b{i}, %bt{i} = stream.timepoint.barrier {resources[-1]} : !stream.resource<transient>{{%c64}} => !stream.timepoint")
                tps.append(f"%bt{i}")
            continue
        waits = rng.sample(tps, k=min(len(tps), rng.randint(0, 3)))
        if len(waits) > 1:
            lines.append(f"  %j{i} = stream.timepoint.join max({', '.join(waits)}) => !stream.timepoint")
            waits = [f"%j{i}"]
            tps.append(f"%j{i}")
        await_ = f"await({waits[0]}) => " if waits else ": "
        if kind < 0.15 and resources and tps:
            # A `sync` await orders the host; a plain one nobody uses orders nothing (it is pure).
            sync = "sync " if rng.random() < 0.5 else ""
            lines.append(f"  %h{i} = stream.timepoint.await {sync}{rng.choice(tps)} => {resources[-1]} : !stream.resource<transient>{{%c64}}")
        elif kind < 0.3 and resources:
            r = resources.pop(rng.randrange(len(resources)))
            lines.append(f"  %d{i} = stream.resource.dealloca {await_[:-4] if waits else ''}{'=> ' if waits else ''}{r} : !stream.resource<transient>{{%c64}} => !stream.timepoint")
            tps.append(f"%d{i}")
        elif kind < 0.4 and len(tps) >= 2:
            a, b = rng.sample(tps, 2)
            lines.append(f"  %s{i} = arith.select %c, {a}, {b} : !stream.timepoint")
            tps.append(f"%s{i}")
        else:
            lines.append(f"  %r{i}, %t{i} = stream.resource.alloca uninitialized {await_ if waits else ': '}!stream.resource<transient>{{%c64}} => !stream.timepoint".replace(": : ", ": "))
            tps.append(f"%t{i}")
            resources.append(f"%r{i}")
    return "\n".join(lines)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 25))
def test_coverage_agrees_with_a_naive_search(seed: int, n: int) -> None:
    """The bitset analysis against a naive search of each world: every coverage it claims holds
    whichever way the selects go (soundness), and without selects it claims exactly what the
    search finds (precision)."""
    block = block_of(random_timeline(seed, n), "%c: i1")
    c = TimepointCoverage.of(block)
    worlds = [HappensBefore(block, side) for side in (True, False)]
    has_select = any(op.name == "arith.select" for op in block.ops)
    tps = [r for op in block.ops for r in op.results if str(r.type) == "!stream.timepoint"]
    for a in tps:
        for b in tps:
            reached = [hb.reached_before(b, a) for hb in worlds]
            if c.covers(a, b):
                assert all(reached), (a, b)
            elif not has_select:
                assert not any(reached), (a, b)


def long_timeline(regions: int) -> str:
    """`regions` regions alternating between two devices, each waiting for the previous one on
    its device, with a region-local slab and a result allocation each (after ARC: frees too)."""
    lines = ["util.func public @long(%in0: !stream.resource<external>, %in1: !stream.resource<external>) -> !stream.resource<external> {",
             "  %c0 = arith.constant 0 : index", "  %c64 = arith.constant 64 : index"]
    last = {0: ("%in0", ""), 1: ("%in1", "")}
    for r in range(regions):
        source, tp = last[r % 2]
        waits = f"await({tp}) => " if tp else ""
        lines += [
            f"  %r{r}, %t{r} = stream.async.execute on(#hal.device.affinity<@dev{r % 2}>) {waits}with({source} as %a{r}: !stream.resource<external>{{%c64}}) -> !stream.resource<external>{{%c64}} {{",
            f"    %x{r} = stream.async.dispatch @ex::@f(%a{r}[%c0 to %c64 for %c64]) : (!stream.resource<external>{{%c64}}) -> !stream.resource<transient>{{%c64}}",
            f"    %y{r} = stream.async.dispatch @ex::@g(%x{r}[%c0 to %c64 for %c64]) : (!stream.resource<transient>{{%c64}}) -> !stream.resource<external>{{%c64}}",
            f"    stream.yield %y{r} : !stream.resource<external>{{%c64}}",
            "  } => !stream.timepoint",
        ]
        last[r % 2] = (f"%r{r}", f"%t{r}")
    value, tp = last[(regions - 1) % 2]
    lines += [f"  %o = stream.timepoint.await {tp} => {value} : !stream.resource<external>{{%c64}}", "  util.return %o : !stream.resource<external>", "}"]
    return "\n".join(lines)


def dangling_timeline(steps: int) -> str:
    """A spine of steps, each allocating three buffers after the previous step, joining them and
    freeing one, with a side branch per step (another free and the join of its last uses) that
    only the function's final join waits for: the shape of the bench program after ARC, where
    side branches used to carry the chain decomposition off the spine (one new chain per step,
    reached by every later timepoint)."""
    res = "!stream.resource<transient>{%c64}"
    lines = ["util.func public @f() {", "  %c64 = arith.constant 64 : index",
             f"  %r, %t = stream.resource.alloca uninitialized : {res} => !stream.timepoint"]
    prev, side = "%t", []
    for i in range(steps):
        allocs = []
        for k in range(3):
            lines.append(f"  %a{i}_{k}, %at{i}_{k} = stream.resource.alloca uninitialized await({prev}) => {res} => !stream.timepoint")
            allocs.append(f"%at{i}_{k}")
        lines += [
            f"  %j{i} = stream.timepoint.join max({prev}, {', '.join(allocs)}) => !stream.timepoint",
            f"  %e{i} = stream.resource.dealloca await(%j{i}) => %a{i}_0 : {res} => !stream.timepoint",
            f"  %d{i} = stream.resource.dealloca await(%e{i}) => %a{i}_1 : {res} => !stream.timepoint",
            f"  %s{i} = stream.timepoint.join max(%d{i}, %e{i}) => !stream.timepoint",
        ]
        side.append(f"%s{i}")
        prev = f"%e{i}"
    lines += [f"  %end = stream.timepoint.join max({', '.join(side)}) => !stream.timepoint",
              f"  %w = stream.timepoint.await %end => %r : {res}", "  util.return", "}"]
    return "\n".join(lines) + "\n"


def _bytes_per_timepoint(block: Block) -> float:
    tracemalloc.start()
    try:
        coverage = TimepointCoverage.of(block)  # alive while measured
        size = tracemalloc.get_traced_memory()[0]
        del coverage
    finally:
        tracemalloc.stop()
    return size / len([r for op in block.ops for r in op.results if str(r.type) == "!stream.timepoint"])


def test_coverage_memory_per_timepoint_does_not_grow_with_the_program() -> None:
    """The coverage of a long program costs the same per timepoint as that of a short one: on
    the side-branch shape the chain decomposition grew by one chain per step, so its memory per
    timepoint grew with the length (7x from 100 to 800 steps)."""
    short, long = (_bytes_per_timepoint(functions(ir.parse_module(dangling_timeline(n), "t.mlir"))[0].body) for n in (100, 800))
    assert long < 1.5 * short


def test_coverage_stays_a_few_intervals_per_timepoint() -> None:
    """What a timepoint covers is mostly its own cover subtree: a handful of intervals, however
    long the pipeline (two devices after ARC) or the side-branch program."""
    from stream.passes.automatic_reference_counting import automatic_reference_counting
    from stream.passes.schedule_allocation import schedule_allocation

    for regions in (20, 200):
        module = automatic_reference_counting(schedule_allocation(ir.parse_module(long_timeline(regions), "t.mlir")))
        c = TimepointCoverage.of(functions(module)[0].body)
        assert max(len(spans) // 2 for spans in c.spans.values()) <= 4
    for steps in (20, 400):
        c = TimepointCoverage.of(functions(ir.parse_module(dangling_timeline(steps), "t.mlir"))[0].body)
        assert max(len(spans) // 2 for spans in c.spans.values()) <= 4


def _definition(block: Block) -> tuple[dict[Value, set[Value]], set[Value], list[tuple[int, set[Value]]]]:
    """The coverage rules of SPEC section 3.1 with plain sets, in program order: cov(t) of every
    timepoint, the immediates, and what the host has awaited before each position."""
    from stream.analysis.timepoint_coverage import awaited_timepoints

    timeline = {"stream.cmd.execute", "stream.async.execute", "stream.resource.alloca", "stream.resource.dealloca", "stream.resource.constants"}
    cov: dict[Value, set[Value]] = {v: {v} for v in block.arguments if str(v.type) == "!stream.timepoint"}
    immediate: set[Value] = set()
    host: set[Value] = set()
    host_after: list[tuple[int, set[Value]]] = []
    for i, op in enumerate(block.ops):
        tps = [r for r in op.results if str(r.type) == "!stream.timepoint"]
        if op.name in timeline:
            covered = set(host).union(*(cov[w] for w in awaited_timepoints(op)))
            for r in tps:
                cov[r] = covered | {r}
        elif op.name == "stream.timepoint.join":
            cov[tps[0]] = {tps[0]}.union(*(cov[v] for v in op.operands))
            if all(v in immediate for v in op.operands):
                immediate.add(tps[0])
        elif op.name == "arith.select" and tps:
            _, a, b = op.operands
            cov[tps[0]] = (cov[a] & cov[b]) | {tps[0]}
            if a in immediate and b in immediate:
                immediate.add(tps[0])
        else:
            for r in tps:
                cov[r] = {r}
            if op.name == "stream.timepoint.immediate":
                immediate.add(tps[0])
        if op.name == "stream.timepoint.await" and op.properties.get("sync") is not None:  # the awaits here are unused
            host = host.union(*(cov[t] for t in awaited_timepoints(op)))
            host_after.append((i + 1, host))
    return cov, immediate, host_after


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 60), st.booleans(), st.randoms(use_true_random=False))
def test_coverage_is_exactly_the_rule_definition(seed: int, n: int, extras: bool, rnd: random.Random) -> None:
    """The interval representation answers exactly what the rules define with plain sets (no
    over-approximation: that would drop needed waits; no under-approximation: that would keep
    redundant ones): `covers` for every pair, `host_covered` at every position, and `roots` of
    random candidate sets."""
    block = block_of(random_timeline(seed, n, extras), "%c: i1, %ext: !stream.timepoint")
    c = TimepointCoverage.of(block)
    cov, immediate, host_after = _definition(block)
    assert c.immediate == immediate
    tps = list(cov)
    for a in tps:
        for b in tps:
            assert c.covers(a, b) == (b in immediate or b in cov[a]), (a, b)

    def host_at(position: int) -> set[Value]:
        seen = [h for after, h in host_after if after <= position]
        return seen[-1] if seen else set()

    for i in range(len(block.ops) + 1):
        for t in tps:
            assert c.host_covered(i, t) == (t in immediate or t in host_at(i)), (i, t)
    for _ in range(20):
        candidates = [rnd.choice(tps) for _ in range(rnd.randint(0, 30))]  # both ways of deciding roots
        position = rnd.choice([None, rnd.randrange(len(block.ops) + 1)])
        unique = [t for t in dict.fromkeys(candidates) if t not in immediate]
        expected = [t for t in unique
                    if not any(o is not t and t in cov[o] for o in unique)
                    and not (position is not None and t in host_at(position))]
        assert c.roots(candidates, position) == expected


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 25), st.randoms(use_true_random=False))
def test_roots_are_the_candidates_no_other_covers(seed: int, n: int, rnd: random.Random) -> None:
    """`roots` (one pass from the latest candidate back, with the union of what the later ones
    cover) keeps exactly the candidates no other candidate covers, and none the host already
    waited for, in their order."""
    block = block_of(random_timeline(seed, n), "%c: i1, %ext: !stream.timepoint")
    c = TimepointCoverage.of(block)
    tps = [r for op in block.ops for r in op.results if str(r.type) == "!stream.timepoint"] + [block.arguments[1]]
    for _ in range(10):
        candidates = [rnd.choice(tps) for _ in range(rnd.randint(0, 8))]
        position = rnd.choice([None, rnd.randrange(len(block.ops) + 1)])
        unique = [t for t in dict.fromkeys(candidates) if t not in c.immediate]
        naive = [t for t in unique
                 if not any(o is not t and c.covers(o, t) for o in unique)
                 and not (position is not None and c.host_covered(position, t))]
        assert c.roots(candidates, position) == naive


def test_roots_do_not_compare_candidates_pairwise(monkeypatch: object) -> None:
    """Many independent candidates (the final join of a long program): each is decided by one
    lookup, not by asking every other candidate (that was quadratic)."""
    import pytest

    n = 300
    body = "\n".join(f"  %r{i}, %t{i} = stream.resource.alloca uninitialized : !stream.resource<transient>{{%c64}} => !stream.timepoint" for i in range(n))
    block = block_of("  %c64 = arith.constant 64 : index\n" + body)
    c, v = TimepointCoverage.of(block), named(block)
    calls = [0]
    real = TimepointCoverage.covers

    def counting(self, a, b):  # type: ignore[no-untyped-def]
        calls[0] += 1
        return real(self, a, b)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(TimepointCoverage, "covers", counting)
        candidates = [v[f"t{i}"] for i in range(n)]
        assert c.roots(candidates) == candidates
    assert calls[0] <= n
