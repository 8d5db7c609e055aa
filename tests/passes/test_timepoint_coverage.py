"""TimepointCoverage: joins, selects (intersection), host awaits, immediates; checked against a
naive search on random timelines."""

from __future__ import annotations

import random

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
  %w = stream.timepoint.await %at => %b : !stream.resource<transient>{%c64}
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


def random_timeline(seed: int, n: int) -> str:
    """Allocas and frees awaiting random joins of earlier timepoints, with a few host awaits."""
    rng = random.Random(seed)
    lines = ["  %c64 = arith.constant 64 : index"]
    tps: list[str] = []
    resources: list[str] = []
    for i in range(n):
        kind = rng.random()
        waits = rng.sample(tps, k=min(len(tps), rng.randint(0, 3)))
        if len(waits) > 1:
            lines.append(f"  %j{i} = stream.timepoint.join max({', '.join(waits)}) => !stream.timepoint")
            waits = [f"%j{i}"]
            tps.append(f"%j{i}")
        await_ = f"await({waits[0]}) => " if waits else ": "
        if kind < 0.15 and resources and tps:
            lines.append(f"  %h{i} = stream.timepoint.await {rng.choice(tps)} => {resources[-1]} : !stream.resource<transient>{{%c64}}")
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


def test_chains_stay_as_few_as_the_timeline_is_wide() -> None:
    """Coverage memory must not grow with the length of a pipeline: the chain decomposition keeps
    a handful of chains for two devices however many regions there are."""
    from stream.passes.automatic_reference_counting import automatic_reference_counting
    from stream.passes.schedule_allocation import schedule_allocation

    for regions in (20, 200):
        module = automatic_reference_counting(schedule_allocation(ir.parse_module(long_timeline(regions), "t.mlir")))
        c = TimepointCoverage.of(functions(module)[0].body)
        assert len(c._chain_ends) <= 8
        assert max(len(chains) for chains in c.cov.values()) <= 8


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
