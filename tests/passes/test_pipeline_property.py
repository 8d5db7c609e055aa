"""Random input-level programs through the whole default pipeline, every pass verified.

`tests/strategies.py` builds acyclic programs by construction (shapes static and dynamic, one or
two devices, transfers, in-place ties, slices, updates, splats, constants), so every rejection
is a bug in a pass or in the verifier. After compiling, the schedule is executed on the runtime
and compared with the reference interpreter: the proofs and the executor check each other.
"""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from strategies import RandomProgram, programs

import stream.ir as ir
from runtime.api import run_module
from runtime.reference import run_reference
from stream.passes import DEFAULT_PIPELINE, PassVerificationError, parse_pipeline, run_pipeline
from verify.hook import install

PIPELINE = parse_pipeline(",".join(DEFAULT_PIPELINE))


def _inputs(p: RandomProgram, seed: int) -> list[object]:
    rng = np.random.default_rng(seed)
    index = p.index_values()
    out: list[object] = []
    for a in p.args:
        if a.kind == "index":
            out.append(a.value)
        else:
            out.append(rng.standard_normal(a.concrete_shape(index)).astype(np.float32))
    return out


@settings(max_examples=int(__import__("os").environ.get("PIPELINE_EXAMPLES", "40")), deadline=None, suppress_health_check=list(HealthCheck))
@given(programs(max_ops=24, devices=("dev0", "dev1", "dev2")))
def test_random_programs_compile_with_every_pass_verified(p: RandomProgram) -> None:
    install()
    module = ir.parse_module(p.text, "random.mlir")
    try:
        compiled, records = run_pipeline(module, PIPELINE, verify="each")
    except PassVerificationError as e:
        raise AssertionError(f"{e.pass_name} rejected on a random program:\n{e}\n{p.text}") from None
    assert [r.name for r in records] == list(DEFAULT_PIPELINE)
    assert all(r.report is not None for r in records)
    expected = run_reference(module, [np.copy(x) if isinstance(x, np.ndarray) else x for x in _inputs(p, 0)], p.function)
    got = run_module(compiled, _inputs(p, 0), function=p.function, driver="sync")
    assert len(got.results) == len(expected)
    for g, e in zip(got.results, expected):
        np.testing.assert_allclose(np.asarray(g), np.asarray(e), rtol=1e-5, atol=1e-6)
