"""Race candidates by frontiers (verify/frontier.py): every pair of accesses the quadratic sweep
would give that reachability does not order is among the frontier's pairs (so no race is
missed), the frontier gives one check per access on an ordered chain (linear), and the pruned
mode (frontiers) and the full mode (every pair, Z3 over the raw event graph) agree on random long
chains and wide waves through one buffer, with and without a missing wait."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stream.ir.parser import parse_module
from stream.ir.walk import functions
from verify import verify_module
from verify.frontier import conflict_pairs
from verify.hb import HappensBefore
from verify.model import build_model
from verify.race_obligations import sweep_pairs

SIZE = 64


def _program(seed: int, regions: int, width: int, fanin: int, drop: int | None) -> str:
    """`regions` execute regions on one buffer; each awaits up to `fanin` earlier ones (the
    previous one always, unless it is `drop`) and holds a wave of `width` dispatches (concurrent)
    or a serial list, on random 16-byte-aligned ranges with random modes."""
    rng = random.Random(seed)
    lines = ["util.func public @f(%arg: !stream.resource<external>) -> !stream.resource<external> {",
             "  %t0 = stream.timepoint.immediate => !stream.timepoint",
             f"  %size = arith.constant {SIZE} : index"]
    consts = {f"%c{k}": k for k in (0, 16, 32, 48, 64)}
    lines += [f"  {name} = arith.constant {k} : index" for name, k in consts.items()]
    for r in range(1, regions + 1):
        waits = {r - 1} if r - 1 != drop else set()
        waits |= {rng.randrange(0, r) for _ in range(rng.randrange(0, fanin + 1))} - ({r - 1} if r - 1 == drop else set())
        waits = waits or {0}
        if len(waits) == 1:
            tp = f"%t{waits.pop()}"
        else:
            tp = f"%j{r}"
            lines.append(f"  {tp} = stream.timepoint.join max({', '.join(f'%t{w}' for w in sorted(waits))}) => !stream.timepoint")
        lines.append(f"  %t{r} = stream.cmd.execute await({tp}) => with(%arg as %a: !stream.resource<external>{{%size}}) {{")
        wave = rng.random() < 0.5
        if wave:
            lines.append("    stream.cmd.concurrent {")
        for _ in range(width):
            lo = rng.choice((0, 16, 32, 48))
            length = rng.choice([n for n in (16, 32, 48, 64) if lo + n <= SIZE])
            mode = rng.choice(("ro", "wo", "rw"))
            lines.append(f"      stream.cmd.dispatch @ex::@k {{\n        {mode} %a[%c{lo} for %c{length}] : !stream.resource<external>{{%size}}\n      }}")
        if wave:
            lines.append("    }")
        lines.append("  } => !stream.timepoint")
    lines.append(f"  %done = stream.timepoint.await %t{regions} => %arg : !stream.resource<external>{{%size}}")
    lines.append("  util.return %done : !stream.resource<external>\n}")
    return "\n".join(lines) + "\n"


PROGRAMS = dict(seed=st.integers(0, 10_000), regions=st.integers(1, 40), width=st.integers(1, 6), fanin=st.integers(0, 3),
                drop=st.one_of(st.none(), st.integers(0, 39)))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(**PROGRAMS)
def test_every_unordered_conflicting_pair_is_a_frontier_pair(seed: int, regions: int, width: int, fanin: int, drop: int | None) -> None:
    model = build_model(functions(parse_module(_program(seed, regions, width, fanin, drop), "f.mlir"))[0])
    hb = HappensBefore(model.graph)
    accesses = [a for a in model.accesses if a.mode and a.alloc.value.name_hint == "arg" and a.length.const > 0]
    frontier = {frozenset((x.id, y.id)) for x, y in conflict_pairs(accesses, hb)}
    for x, y in sweep_pairs(accesses, full=False):
        if x.site is y.site or not hb.ordered(x.site, y.site):
            assert frozenset((x.id, y.id)) in frontier, (x.site.name, y.site.name)


# The full mode sends every pair to Z3 over the raw event graph: smaller programs keep it quick
# (the frontier's completeness is tested on larger ones above, without Z3).
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), regions=st.integers(1, 12), width=st.integers(1, 4), fanin=st.integers(0, 2),
       drop=st.one_of(st.none(), st.integers(0, 11)))
def test_pruned_and_full_modes_agree_on_long_chains_and_wide_waves(seed: int, regions: int, width: int, fanin: int,
                                                                    drop: int | None) -> None:
    module = parse_module(_program(seed, regions, width, fanin, drop), "f.mlir")
    pruned = verify_module(module, smt="pruned", witnesses=0)
    full = verify_module(module, smt="full", witnesses=0)

    def found(report):  # type: ignore[no-untyped-def]
        return {(v.cls, tuple(sorted(str(o.location) for o in v.ops))) for v in report.violations}

    assert found(pruned) == found(full)
    assert pruned.status == full.status


def test_an_ordered_chain_is_one_check_per_access() -> None:
    # 300 regions, each one read-modify-write of the whole buffer awaiting the one before: the
    # quadratic sweep has 300 * 299 / 2 pairs; the frontier checks each access once.
    model = build_model(functions(parse_module(_program(1, 300, 1, 0, None).replace("ro %a", "rw %a").replace("wo %a", "rw %a"),
                                               "f.mlir"))[0])
    hb = HappensBefore(model.graph)
    accesses = [a for a in model.accesses if a.mode and a.site.op.name == "stream.cmd.dispatch"]
    assert len(accesses) == 300
    assert list(conflict_pairs(accesses, hb)) == []
    report = verify_module(parse_module(_program(1, 300, 1, 0, None), "f.mlir"))
    assert report.ok and report.stats.obligations < 2000, report.stats
