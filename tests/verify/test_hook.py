"""The per-pass hook (verify.hook): blame, pre-existing violations, the copy-on-write rule,
refinement, failing closed, and how `streamproof compile` reports a failed pass."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import CORPUS, parse
from mutations import drop_await

import verify.hook as hook
from stream.ir.core import Location, Module
from stream.passes import DEFAULT_PIPELINE, PASSES, PassVerificationError, parse_pipeline, register_pass, run_pipeline
from streamproof.cli import main

GOOD = parse((CORPUS / "cmd_serial_ok.mlir").read_text(), "good.mlir")
RACY = parse((CORPUS / "cmd_concurrent_raw.mlir").read_text(), "racy.mlir")


@pytest.fixture
def no_refinement(monkeypatch: pytest.MonkeyPatch) -> None:
    """Refinement finds nothing: these tests are about the safety verdicts alone."""
    nothing = SimpleNamespace(mismatches=[], unknowns=[])
    monkeypatch.setattr(hook, "refinement_checker", lambda: lambda before, after, function=None, skip_unchanged=False: nothing)


def broken_by_pass() -> Module:
    """GOOD with its execute no longer awaiting the allocations."""
    return next(m for d, m, _ in drop_await(GOOD) if "cmd.execute" in d)


def test_new_violation_fails_the_pass_and_names_it(no_refinement: None) -> None:
    with pytest.raises(PassVerificationError) as caught:
        hook.make_hook()(GOOD, broken_by_pass(), "my-pass")
    e = caught.value
    assert e.pass_name == "my-pass" and e.report.exit_code == 1
    assert "USE_BEFORE_ALLOC" in str(e) and "introduced by: my-pass" in str(e) and "witness:" in str(e)
    assert all(v.introduced_by == "my-pass" for v in e.report.errors)


def test_clean_output_returns_the_report(no_refinement: None) -> None:
    report = hook.make_hook()(GOOD, GOOD, "my-pass")
    assert report.ok and report.stats.obligations > 0


def test_pre_existing_violation_is_not_blamed(no_refinement: None) -> None:
    report = hook.make_hook()(RACY, RACY, "innocent-pass")
    (v,) = report.violations
    assert v.pre_existing and v.introduced_by is None
    assert "pre-existing: the pass input already has it" in v.text()


def test_borrowed_writes_are_not_binding_before_copy_on_write(no_refinement: None) -> None:
    text = (CORPUS / "async_borrowed_update.mlir").read_text()
    before = parse((CORPUS / "async_borrowed_cloned_ok.mlir").read_text())
    after = parse(text)
    report = hook.make_hook()(before, after, "encode-tensors")  # runs before materialize-copy-on-write
    (v,) = report.violations
    assert v.cls == "BORROWED_INPUT_MUTATED" and v.introduced_by is None and "not yet binding" in v.text()
    with pytest.raises(PassVerificationError, match="introduced by: elide-async-copies"):
        hook.make_hook()(before, after, "elide-async-copies")


def test_undecided_obligation_fails_closed(no_refinement: None) -> None:
    symbolic = parse((CORPUS / "cmd_symbolic_safe.mlir").read_text())
    with pytest.raises(PassVerificationError) as caught:
        hook.make_hook(rlimit=1)(GOOD, symbolic, "my-pass")
    assert caught.value.report.exit_code == 3 and "not proved" in str(caught.value)


def test_malformed_output_fails_the_pass(no_refinement: None) -> None:
    from stream.ir.walk import functions, replace_function

    f = functions(GOOD)[0]
    ops = tuple(op for op in f.body.ops if op.name != "stream.resource.alloca")  # uses of undefined values
    broken = replace_function(GOOD, f.with_body(ops))
    with pytest.raises(PassVerificationError, match="malformed"):
        hook.make_hook()(GOOD, broken, "my-pass")


def test_refinement_mismatch_fails_the_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = []
    mismatch = SimpleNamespace(function="serial_ok", what="result 0 (%r)", byte_range=None, location=Location("good.mlir", 16, 5),
                               op="stream.cmd.dispatch", before="x#1", after="x#2", message="", example={"%n": 3})

    def fake(before: Module, after: Module, function: str | None = None, skip_unchanged: bool = False) -> SimpleNamespace:
        seen.append((before, after))
        return SimpleNamespace(mismatches=[mismatch] if after is not before else [], unknowns=[])

    monkeypatch.setattr(hook, "refinement_checker", lambda: fake)
    assert hook.make_hook()(GOOD, GOOD, "my-pass").ok
    other = parse((CORPUS / "cmd_serial_ok.mlir").read_text(), "good.mlir")
    with pytest.raises(PassVerificationError) as caught:
        hook.make_hook()(GOOD, other, "my-pass")
    assert "VALUE_MISMATCH in @serial_ok: result 0 (%r) differs" in str(caught.value) and "introduced by: my-pass" in str(caught.value)
    assert seen[-1] == (GOOD, other)
    seen.clear()
    hook.make_hook(refinement=False)(GOOD, other, "my-pass")
    assert seen == []


def test_refinement_that_cannot_decide_fails_closed(monkeypatch: pytest.MonkeyPatch) -> None:
    unknown = SimpleNamespace(function="serial_ok", reason="too many cases", location=None)
    monkeypatch.setattr(hook, "refinement_checker", lambda: lambda b, a, f=None, skip_unchanged=False: SimpleNamespace(mismatches=[], unknowns=[unknown]))
    with pytest.raises(PassVerificationError) as caught:
        hook.make_hook()(GOOD, GOOD, "my-pass")
    assert caught.value.report.exit_code == 3 and "too many cases" in str(caught.value)


@pytest.fixture
def breaking_pass(no_refinement: None):  # type: ignore[no-untyped-def]
    @register_pass("test-drop-await")
    def drop(module: Module) -> Module:
        """Drop the await of the first execute region (a broken pass, for tests)."""
        return next(m for d, m, _ in drop_await(module) if "cmd.execute" in d)

    yield "test-drop-await"
    del PASSES["test-drop-await"]


def test_pipeline_given_the_hook_raises(breaking_pass: str) -> None:
    with pytest.raises(PassVerificationError) as caught:
        run_pipeline(GOOD, parse_pipeline(breaking_pass), hook=hook.make_hook())
    assert caught.value.pass_name == breaking_pass


def test_compile_prints_the_counterexample_and_exits_1(breaking_pass: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["compile", str(CORPUS / "cmd_serial_ok.mlir"), f"--pass-pipeline={breaking_pass}"])
    err = capsys.readouterr().err
    assert code == 1
    assert "error: USE_BEFORE_ALLOC" in err and f"introduced by: {breaking_pass}" in err and "internal error" not in err


def test_every_default_pass_verifies_a_real_program(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    program = tmp_path / "mlp.mlir"
    program.write_text("""
