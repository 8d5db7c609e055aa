"""Loops by induction (verify/control_flow.py, verify/loops.py): a safe loop is proved for every
trip count, and each premise of the argument is exercised by a mutant the check must reject
(a hazard between iterations, a stale carried timepoint, a freed carried buffer, an index past
its bound), in both SMT modes."""

from __future__ import annotations

from pathlib import Path

import pytest
from control_flow_data import SMT, mutant, read

from stream.ir.parser import parse_module
from stream.ir.walk import functions
from verify import verify_text
from verify.cfg import lower_loops


@pytest.mark.parametrize("smt", SMT)
@pytest.mark.parametrize("name", ["loop_fill_carried", "loop_fresh_per_iteration", "loop_strided_writes", "loop_swap_buffers",
                                  "async_loop_accumulate"])
def test_safe_loops_are_proved(name: str, smt: str) -> None:
    report = verify_text(read(name), f"{name}.mlir", smt=smt)
    assert report.status == "proved", report.text()
    assert "checked by induction" in report.functions[0].note


@pytest.mark.parametrize("smt", SMT)
def test_an_iteration_not_awaiting_the_carried_timepoint_races_with_the_one_before(smt: str) -> None:
    # Every fill awaits only the alloca: iteration i+1's fill may overlap iteration i's.
    text = mutant("loop_fill_carried", "await(%t) => with(%buf", "await(%ta) => with(%buf")
    report = verify_text(text, "m.mlir", smt=smt)
    race = [v for v in report.violations if v.cls == "RACE_WRITE_AFTER_WRITE"]
    assert race, report.text()
    assert "in a later iteration of the loop" in race[0].notes[-1]
    assert any("earlier iterations" in o.text for o in race[0].ops)
    # and the exit's free does not wait for the earlier fills either
    assert "USE_AFTER_FREE" in report.classes


@pytest.mark.parametrize("smt", SMT)
def test_carrying_the_allocas_timepoint_instead_of_the_copys_is_caught(smt: str) -> None:
    # The next iteration copies from a buffer whose copy may not have finished.
    text = mutant("loop_fresh_per_iteration", '"cf.br"(%next, %new, %done)', '"cf.br"(%next, %new, %ta)')
    report = verify_text(text, "m.mlir", smt=smt)
    assert report.classes & {"RACE_READ_AFTER_WRITE", "MISSED_WAIT"}, report.text()
    assert any("in a later iteration" in v.notes[-1] or "after the loop ran" in v.notes[-1] for v in report.violations)


@pytest.mark.parametrize("smt", SMT)
def test_an_earlier_iterations_in_place_write_ends_the_value_the_loop_started_from(smt: str) -> None:
    # Async level (IREE #23246): without the clone the loop's in-place step writes the storage of
    # %w, which every iteration reads and the exit exports. Iteration 1 alone is not enough to see
    # it: the later iteration reads %w after an earlier one replaced it, and so does the export.
    text = mutant("async_loop_accumulate", '"scf.for"(%c0, %n, %c1, %init)', '"scf.for"(%c0, %n, %c1, %w)')
    report = verify_text(text, "m.mlir", smt=smt)
    stale = [v for v in report.violations if v.cls == "RACE_WRITE_AFTER_READ" and any("earlier iterations" in o.text for o in v.ops)]
    where = {v.notes[-1].split(",")[0] for v in stale}
    assert where == {"in a later iteration of the loop", "after the loop ran at least once"}, report.text()
    assert all("tie linearity" in " ".join(v.notes) for v in stale)


def test_a_value_the_loop_writes_in_place_every_iteration_is_consumed_twice() -> None:
    # The step writes the outer %w in place instead of the carried value: iteration 2 consumes the
    # version of %w that iteration 1 already replaced.
    text = mutant("async_loop_accumulate", "with(%w as %x: !stream.resource<external>{%c64}, %acc as %y: !stream.resource<external>{%c64}) -> %acc{%c64}",
                   "with(%acc as %x: !stream.resource<external>{%c64}, %w as %y: !stream.resource<external>{%c64}) -> %w{%c64}")
    report = verify_text(text, "m.mlir")
    twice = [v for v in report.violations if v.cls == "RACE_WRITE_AFTER_WRITE"]
    assert twice and "in a later iteration of the loop" in twice[0].notes[-1], report.text()


