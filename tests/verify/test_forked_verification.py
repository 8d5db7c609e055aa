"""`run_pipeline(..., jobs=N)`: pass outputs verified in forked processes prove what a serial run
proves, record the same passes and fail at the same pass, with the same error."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import CORPUS, ROOT, parse
from mutations import drop_await

import stream.ir as ir
import verify.hook as hook
from stream.ir.core import Module
from stream.passes import (
    DEFAULT_PIPELINE,
    PASSES,
    PassVerificationError,
    forked_verification,
    parse_pipeline,
    register_pass,
    run_pipeline,
)

pytestmark = pytest.mark.skipif(not forked_verification.available(), reason="needs os.fork")

GOOD = parse((CORPUS / "cmd_serial_ok.mlir").read_text(), "good.mlir")


@pytest.fixture
def broken_passes():  # type: ignore[no-untyped-def]
    @register_pass("test-fork-drop-await")
    def drop(module: Module) -> Module:
        """Drop the await of the first execute region (a broken pass, for tests)."""
        return next(m for d, m, _ in drop_await(module) if "cmd.execute" in d)

    @register_pass("test-fork-raise")
    def explode(module: Module) -> Module:
        """A transform that crashes (for tests)."""
        raise RuntimeError("transform crashed")

    yield
    del PASSES["test-fork-drop-await"], PASSES["test-fork-raise"]


def _compile(path: Path, jobs: int) -> tuple[Module, list]:  # type: ignore[type-arg]
    module = ir.parse_module(path.read_text(), path.name)
    return run_pipeline(module, parse_pipeline(",".join(DEFAULT_PIPELINE)), hook=hook.make_hook(), jobs=jobs)


@pytest.mark.parametrize("example", ["mlp.mlir", "decode_loop.mlir"])
def test_forked_verification_proves_every_pass_as_a_serial_run_does(example: str) -> None:
    serial_out, serial = _compile(ROOT / "examples" / example, jobs=1)
    forked_out, forked = _compile(ROOT / "examples" / example, jobs=3)
    assert [r.name for r in forked] == [r.name for r in serial] == list(DEFAULT_PIPELINE)
    assert all(r.report is not None and r.report.ok for r in forked)
    assert [r.report.status for r in forked] == [r.report.status for r in serial]
    assert ir.print_module(forked_out) == ir.print_module(serial_out)
    # Each report came back from a child: its module is the parent's own output of that pass.
    assert all(r.report.module is r.output for r in forked)
    assert all(r.verify_seconds > 0 for r in forked)


@pytest.mark.usefixtures("broken_passes")
def test_the_first_unproved_pass_fails_with_the_serial_error_and_records() -> None:
    pipeline = parse_pipeline("elide-timepoints,test-fork-drop-await,elide-timepoints")
    seen: list[str] = []
    with pytest.raises(PassVerificationError) as serial:
        run_pipeline(GOOD, pipeline, hook=hook.make_hook(), jobs=1)
    with pytest.raises(PassVerificationError) as forked:
        run_pipeline(GOOD, pipeline, hook=hook.make_hook(), jobs=2, after_pass=lambda name, m: seen.append(name))
    s, f = serial.value, forked.value
    assert f.pass_name == s.pass_name == "test-fork-drop-await"
    assert str(f) == str(s) and f.report.exit_code == s.report.exit_code == 1
    assert [r.name for r in f.records] == [r.name for r in s.records] == ["elide-timepoints"]
    assert f.failed is not None and f.failed.name == "test-fork-drop-await"
    assert f.report.errors and all(v.evidence is not None for v in f.report.errors)  # the full report, from the parent
    assert seen == ["elide-timepoints"]  # nothing after the failing pass is reported as done


@pytest.mark.usefixtures("broken_passes")
def test_a_crash_after_an_unproved_pass_reports_the_unproved_pass() -> None:
    """Serially the crash never happens: the pipeline stops at the unproved pass before it."""
    pipeline = parse_pipeline("elide-timepoints,test-fork-drop-await,test-fork-raise")  # the first is proved in-process
    with pytest.raises(PassVerificationError) as caught:
        run_pipeline(GOOD, pipeline, hook=hook.make_hook(), jobs=2)
    assert caught.value.pass_name == "test-fork-drop-await"
    with pytest.raises(RuntimeError, match="transform crashed"):
        run_pipeline(GOOD, parse_pipeline("elide-timepoints,test-fork-raise"), hook=hook.make_hook(), jobs=2)


def test_a_child_that_dies_is_verified_again_in_process() -> None:
    parent = os.getpid()
    real = hook.make_hook()
    calls: list[str] = []

    def dying(before: Module, after: Module, name: str):  # type: ignore[no-untyped-def]
        if os.getpid() != parent:
            os._exit(7)  # the child dies without writing anything
        calls.append(name)
        return real(before, after, name)

    pipeline = parse_pipeline("elide-timepoints,elide-timepoints,elide-timepoints")
    out, records = run_pipeline(GOOD, pipeline, hook=dying, jobs=2)
    assert calls == ["elide-timepoints"] * 3  # the first in-process, the others after their child died
    assert all(r.report.ok for r in records)


def test_compile_jobs_on_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from streamproof.cli import main

    example = str(ROOT / "examples" / "mlp.mlir")
    assert main(["compile", example, "-o", str(tmp_path / "serial.mlir")]) == 0
    assert main(["compile", example, "--jobs", "2", "-o", str(tmp_path / "forked.mlir")]) == 0
    assert (tmp_path / "forked.mlir").read_text() == (tmp_path / "serial.mlir").read_text()
    assert "12 passes proved" in capsys.readouterr().err
    assert main(["compile", example, "--jobs", "0", "-o", str(tmp_path / "none.mlir")]) == 2
    assert "--jobs must be a positive integer" in capsys.readouterr().err
    assert not (tmp_path / "none.mlir").exists()


def test_run_jobs_compiles_with_forked_proofs(capsys: pytest.CaptureFixture[str]) -> None:
    from streamproof.cli import main

    example = str(ROOT / "examples" / "mlp.mlir")
    assert main(["run", example, "--check", "--jobs", "2"]) == 0
    assert "check result[0]: ok" in capsys.readouterr().err
    assert main(["run", example, "--jobs", "0"]) == 2
    assert "--jobs must be an integer >= 1" in capsys.readouterr().err
