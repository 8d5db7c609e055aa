"""What the runtime works out once per op (placements, operand groups, constants, dispatch
templates, a function's level and ABI) lives in one prepared program per module
(`runtime.program.Program`), which goes when the module goes: nothing in the runtime keeps a
program's ops alive after the program is dropped, and nothing is looked up by `id(op)` (an id
a freed op's successor may reuse)."""

from __future__ import annotations

import gc
import sys

import numpy as np
import pytest
from rt_support import HERE, parse

from runtime import run_module
from runtime.kernels import DEFAULT_REGISTRY, KernelRegistry
from runtime.program import Program, prepared
from stream.ir.walk import functions

TEXT = (HERE / "programs" / "all_commands.mlir").read_text()
X = np.array([-2.0, -0.5, 0.25, 3.0], dtype=np.float32)


def _refcounts(module_text: str, run: bool, driver: str) -> list[int]:
    """The reference counts of every op of a module after it was (or was not) run and then
    dropped: only this list and the walk's own references remain when nothing else keeps them."""
    module = parse(module_text)
    ops = [op for top in module.ops for op in top.walk()]
    if run:
        result = run_module(module, [X], driver=driver)
        np.testing.assert_array_equal(result.results[0], np.maximum(X + 1, 0))
        del result
    del module
    gc.collect()
    return [sys.getrefcount(op) for op in ops]


@pytest.mark.parametrize("driver", ["sync", "task"])
def test_a_dropped_program_leaves_nothing_behind_in_the_runtime(driver: str) -> None:
    """Run a module, drop it: every op's reference count is what it is for the same module
    parsed and dropped without running (before the prepared program, the runtime's per-op
    caches kept every op it had met, up to 200,000 of them per cache, and two caches without
    any bound)."""
    assert _refcounts(TEXT, True, driver) == _refcounts(TEXT, False, driver)


def test_runs_of_one_module_share_its_prepared_program_and_other_modules_get_their_own() -> None:
    a, b = parse(TEXT), parse(TEXT)
    program = prepared(a)
    assert prepared(a) is program and prepared(b) is not program
    run_module(a, [X], driver="sync")
    filled = len(program.groups), len(program.places), len(program.templates)
    assert all(filled), filled
    run_module(a, [X], driver="sync")  # the second run prepares nothing new
    assert (len(program.groups), len(program.places), len(program.templates)) == filled
    f = functions(a)[0]
    assert program.level(f) == "cmd" and program.async_abi(f) is False


def test_the_prepared_program_goes_with_its_module() -> None:
    module = parse(TEXT)
    run_module(module, [X], driver="sync")
    before = Program.live()
    del module
    gc.collect()
    assert Program.live() == before - 1


def test_a_template_is_remade_when_the_kernel_registry_changes() -> None:
    """Templates resolve a dispatch's kernel: re-registering a kernel (a new registry
    generation) or running with another registry must not reuse the old one."""
    module = parse(TEXT)
    reg = KernelRegistry(DEFAULT_REGISTRY)
    run_module(module, [X], driver="sync", kernels=reg)
    reg.register("relu", lambda x, out: out.__setitem__(slice(None), -7.0))
    result = run_module(module, [X], driver="sync", kernels=reg)
    np.testing.assert_array_equal(result.results[0], np.full(4, -7.0, np.float32))
    result = run_module(module, [X], driver="sync")
    np.testing.assert_array_equal(result.results[0], np.maximum(X + 1, 0))


def test_the_element_type_check_runs_once_per_module_and_a_refusal_every_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """`check_holdable` walks everything a function calls (most of a 1000-dispatch run when it
    ran on every run): it runs on a module's first run only; a refusal is never remembered."""
    import runtime.api
    from stream.ir.diagnostics import DiagnosticError

    calls: list[str] = []
    real = runtime.api.check_holdable

    def counting(module, function):  # type: ignore[no-untyped-def]
        calls.append(function)
        real(module, function)

    monkeypatch.setattr(runtime.api, "check_holdable", counting)
    module = parse(TEXT)
    for _ in range(3):
        run_module(module, [X], driver="sync")
    assert calls == ["f"]
    bad = parse(TEXT.replace("%one = arith.constant 1065353216 : i32", "%one = arith.constant 1065353216 : i32\n  %bad = arith.constant 1.0 : bf16"))
    for _ in range(2):
        with pytest.raises(DiagnosticError, match="bf16"):
            run_module(bad, [X], driver="sync")
    assert calls == ["f", "f", "f"]