def test_a_carried_buffer_freed_in_the_iteration_is_used_after_free() -> None:
    text = mutant("loop_fresh_per_iteration", "  %next = arith.addi %i, %c1 : index\n",
                   "  %next = arith.addi %i, %c1 : index\n"
                   "  %gone = stream.resource.dealloca await(%done) => %new : !stream.resource<external>{%c64} => !stream.timepoint\n")
    report = verify_text(text, "m.mlir")
    assert "USE_AFTER_FREE" in report.classes, report.text()


@pytest.mark.parametrize("smt", SMT)
def test_the_loop_bound_keeps_strided_writes_in_bounds_and_one_more_trip_does_not(smt: str) -> None:
    # `i <= n` runs the iteration i = n, whose 16 bytes start at the end of the cache.
    text = mutant("loop_strided_writes", "arith.cmpi slt, %i, %n", "arith.cmpi sle, %i, %n")
    report = verify_text(text, "m.mlir", smt=smt)
    (v,) = [v for v in report.violations if v.cls == "OUT_OF_BOUNDS"]
    assert v.symbols.get("%i", 0) == v.symbols["%n"], v.text()  # i == n (the first iteration: 0 == 0)


def test_an_index_starting_below_zero_is_not_assumed_in_bounds() -> None:
    # The monotone fact is "at least the initial value", not "at least zero".
    text = mutant("loop_strided_writes", '"cf.br"(%c0, %ta)[^bb1]', '"cf.br"(%minus, %ta)[^bb1]').replace(
        "  %c7 = arith.constant 7 : i32\n", "  %c7 = arith.constant 7 : i32\n  %minus = arith.constant -1 : index\n")
    assert "OUT_OF_BOUNDS" in verify_text(text, "m.mlir").classes


@pytest.mark.parametrize("smt", SMT)
def test_swapped_buffers_need_the_carried_timepoint_at_distance_two(smt: str) -> None:
    # Each copy awaits the timepoint from before the loop only: iteration i+1 reads the buffer
    # iteration i writes (and i+2 writes it again).
    text = mutant("loop_swap_buffers", "await(%t) => with(%x", "await(%tb) => with(%x")
    report = verify_text(text, "m.mlir", smt=smt)
    assert report.classes & {"RACE_READ_AFTER_WRITE", "RACE_WRITE_AFTER_READ", "RACE_WRITE_AFTER_WRITE"}, report.text()


def test_scf_for_is_lowered_to_the_blocks_it_stands_for() -> None:
    text = """
util.func public @f(%n: index) -> !stream.timepoint {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c7 = arith.constant 7 : i32
  %buf, %ta = stream.resource.alloca uninitialized : !stream.resource<transient>{%c64} => !stream.timepoint
  %last = "scf.for"(%c0, %n, %c1, %ta) ({
  ^bb0(%i: index, %t: !stream.timepoint):
    %done = stream.cmd.execute await(%t) => with(%buf as %x: !stream.resource<transient>{%c64}) {
      stream.cmd.fill %c7, %x[%c0 for %c64] : i32 -> !stream.resource<transient>{%c64}
    } => !stream.timepoint
    "scf.yield"(%done) : (!stream.timepoint) -> ()
  }) : (index, index, index, !stream.timepoint) -> !stream.timepoint
  %free = stream.resource.dealloca await(%last) => %buf : !stream.resource<transient>{%c64} => !stream.timepoint
  util.return %free : !stream.timepoint
}
"""
    (f,) = functions(parse_module(text, "for.mlir"))
    g = lower_loops(f)
    assert [len(b.arguments) for b in g.blocks] == [1, 2, 0, 1]  # entry(%n), header(iv, t), body, exit(result)
    assert g.blocks[1].arguments == f.body.ops[-3].regions[0].blocks[0].arguments
    assert verify_text(text, "for.mlir").status == "proved"
    racy = text.replace("await(%t) => with(%buf", "await(%ta) => with(%buf")
    assert "RACE_WRITE_AFTER_WRITE" in verify_text(racy, "racy.mlir").classes


