"""schedule-allocation: storage plans that compute the same bytes, compared with IREE's own output."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from concrete_semantics import Fault, assert_refines, infer_arg_sizes, random_inputs, run_function
from hypothesis import HealthCheck, assume, given, settings
from strategies import programs
from verifier_faults import accepted, rejection

import stream.ir as ir
import stream.passes.async_to_cmd as async_to_cmd
import stream.passes.schedule_allocation as sa
from stream.analysis.slab_layout import Slice
from stream.analysis.storage_aliases import StorageForest
from stream.ir.diagnostics import DiagnosticError
from stream.ir.verifier import function_level, verify_structure
from stream.ir.walk import functions
from stream.passes import DEFAULT_PIPELINE, PassVerificationError, parse_pipeline, run_pipeline
from stream.passes.schedule_allocation import schedule_allocation
from verify.hook import make_hook

ROOT = Path(__file__).resolve().parents[2]
IREE = ROOT / "tests" / "data" / "iree"
EXAMPLES = ("b_diamond", "d_inplace", "f_multidevice", "i_multidevice_overlap")
GOLDEN = ROOT / "tests" / "golden" / "schedule_allocation.mlir"
SUBRANGE = ROOT / "tests" / "golden" / "schedule_allocation_subrange.mlir"


def parse(text: str) -> ir.Module:
    return ir.parse_module(text, "test.mlir")


def golden_chunks() -> list[str]:
    return [chunk for chunk, _ in ir.split_input_file(GOLDEN.read_text())]


def check_refinement(module: ir.Module, scalars: dict[int, int] | None = None, seeds: int = 2) -> ir.Module:
    out = schedule_allocation(module)
    verify_structure(out)
    for f in functions(out):
        assert function_level(f.op) in ("cmd", None), f.name
    for f in functions(module):
        sizes = infer_arg_sizes(module, f.name, scalars)
        for seed in range(seeds):
            args = random_inputs(module, f.name, sizes, scalars or {}, seed=seed)
            assert_refines(module, out, f.name, args)
    return out


@pytest.mark.parametrize("example", EXAMPLES)
def test_iree_async_final_refines(example: str) -> None:
    module = parse((IREE / example / "06_async_final.mlir").read_text())
    check_refinement(module, scalars={2: 3})


@pytest.mark.parametrize("index", range(len(golden_chunks()) + 1))
def test_golden_inputs_refine(index: int) -> None:
    chunks = golden_chunks() + [SUBRANGE.read_text()]
    check_refinement(parse(chunks[index]), scalars={1: 192})  # @dynamicSlab's %n


def _allocations(text: str) -> tuple[int, int]:
    """(number of `resource.alloca`, bytes of the statically sized ones) of a printed module."""
    sizes = {m.group(1): int(m.group(2)) for m in re.finditer(r"%(c\d+\w*) = arith.constant (\d+) : index", text)}
    allocas = re.findall(r"stream\.resource\.alloca .*\{%(\w+)\} =>", text)
    return len(allocas), sum(sizes.get(s, 0) for s in allocas)


# IREE 3.13's stage 08 (allocation resolved): allocas and bytes, read off tests/data/iree.
IREE_ALLOCATIONS = {"b_diamond": (2, 65536), "d_inplace": (2, 1536), "f_multidevice": (3, 24576), "i_multidevice_overlap": (4, 28672)}


@pytest.mark.parametrize("example", EXAMPLES)
def test_allocations_match_iree(example: str) -> None:
    iree = _allocations((IREE / example / "08_cmd_final.mlir").read_text())
    assert iree == IREE_ALLOCATIONS[example]
    module = parse((IREE / example / "06_async_final.mlir").read_text())
    ours = _allocations(ir.print_module(schedule_allocation(module)))
    assert ours == iree


def test_input_is_not_mutated() -> None:
    text = (IREE / "b_diamond" / "06_async_final.mlir").read_text()
    module = parse(text)
    before = ir.print_module(module)
    schedule_allocation(module)
    assert ir.print_module(module) == before


def test_overlapping_slab_is_caught_by_the_oracle(monkeypatch: pytest.MonkeyPatch) -> None:
    """A layout that puts every slice at offset 0 computes different bytes: the oracle sees it."""
    module = parse((IREE / "b_diamond" / "06_async_final.mlir").read_text())

    def everything_at_zero(slices: list[Slice], alignment: int) -> tuple[list[int], int]:
        return [0] * len(slices), max(s.size for s in slices)

    monkeypatch.setattr(sa, "layout_slices", everything_at_zero)
    out = schedule_allocation(module)
    args = random_inputs(module, "diamond", infer_arg_sizes(module, "diamond"))
    with pytest.raises(AssertionError, match="differs"):
        assert_refines(module, out, "diamond", args)


def test_wave_order_matters_to_the_oracle() -> None:
    """The oracle runs waves both ways: a wave whose commands depend on each other is caught."""
    module = parse(golden_chunks()[0])
    out = schedule_allocation(module)
    text = ir.print_module(out)
    # Put the four dispatches of @localsShareSlab into one wave: f1 then reads what f0 writes.
    body = text.split("{\n", 2)
    assert len(body) == 3
    bad = re.sub(
        r"(stream\.cmd\.execute .*\{\n)((?:.*\n)*?)(    \} => !stream\.timepoint)",
        lambda m: m.group(1) + "      stream.cmd.concurrent {\n" + m.group(2) + "      }\n" + m.group(3),
        text,
    )
    broken = parse(bad)
    args = random_inputs(module, "localsShareSlab", infer_arg_sizes(module, "localsShareSlab"))
    with pytest.raises(AssertionError, match="reverse_waves=True"):
        assert_refines(module, broken, "localsShareSlab", args)


HOST_UPLOAD = """
util.func public @hostConstant(%arg0: !stream.resource<external>) -> (!stream.resource<external>, !stream.resource<constant>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %k = stream.async.constant on(#hal.device.affinity<@dev0>) : !stream.resource<constant>{%c64} = dense<5> : tensor<64xi8>
  %r, %t = stream.async.execute on(#hal.device.affinity<@dev0>) with(%k as %kk: !stream.resource<constant>{%c64}, %arg0 as %a: !stream.resource<external>{%c64}) -> !stream.resource<external>{%c64} {
    %0 = stream.async.dispatch @ex::@f(%kk[%c0 to %c64 for %c64], %a[%c0 to %c64 for %c64]) : (!stream.resource<constant>{%c64}, !stream.resource<external>{%c64}) -> !stream.resource<external>{%c64}
    stream.yield %0 : !stream.resource<external>{%c64}
  } => !stream.timepoint
  %o = stream.timepoint.await %t => %r : !stream.resource<external>{%c64}
  util.return %o, %k : !stream.resource<external>, !stream.resource<constant>
}
"""


def test_host_level_constant_is_awaited_by_its_users() -> None:
    module = parse(HOST_UPLOAD)
    out = check_refinement(module)
    text = ir.print_module(out)
    upload = re.search(r"(%\w+), (%\w+) = stream\.resource\.constants", text)
    assert upload is not None
    resource, timepoint = upload.groups()
    # The region waits for the upload it reads, and the host waits before returning it.
    assert re.search(rf"stream\.timepoint\.join max\([^)]*{timepoint}", text)
    assert re.search(rf"stream\.timepoint\.await {timepoint} => {resource} ", text)


def test_written_constant_gets_a_private_copy() -> None:
    module = parse(golden_chunks()[6])  # @constants
    out = ir.print_module(schedule_allocation(module))
    # All three uploads are read-only constants; the one written in place is copied first.
    assert out.count("!stream.resource<constant>{%c64} = dense<") == 3
    assert re.search(r"stream\.cmd\.copy %\w+\[%c0\], %\w+\[%c0\], %c64 : !stream\.resource<constant>", out)


def _function(body: str, signature: str = "") -> str:
    return f"util.func public @f({signature}) {{\n{body}\n  util.return\n}}\n"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            _function('  %c0_i8 = arith.constant 0 : i8\n  %c64 = arith.constant 64 : index\n'
                      '  %0 = stream.async.splat %c0_i8 : i8 -> !stream.resource<transient>{%c64}'),
            "'stream.async.splat' must be inside a stream.async.execute region",
        ),
        (
            '"util.func"() <{function_type = (i1) -> (), sym_name = "f"}> ({\n'
            '^bb0(%c: i1):\n  "scf.execute_region"() ({\n    "scf.yield"() : () -> ()\n  }) : () -> ()\n'
            '  %c64 = "arith.constant"() <{value = 64 : index}> : () -> index\n'
            '  %a = "stream.async.alloca"(%c64) : (index) -> !stream.resource<transient>\n'
            '  "util.return"() : () -> ()\n}) : () -> ()\n',
            "'scf.execute_region' control flow is not supported",  # scf.for/scf.if are allocated
        ),
    ],
)
def test_refused_constructs(text: str, message: str) -> None:
    module = parse(text)
    with pytest.raises(DiagnosticError, match=re.escape(message)):
        schedule_allocation(module)


def test_oracle_detects_use_after_free() -> None:
    """The cmd oracle itself: touching freed memory is a fault, not a silent read."""
    text = """
util.func public @f() -> !stream.resource<transient> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c1_i8 = arith.constant 1 : i8
  %r, %t = stream.resource.alloca uninitialized : !stream.resource<transient>{%c16} => !stream.timepoint
  %d = stream.resource.dealloca await(%t) => %r : !stream.resource<transient>{%c16} => !stream.timepoint
  %e = stream.cmd.execute await(%d) => with(%r as %x: !stream.resource<transient>{%c16}) {
    stream.cmd.fill %c1_i8, %x[%c0 for %c16] : i8 -> !stream.resource<transient>{%c16}
  } => !stream.timepoint
  util.return %r : !stream.resource<transient>
}
"""
    with pytest.raises(Fault, match="use after free"):
        run_function(parse(text), "f", [], "cmd")


# -- fault injection: broken variants of the pass must be rejected by the verifier ----------------



def test_fault_overlapping_slab_is_a_race(monkeypatch: pytest.MonkeyPatch) -> None:
    module = parse((IREE / "b_diamond" / "06_async_final.mlir").read_text())
    accepted(module, schedule_allocation(module), "schedule-allocation")
    monkeypatch.setattr(sa, "layout_slices", lambda slices, alignment: ([0] * len(slices), max(s.size for s in slices)))
    assert "RACE_WRITE_AFTER_WRITE" in rejection(module, schedule_allocation(module), "schedule-allocation")


class _DummyTiedBuffers(StorageForest):
    """IREE #19355: tied updates inside waves get storage of their own, so their writes are lost."""

    @staticmethod
    def of(body):  # type: ignore[no-untyped-def, override]
        forest = StorageForest.of(body)
        for value, op in list(forest.defs.items()):
            if op.name == "stream.async.update" and value in forest.parent:
                del forest.parent[value]
        forest._roots.clear()
        return forest