func.func @mlp(%x: tensor<8x64xf32>, %w: tensor<64x64xf32>, %w1: tensor<64x64xf32>) -> tensor<8x64xf32> {
  %h = flow.dispatch @matmul(%x, %w) : (tensor<8x64xf32>, tensor<64x64xf32>) -> tensor<8x64xf32>
  %a = flow.dispatch @matmul(%x, %w1) {stream.affinity = #hal.device.affinity<@dev1>} : (tensor<8x64xf32>, tensor<64x64xf32>) -> tensor<8x64xf32>
  %y = flow.dispatch @add(%h, %a) : (tensor<8x64xf32>, tensor<8x64xf32>) -> %h
  return %y : tensor<8x64xf32>
}
""")
    code = main(["compile", str(program), "-o", str(tmp_path / "out.mlir")])
    assert code == 0, capsys.readouterr().err
    assert main(["verify", str(tmp_path / "out.mlir")]) == 0


# Found by tests/passes/test_pipeline_property.py: before copy-on-write, an update whose value is
# tied to its own target aliases two versions of one storage inside one op. That self-overlap is
# a broken tie (rule A2, which copy-on-write establishes), not a scheduling race of encode-tensors.
TWO_UPDATES_OF_ONE_ARGUMENT = """
func.func @main(%arg0: tensor<1x1xf32>) -> tensor<1x1xf32> {
  %c0 = arith.constant 0 : index
  %v1 = flow.dispatch @relu(%arg0) : (tensor<1x1xf32>) -> tensor<1x1xf32>
  %v2 = flow.tensor.update %v1, %arg0[%c0, %c0] : tensor<1x1xf32> -> %arg0 as tensor<1x1xf32>
  %v3 = flow.tensor.update %v2, %arg0[%c0, %c0] : tensor<1x1xf32> -> %arg0 as tensor<1x1xf32>
  return %v3 : tensor<1x1xf32>
}
"""


def test_self_overlap_through_a_tie_is_not_binding_before_copy_on_write() -> None:
    module = parse(TWO_UPDATES_OF_ONE_ARGUMENT, "two_updates.mlir")
    stages = parse_pipeline("convert-to-stream,encode-tensors")
    _, records = run_pipeline(module, stages, hook=hook.make_hook())
    deferred = [v for v in records[-1].report.violations if v.cls == "RACE_READ_AFTER_WRITE"]
    assert deferred and all("not yet binding" in v.text() for v in deferred)
    # The whole pipeline removes the alias (a clone of the argument) and proves every pass.
    _, records = run_pipeline(module, parse_pipeline(",".join(DEFAULT_PIPELINE)), hook=hook.make_hook())
    assert records[-1].report.ok


def test_a_passing_report_does_not_keep_the_function_model(no_refinement: None) -> None:
    """A warning's evidence is the whole function model; the pipeline keeps every pass's report,
    so a passing report drops it (a failing one keeps it for tools)."""
    report = hook.make_hook()(RACY, RACY, "innocent-pass")
    (v,) = report.violations
    assert v.pre_existing and v.evidence is None
    with pytest.raises(PassVerificationError) as caught:
        hook.make_hook()(GOOD, broken_by_pass(), "my-pass")
    assert all(v.evidence is not None for v in caught.value.report.errors)