INVARIANT = """
util.func public @reads(%n: index) -> () {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : i32
  %c64 = arith.constant 64 : index
  %r, %rt = stream.resource.alloca uninitialized : !stream.resource<staging>{%c64} => !stream.timepoint
  %e0 = stream.cmd.execute await(%rt) => with(%r as %x: !stream.resource<staging>{%c64}) {
    stream.cmd.fill %c7, %x[%c0 for %c64] : i32 -> !stream.resource<staging>{%c64}
  } => !stream.timepoint
  %h = stream.timepoint.await %e0 => %r : !stream.resource<staging>{%c64}
  %same = "scf.for"(%c0, %n, %c1, %h) ({
  ^bb0(%i: index, %x: !stream.resource<staging>):
    %v = stream.resource.load %x[%c0] : !stream.resource<staging>{%c64} -> i32
    "scf.yield"(%x) : (!stream.resource<staging>) -> ()
  }) : (index, index, index, !stream.resource<staging>) -> !stream.resource<staging>
  %d = stream.resource.dealloca await(%e0) => %r : !stream.resource<staging>{%c64} => !stream.timepoint
  util.return
}
"""


@pytest.mark.parametrize("smt", SMT)
def test_an_iter_arg_the_loop_passes_on_unchanged_is_its_initial_value(smt: str) -> None:
    # The loop only reads the awaited %h through %x: %x is %h in every iteration. As a fresh
    # carried value it was written by "earlier iterations" ordered by nothing (a false alarm).
    report = verify_text(INVARIANT, "m.mlir", smt=smt)
    assert report.status == "proved", report.text()
    # Passing on the resource before the await instead: the load in the next iteration reads it
    # without a wait, and the forwarding must not hide that.
    text = INVARIANT.replace('"scf.yield"(%x)', '"scf.yield"(%r)')
    assert verify_text(text, "m.mlir", smt=smt).status != "proved"


LOOP_IN_IF = """
util.func public @f(%c: i1, %n: index) -> () {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : i32
  %c64 = arith.constant 64 : index
  %b, %bt = stream.resource.alloca uninitialized : !stream.resource<transient>{%c64} => !stream.timepoint
  %t = "scf.if"(%c) ({
    %last = "scf.for"(%c0, %n, %c1, %bt) ({
    ^bb0(%i: index, %tp: !stream.timepoint):
      %e = stream.cmd.execute await(%tp) => with(%b as %x: !stream.resource<transient>{%c64}) {
        stream.cmd.fill %c7, %x[%c0 for %c64] : i32 -> !stream.resource<transient>{%c64}
      } => !stream.timepoint
      "scf.yield"(%e) : (!stream.timepoint) -> ()
    }) : (index, index, index, !stream.timepoint) -> !stream.timepoint
    "scf.yield"(%last) : (!stream.timepoint) -> ()
  }, {
    "scf.yield"(%bt) : (!stream.timepoint) -> ()
  }) : (i1) -> !stream.timepoint
  %d = stream.resource.dealloca await(%t) => %b : !stream.resource<transient>{%c64} => !stream.timepoint
  util.return
}
"""


@pytest.mark.parametrize("smt", SMT)
def test_a_loop_inside_an_scf_if_is_checked_by_induction(smt: str) -> None:
    # The scf.if becomes blocks (verify.cfg) so that its loop is a loop of the function.
    report = verify_text(LOOP_IN_IF, "m.mlir", smt=smt)
    assert report.status == "proved" and "checked by induction" in report.functions[0].note, report.text()
    bad = LOOP_IN_IF.replace("await(%tp) =>", "await(%bt) =>")  # iterations no longer wait for each other
    assert {"RACE_WRITE_AFTER_WRITE", "USE_AFTER_FREE"} <= verify_text(bad, "m.mlir", smt=smt).classes


TWO_CARRIED = Path(__file__).resolve().parents[1] / "data" / "iree_models" / "loop_two_carried"


def test_a_size_every_back_edge_passes_as_a_constant_is_that_constant() -> None:
    # IREE 3.13 (stage 10) packs both carried tensors into one 512-byte slab from the second
    # iteration on and carries its size and the second tensor's offset, passing the constants
    # 512 and 256 at the back edge. As fresh unknowns they gave OUT_OF_BOUNDS in later iterations.
    path = TWO_CARRIED / "10_elide_timepoints.generic.mlir"
    text = path.read_text()
    assert verify_text(text, str(path)).status == "proved"
    edge = '"cf.br"(%40, %35#0, %8, %39, %35#0, %14)'
    assert text.count(edge) == 1
    # Passing the iteration count as the size instead: it is not invariant, and it overruns the slab.
    report = verify_text(text.replace(edge, '"cf.br"(%40, %35#0, %40, %39, %35#0, %14)'), str(path))
    assert "OUT_OF_BOUNDS" in report.classes, report.text()


