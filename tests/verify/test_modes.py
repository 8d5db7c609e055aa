"""`--smt=pruned` and `--smt=full` agree on every program (SPEC §5, §8).

The pruned mode decides orderings by reachability (verify.hb) and constant ranges by integer
arithmetic; the full mode sends every obligation, orderings included, to Z3 over the raw event
graph. They share nothing but the obligations, so agreement on random programs (with and without
injected bugs) checks the reachability engine, the constant folding and the pruning of
candidate pairs against an independent oracle.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st

from stream.ir.diagnostics import DiagnosticError
from stream.ir.parser import parse_module
from verify import verify_module
from verify.synth import FAULTS, cmd_program


def findings(report) -> set[tuple[str, str, tuple[str, ...]]]:  # type: ignore[no-untyped-def]
    return {(v.cls, v.function, tuple(sorted(str(o.location) for o in v.ops))) for v in report.violations}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(2, 14),
    devices=st.integers(1, 2),
    width=st.integers(1, 3),
    per_region=st.integers(2, 6),
    seed=st.integers(0, 10_000),
    faults=st.dictionaries(st.sampled_from(FAULTS), st.integers(1, 2), max_size=2),
    symbolic=st.booleans(),
)
def test_modes_agree_on_random_schedules(
    n: int, devices: int, width: int, per_region: int, seed: int, faults: dict[str, int], symbolic: bool
) -> None:
    synth = cmd_program(n, devices=devices, width=width, per_region=per_region, seed=seed, faults=faults, symbolic=symbolic)
    module = parse_module(synth.text, "synth.mlir")
    pruned = verify_module(module, smt="pruned", witnesses=0)
    full = verify_module(module, smt="full", witnesses=0)
    assert not pruned.unknowns and not full.unknowns
    assert findings(pruned) == findings(full)
    if not synth.faults:
        assert pruned.ok, pruned.text()


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_modes_agree_on_compiled_random_programs(data: st.DataObject) -> None:
    from strategies import programs

    from stream.passes import DEFAULT_PIPELINE, parse_pipeline, run_pipeline

    program = data.draw(programs(max_ops=5))
    module = parse_module(program.text, "random.mlir")
    try:
        _, records = run_pipeline(module, parse_pipeline(",".join(DEFAULT_PIPELINE)), verify="none")
    except DiagnosticError:  # a pass refusing a program is not what this test is about
        reject()
    for stage in [r.output for r in records if r.output is not None]:
        pruned = verify_module(stage, smt="pruned", witnesses=0)
        full = verify_module(stage, smt="full", witnesses=0)
        assert findings(pruned) == findings(full)
        assert pruned.status == full.status


@pytest.mark.parametrize(
    "fault, cls",
    [("drop-await", "MISSED_WAIT"), ("early-free", "USE_AFTER_FREE"), ("same-slice", "RACE_WRITE_AFTER_WRITE"), ("no-alloca-wait", "USE_BEFORE_ALLOC")],
)
def test_injected_faults_are_found_with_their_class(fault: str, cls: str) -> None:
    clean = verify_module(parse_module(cmd_program(40, width=3, seed=3).text, "clean.mlir"))
    assert clean.ok
    synth = cmd_program(40, width=3, seed=3, faults={fault: 1})
    report = verify_module(parse_module(synth.text, "faulty.mlir"))
    assert cls in report.classes, report.text()