def test_fault_dummy_buffers_for_tied_results_lose_writes(monkeypatch: pytest.MonkeyPatch) -> None:
    module = parse(golden_chunks()[2])  # @tiedUpdatesInWave
    accepted(module, schedule_allocation(module), "schedule-allocation")
    monkeypatch.setattr(sa, "StorageForest", _DummyTiedBuffers)
    assert "VALUE_MISMATCH" in rejection(module, schedule_allocation(module), "schedule-allocation")


TWO_RESULTS = """
util.func public @twoResults(%arg0: !stream.resource<external>) -> (!stream.resource<external>, !stream.resource<external>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %r:2, %t = stream.async.execute on(#hal.device.affinity<@dev0>) with(%arg0 as %a: !stream.resource<external>{%c16}) -> (!stream.resource<external>{%c16}, !stream.resource<external>{%c16}) {
    %0:2 = stream.async.dispatch @ex::@split(%a[%c0 to %c16 for %c16]) : (!stream.resource<external>{%c16}) -> (!stream.resource<external>{%c16}, !stream.resource<external>{%c16})
    stream.yield %0#0, %0#1 : !stream.resource<external>{%c16}, !stream.resource<external>{%c16}
  } => !stream.timepoint
  %o:2 = stream.timepoint.await %t => %r#0, %r#1 : !stream.resource<external>{%c16}, !stream.resource<external>{%c16}
  util.return %o#0, %o#1 : !stream.resource<external>, !stream.resource<external>
}
"""