def test_a_target_covered_by_two_carried_timepoints_is_done_before_each() -> None:
    # Stage 05: both carried timepoints cover both carried tensors; the caller's fence joins them.
    # With one summary site per carrier, the accesses of the other carrier's site looked unordered
    # at the fence (a false MISSED_WAIT).
    path = TWO_CARRIED / "05_propagate_timepoints.generic.mlir"
    text = path.read_text()
    assert verify_text(text, str(path)).status == "proved"
    # The fence signalled on the first carried timepoint alone still covers the second tensor.
    join = '%36 = "stream.timepoint.join"(%31#1, %31#3)'
    assert text.count(join) == 1
    assert verify_text(text.replace(join, '%36 = "stream.timepoint.join"(%31#1, %31#1)'), str(path)).status == "proved"
    # Signalled on the timepoint from before the loop, it covers neither.
    assert "MISSED_WAIT" in verify_text(text.replace(join, '%36 = "stream.timepoint.join"(%20, %20)'), str(path)).classes


SWITCH_BACK_EDGE = """
util.func public @f(%n: index, %x: i32, %flag: i1) -> !stream.timepoint {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : i32
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %buf, %ta = stream.resource.alloca uninitialized : !stream.resource<transient>{%c64} => !stream.timepoint
  cf.br ^bb1(%c0, %c64, %ta : index, index, !stream.timepoint)
^bb1(%i: index, %len: index, %t: !stream.timepoint):
  %more = arith.cmpi slt, %i, %n : index
  cf.cond_br %more, ^bb2, ^bb4
^bb2:
  %e = stream.cmd.execute await(%t) => with(%buf as %b: !stream.resource<transient>{%c64}) {
    stream.cmd.fill %c7, %b[%c0 for %len] : i32 -> !stream.resource<transient>{%c64}
  } => !stream.timepoint
  %next = arith.addi %i, %c1 : index
  cf.cond_br %flag, ^bb1(%next, %c64, %e : index, index, !stream.timepoint), ^bb3
^bb3:
  cf.switch %x : i32, [
    default: ^bb1(%next, %c64, %e : index, index, !stream.timepoint),
    1: ^bb1(%next, %c128, %e : index, index, !stream.timepoint)
  ]
^bb4:
  %d = stream.resource.dealloca await(%t) => %buf : !stream.resource<transient>{%c64} => !stream.timepoint
  util.return %d : !stream.timepoint
}
"""


def test_every_edge_of_a_switch_back_to_the_header_counts() -> None:
    # The loop's size is passed on as 64 by a cf.cond_br and as 64 or 128 by a cf.switch. The
    # invariant-index fact once read only the cond_br's edge (a switch's were not collected) and
    # proved the 64-byte fill of up to 128 bytes.
    report = verify_text(SWITCH_BACK_EDGE, "m.mlir")
    assert "OUT_OF_BOUNDS" in report.classes, report.text()
    safe = SWITCH_BACK_EDGE.replace("1: ^bb1(%next, %c128, %e", "1: ^bb1(%next, %c64, %e")
    assert verify_text(safe, "m.mlir").status == "proved"


# -- found by random input-level loop programs through the pipeline (tests/input_loop_programs.py) --
PRE_LOOP_READ = """
util.func public @f(%arg0: !stream.resource<external>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %a, %at = stream.resource.alloca uninitialized : !stream.resource<transient>{%c64} => !stream.timepoint
  %e0 = stream.cmd.execute await(%at) => with(%arg0 as %x: !stream.resource<external>{%c64}, %a as %y: !stream.resource<transient>{%c64}) {
    stream.cmd.copy %x[%c0], %y[%c0], %c64 : !stream.resource<external>{%c64} -> !stream.resource<transient>{%c64}
  } => !stream.timepoint
  scf.for %i = %c0 to %n step %c1 {
    %b, %bt = stream.resource.alloca uninitialized : !stream.resource<transient>{%c64} => !stream.timepoint
    %e1 = stream.cmd.execute await(%bt) => with(%arg0 as %x: !stream.resource<external>{%c64}, %b as %y: !stream.resource<transient>{%c64}) {
      stream.cmd.copy %x[%c0], %y[%c0], %c64 : !stream.resource<external>{%c64} -> !stream.resource<transient>{%c64}
    } => !stream.timepoint
    %d1 = stream.resource.dealloca await(%e1) => %b : !stream.resource<transient>{%c64} => !stream.timepoint
    %w1 = stream.timepoint.await sync %d1 => %arg0 : !stream.resource<external>{%c64}
  }
  %d0 = stream.resource.dealloca await(%e0) => %a : !stream.resource<transient>{%c64} => !stream.timepoint
  %w0 = stream.timepoint.await sync %d0 => %arg0 : !stream.resource<external>{%c64}
  util.return
}
"""


@pytest.mark.parametrize("smt", SMT)
def test_a_read_before_the_loop_does_not_stop_the_host_covering_the_iterations_reads(smt: str) -> None:
    # The caller's buffer is read before the loop (waited for at the end) and in every iteration
    # (waited for by the host before the next one): every read ends before the return. The
    # demand at the back edge once counted the read before the loop against the host carrier,
    # so no carrier covered the buffer and the summary read it unordered: a false MISSED_WAIT.
    assert verify_text(PRE_LOOP_READ, "f.mlir", smt=smt).status == "proved"
    # Twin: without the host's wait in the body, the last iteration's read outlives the call.
    twin = PRE_LOOP_READ.replace("    %w1 = stream.timepoint.await sync %d1 => %arg0 : !stream.resource<external>{%c64}\n", "")
    report = verify_text(twin, "f.mlir", smt=smt)
    assert report.status == "violated" and "MISSED_WAIT" in report.classes, report.text()


PASSED_ON = """
util.func public @g(%arg0: !stream.resource<external>, %n: index) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %t0 = stream.timepoint.immediate => !stream.timepoint
  %r:3 = scf.for %i = %c0 to %n step %c1 iter_args(%p = %arg0, %s = %arg0, %t = %t0) -> (!stream.resource<external>, !stream.resource<external>, !stream.timepoint) {
    %b, %bt = stream.resource.alloca uninitialized : !stream.resource<transient>{%c64} => !stream.timepoint
    %e1 = stream.cmd.execute await(%bt) => with(%arg0 as %x: !stream.resource<external>{%c64}, %b as %y: !stream.resource<transient>{%c64}) {
      stream.cmd.copy %x[%c0], %y[%c0], %c64 : !stream.resource<external>{%c64} -> !stream.resource<transient>{%c64}
    } => !stream.timepoint
    %d1 = stream.resource.dealloca await(%e1) => %b : !stream.resource<transient>{%c64} => !stream.timepoint
    %j = stream.timepoint.join max(%t, %d1) => !stream.timepoint
    scf.yield %arg0, %p, %j : !stream.resource<external>, !stream.resource<external>, !stream.timepoint
  }
  %o = stream.timepoint.await %r#2 => %r#1 : !stream.resource<external>{%c64}
  util.return %o : !stream.resource<external>
}
"""


@pytest.mark.parametrize("smt", SMT)
def test_a_carried_outer_value_no_iteration_writes_is_passed_on_not_made(smt: str) -> None:
    # The loop passes the caller's buffer on (one slot to the other, so it is not an invariant
    # argument) and reads it through its outer name without awaiting the carried timepoint:
    # reads only, no hazard. The summary once had earlier iterations *make* the carried slot (a
    # write), a false MISSED_WAIT on that read.
    assert verify_text(PASSED_ON, "g.mlir", smt=smt).status == "proved"
    # Twin: the body writes the carried buffer in place (a fill of %s), not ordered with the
    # next iteration's read of the same buffer through %arg0.
    twin = PASSED_ON.replace(
        "    %j = stream.timepoint.join max(%t, %d1) => !stream.timepoint\n",
        "    %c7 = arith.constant 7 : i32\n"
        "    %f = stream.cmd.execute await(%t) => with(%s as %z: !stream.resource<external>{%c64}) {\n"
        "      stream.cmd.fill %c7, %z[%c0 for %c64] : i32 -> !stream.resource<external>{%c64}\n"
        "    } => !stream.timepoint\n"
        "    %j = stream.timepoint.join max(%f, %d1) => !stream.timepoint\n")
    report = verify_text(twin, "g.mlir", smt=smt)
    assert report.status == "violated" and report.classes & {"RACE_WRITE_AFTER_READ", "MISSED_WAIT", "RACE_READ_AFTER_WRITE"}, report.text()