def test_fault_swapped_result_bindings_compute_wrong_values(monkeypatch: pytest.MonkeyPatch) -> None:
    """IREE #20819: binding i must be result i; swapping two result bindings is caught."""
    module = parse(TWO_RESULTS)
    accepted(module, schedule_allocation(module), "schedule-allocation")
    original = async_to_cmd.CONVERSIONS["stream.async.dispatch"]

    def swapped(ctx, op, v):  # type: ignore[no-untyped-def]
        (dispatch,) = original(ctx, op, v)
        spec = async_to_cmd.spec_of(dispatch)
        groups = {g: list(spec.operand_group(dispatch, g)) for g in ("resources", "resource_sizes", "resource_offsets", "resource_lengths")}
        for values in groups.values():
            values[-1], values[-2] = values[-2], values[-1]
        return [async_to_cmd.build("stream.cmd.dispatch", {**groups, "workload": (), "uniform_operands": ()},
                                   attrs=dict(dispatch.properties), discardable=dispatch.attributes)]

    monkeypatch.setitem(async_to_cmd.CONVERSIONS, "stream.async.dispatch", swapped)
    assert "VALUE_MISMATCH" in rejection(module, schedule_allocation(module), "schedule-allocation")


def test_fault_region_not_waiting_for_its_slab(monkeypatch: pytest.MonkeyPatch) -> None:
    module = parse(golden_chunks()[0])  # @localsShareSlab
    original = sa._RegionAllocation._plan_slab

    def forgetful(self):  # type: ignore[no-untyped-def]
        original(self)
        self.awaits.pop()  # the slab's alloca timepoint

    monkeypatch.setattr(sa._RegionAllocation, "_plan_slab", forgetful)
    assert "USE_BEFORE_ALLOC" in rejection(module, schedule_allocation(module), "schedule-allocation")