@pytest.mark.parametrize("smt", SMT)
def test_slots_sharing_storage_made_by_an_earlier_iteration_take_its_declared_size(smt: str) -> None:
    # Slot 1 passes its value on to slot 2: both are one past storage, whose size only slot 2's
    # uses spell. It was once sized by slot 1 alone (no use: a fresh, unconstrained size), so
    # slot 2's 4-byte slice looked out of the bounds of a 0-byte buffer.
    report = verify_text(read("loop_if_shared_slots"), "loop_if_shared_slots.mlir", smt=smt)
    assert report.status == "proved", report.text()


HOLE = """
util.func public @f(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view, %n: index) -> (!hal.buffer_view, !hal.buffer_view) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %0 = stream.tensor.import on(#hal.device.affinity<@dev0>) %arg0 : !hal.buffer_view -> tensor<16xf32> in !stream.resource<external>{%c64}
  %1 = stream.tensor.import on(#hal.device.affinity<@dev0>) %arg1 : !hal.buffer_view -> tensor<16xf32> in !stream.resource<external>{%c64}
  %t0 = stream.timepoint.immediate => !stream.timepoint
  %r:4 = scf.for %i = %c0 to %n step %c1 iter_args(%k = %0, %h = %1, %t = %t0, %u = %t0) -> (!stream.resource<external>, !stream.resource<external>, !stream.timepoint, !stream.timepoint) {
    %j = stream.timepoint.join max(%t, %u) => !stream.timepoint
    %res:2, %rt = stream.async.execute on(#hal.device.affinity<@dev0>) await(%j) => with(%h as %a: !stream.resource<external>{%c64}, %k as %b: !stream.resource<external>{%c64}) -> (!stream.resource<external>{%c64}, !stream.resource<external>{%c64}) {
      %y = stream.async.dispatch @tanh(%a[%c0 to %c64 for %c64]) : (!stream.resource<external>{%c64}) -> !stream.resource<external>{%c64}
      %z = stream.async.dispatch @tanh(%b[%c0 to %c64 for %c64]) : (!stream.resource<external>{%c64}) -> !stream.resource<external>{%c64}
      stream.yield %z, %y : !stream.resource<external>{%c64}, !stream.resource<external>{%c64}
    } => !stream.timepoint
    scf.yield %res#0, %res#1, %rt, %rt : !stream.resource<external>, !stream.resource<external>, !stream.timepoint, !stream.timepoint
  }
  %w = stream.timepoint.await %r#2 => %r#0 : !stream.resource<external>{%c64}
  %e0 = stream.tensor.export on(#hal.device.affinity<@dev0>) %w : tensor<16xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
  %w1 = stream.timepoint.await %r#3 => %r#1 : !stream.resource<external>{%c64}
  %e1 = stream.tensor.export on(#hal.device.affinity<@dev0>) %w1 : tensor<16xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
  util.return %e0, %e1 : !hal.buffer_view, !hal.buffer_view
}
"""


@pytest.mark.parametrize("smt", SMT)
def test_an_unawaited_second_loop_result_is_a_missed_wait(smt: str) -> None:
    # Found by the mutation self-test on examples/decode_loop.mlir: one region makes both carried
    # values, and the readiness query a demand fails names one of them only; the host (and the
    # other carriers) were taken to cover the other, so exporting it unawaited was proved.
    assert verify_text(HOLE, "f.mlir", smt=smt).status == "proved"
    mutant = HOLE.replace("  %w1 = stream.timepoint.await %r#3 => %r#1 : !stream.resource<external>{%c64}\n", "").replace(") %w1 :", ") %r#1 :")
    report = verify_text(mutant, "f.mlir", smt=smt)
    assert report.status == "violated" and "MISSED_WAIT" in report.classes, report.text()