def test_fault_subview_offset_dropped(monkeypatch: pytest.MonkeyPatch) -> None:
    """IREE #14685: a tied result that is an offset range of its capture must keep the offset.
    (Checked with the concrete oracle: the verifier places tied execute results at offset 0 of
    their capture, see tests/golden/schedule_allocation_subrange.mlir.)"""
    module = parse(SUBRANGE.read_text())
    args = random_inputs(module, "tiedSubrangeResult", infer_arg_sizes(module, "tiedSubrangeResult"))
    assert_refines(module, schedule_allocation(module), "tiedSubrangeResult", args)
    original = sa._RegionAllocation._subrange
    monkeypatch.setattr(sa._RegionAllocation, "_subrange", lambda self, j, terms, size: original(self, j, (), size))
    with pytest.raises(AssertionError, match="differs"):
        assert_refines(module, schedule_allocation(module), "tiedSubrangeResult", args)



# -- random programs: the upstream pipeline, then the four cmd-level passes -------------------------


CMD_PASSES = DEFAULT_PIPELINE[DEFAULT_PIPELINE.index("schedule-allocation") :]
ASYNC_PASSES = DEFAULT_PIPELINE[: DEFAULT_PIPELINE.index("schedule-allocation")]


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(programs())
def test_random_programs_through_the_cmd_passes(program) -> None:  # type: ignore[no-untyped-def]
    """The four cmd-level passes on random scheduled programs: the result is proved against the
    scheduled async program, and returns what it returns (concrete oracle)."""
    module = parse(program.text)
    try:
        scheduled, _ = run_pipeline(module, parse_pipeline(",".join(ASYNC_PASSES)), verify="none")
    except DiagnosticError:
        assume(False)  # an input the upstream passes refuse is not this test's business
    final, _ = run_pipeline(scheduled, parse_pipeline(",".join(CMD_PASSES)), verify="none")
    try:
        make_hook()(scheduled, final, "cmd passes")
    except PassVerificationError as e:
        raise AssertionError(f"rejected on a random program:\n{e}\n{ir.print_module(scheduled)}") from None
    f = functions(scheduled)[0]
    scalars = {i: a.value for i, a in enumerate(program.args) if a.kind == "index"}
    args = random_inputs(scheduled, f.name, infer_arg_sizes(scheduled, f.name, scalars), scalars)
    assert_refines(scheduled, final, f.name, args)


ESCAPING_TRANSIENT_CONSTANT = """
util.func public @escapingConstant(%arg0: !stream.resource<external>) -> (!stream.resource<external>, !stream.resource<transient>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %r:2, %t = stream.async.execute on(#hal.device.affinity<@dev0>) with(%arg0 as %a: !stream.resource<external>{%c16}) -> (!stream.resource<external>{%c16}, !stream.resource<transient>{%c16}) {
    %k = stream.async.constant : !stream.resource<transient>{%c16} = dense<7> : tensor<16xi8>
    %0 = stream.async.dispatch @ex::@f(%a[%c0 to %c16 for %c16], %k[%c0 to %c16 for %c16]) : (!stream.resource<external>{%c16}, !stream.resource<transient>{%c16}) -> !stream.resource<external>{%c16}
    stream.yield %0, %k : !stream.resource<external>{%c16}, !stream.resource<transient>{%c16}
  } => !stream.timepoint
  %o:2 = stream.timepoint.await %t => %r#0, %r#1 : !stream.resource<external>{%c16}, !stream.resource<transient>{%c16}
  util.return %o#0, %o#1 : !stream.resource<external>, !stream.resource<transient>
}
"""


def test_uploads_are_constant_and_other_lifetimes_get_a_copy() -> None:
    module = parse(ESCAPING_TRANSIENT_CONSTANT)
    out = ir.print_module(check_refinement(module))
    assert "!stream.resource<constant>{%c16} = dense<7> : tensor<16xi8>" in out
    assert re.search(r"stream\.cmd\.copy %\w+\[%c0\], %\w+\[%c0\], %c16 : !stream\.resource<constant>\{%c16\} -> !stream\.resource<transient>", out)
    accepted(module, schedule_allocation(module), "schedule-allocation")


TWO_LOCALS = """
util.func public @f(%arg0: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %r, %t = stream.async.execute on(#hal.device.affinity<@dev0>) with(%arg0 as %a: !stream.resource<external>{%c8}) -> %arg0{%c8} {
    %x = stream.async.dispatch @ex::@f(%a[%c0 to %c8 for %c8]) : (!stream.resource<external>{%c8}) -> !stream.resource<transient>{%c8}
    %y = stream.async.dispatch @ex::@g(%a[%c0 to %c8 for %c8]) : (!stream.resource<external>{%c8}) -> !stream.resource<transient>{%c8}
    %z = stream.async.dispatch @ex::@h(%x[%c0 to %c8 for %c8], %y[%c0 to %c8 for %c8], %a[%c0 to %c8 for %c8]) : (!stream.resource<transient>{%c8}, !stream.resource<transient>{%c8}, !stream.resource<external>{%c8}) -> %a{%c8}
    stream.yield %z : !stream.resource<external>{%c8}
  } => !stream.timepoint
  %o = stream.timepoint.await %t => %r : !stream.resource<external>{%c8}
  util.return %o : !stream.resource<external>
}
"""


@pytest.mark.parametrize(("alignment", "slab", "second"), [(None, 128, 64), (16, 32, 16), (8, 16, 8)])
def test_the_alignment_option_sets_slice_offsets(alignment: int | None, slab: int, second: int) -> None:
    """Two 8-byte values live at once share a slab at offsets 0 and `alignment` (64 by default),
    and the slab size is rounded up to the alignment; the output is proved either way."""
    options = "" if alignment is None else f"{{alignment={alignment}}}"
    out, records = run_pipeline(parse(TWO_LOCALS), parse_pipeline(f"schedule-allocation{options}"), hook=make_hook())
    assert records[-1].report.ok
    text = ir.print_module(out)
    assert re.search(rf"stream\.resource\.alloca uninitialized on\(#hal\.device\.affinity<@dev0>\) : !stream\.resource<transient>\{{%c{slab}\}}", text), text
    offsets = sorted({int(m) for m in re.findall(r"wo %arg\d+\[%c(\d+) for %c8\]", text)})
    assert offsets == [0, second], text


@pytest.mark.parametrize("bad", ["0", "3", "-8", "x"])
def test_a_bad_alignment_is_a_usage_error(bad: str, tmp_path: Path) -> None:
    import subprocess
    import sys

    source = tmp_path / "p.mlir"
    source.write_text(TWO_LOCALS)
    proc = subprocess.run([sys.executable, "-m", "streamproof", "compile", str(source), f"--pass-pipeline=schedule-allocation{{alignment={bad}}}"],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 2, proc.stderr
    assert "alignment" in proc.stderr and "Traceback" not in proc.stderr
