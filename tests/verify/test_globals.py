"""Globals and initializers (verify/globals.py, verify/rules/globals.py): resource globals are
storage of their own, the companion timepoints of PropagateTimepoints order loads after stores,
initializers are verified, and one that cannot be modelled is named in the report as not checked."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from stream.ir.parser import parse_module
from verify import verify_text
from verify.globals import ModuleGlobals
from verify.report import NOT_CHECKED
from verify.schema import validate

ROOT = Path(__file__).resolve().parents[2]

BRANCHY_INITIALIZER = '''
util.global private @weights : !stream.resource<constant>
"util.initializer"() <{function_type = () -> ()}> ({
  %c = arith.constant true
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  "scf.execute_region"() ({
    "scf.for"(%c0, %c1, %c1) ({
    ^bb0(%i: index):
      "scf.yield"() : () -> ()
    }) : (index, index, index) -> ()
    "scf.yield"() : () -> ()
  }) : () -> ()
  "util.return"() : () -> ()
}) : () -> ()
util.func public @f() {
  util.return
}
'''


def test_an_initializer_the_verifier_cannot_model_is_named_as_not_checked() -> None:
    report = verify_text(BRANCHY_INITIALIZER, "init.mlir")
    assert report.status == "unknown" and not report.ok
    (unchecked,) = report.unchecked
    assert unchecked.name == "initializer#0" and unchecked.level == NOT_CHECKED
    assert "'scf.for'" in unchecked.note and "not supported" in unchecked.note
    assert "@initializer#0 not checked" in report.text()
    assert "1 not checked" in report.summary()
    data = report.to_json()
    validate(data)
    assert data["status"] == "unknown"
    assert [f["name"] for f in data["functions"]] == ["initializer#0", "f"]
    assert data["functions"][0]["level"] == NOT_CHECKED and data["functions"][0]["note"].startswith("not checked: ")


def test_not_checked_exits_3(tmp_path: Path) -> None:
    path = tmp_path / "init.mlir"
    path.write_text(BRANCHY_INITIALIZER)
    run = subprocess.run([sys.executable, "-m", "streamproof", "verify", str(path)], capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 3, run.stdout + run.stderr
    assert "@initializer#0 not checked" in run.stdout + run.stderr


STATE = '''
util.global private mutable @state__timepoint = #stream.timepoint<immediate> : !stream.timepoint
util.global private mutable @state : !stream.resource<variable>
util.func public @touch() {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c1_i32 = arith.constant 1 : i32
  %s = "util.global.load"() <{global = @state}> : () -> !stream.resource<variable>
  %r, %t = stream.async.execute on(#hal.device.affinity<@dev0>) with(%s as %x: !stream.resource<variable>{%c64}) -> %s{%c64} {
    %f = stream.async.fill %c1_i32, %x[%c0 to %c64 for %c64] : i32 -> %x as !stream.resource<variable>{%c64}
    stream.yield %f : !stream.resource<variable>{%c64}
  } => !stream.timepoint
  %now = stream.timepoint.immediate => !stream.timepoint
  %done = stream.timepoint.await %t => %r : !stream.resource<variable>{%c64}
  "util.global.store"(%now) <{global = @state__timepoint}> : (!stream.timepoint) -> ()
  "util.global.store"(%done) <{global = @state}> : (!stream.resource<variable>) -> ()
  util.return
}
'''


def test_a_companion_that_only_holds_immediate_needs_no_wait() -> None:
    """Every store of @state__timepoint stores an immediate (and so does its initial value): the
    load of @state need not wait for it (ElideTimepoints drops such loads)."""
    globals_ = ModuleGlobals(parse_module(STATE, "s.mlir"))
    assert globals_.always_immediate("state__timepoint")
    assert verify_text(STATE, "s.mlir").ok


def test_a_companion_stored_with_a_pending_timepoint_must_be_awaited() -> None:
    """The same function storing the execute's timepoint instead: the companion may now hold a
    pending timepoint, and the update (which awaits nothing) may run before the previous one ends."""
    pending = STATE.replace('"util.global.store"(%now)', '"util.global.store"(%t)')
    assert not ModuleGlobals(parse_module(pending, "s.mlir")).always_immediate("state__timepoint")
    report = verify_text(pending, "s.mlir")
    assert report.classes == {"MISSED_WAIT"}
    assert any("before the timepoint stored with it (@state__timepoint)" in v.message for v in report.violations)


def test_loads_of_one_global_share_its_storage_and_a_store_redirects_them() -> None:
    text = '''
util.global private mutable @g : !stream.resource<variable>
util.func public @f(%arg: !stream.resource<variable>, %n: index) {
  %a = "util.global.load"() <{global = @g}> : () -> !stream.resource<variable>
  %b = "util.global.load"() <{global = @g}> : () -> !stream.resource<variable>
  "util.global.store"(%arg) <{global = @g}> : (!stream.resource<variable>) -> ()
  %c = "util.global.load"() <{global = @g}> : () -> !stream.resource<variable>
  util.return
}
'''
    from stream.ir.walk import functions
    from verify.storage import AllocKind, analyze_storage

    module = parse_module(text, "g.mlir")
    f = functions(module)[0]
    storage = analyze_storage(f, module)
    ops = f.body.ops
    a, b, c = ops[0].results[0], ops[1].results[0], ops[3].results[0]
    va, vb, vc = storage.view(a), storage.view(b), storage.view(c)
    assert va is not None and vb is not None and vc is not None
    assert va.alloc is vb.alloc and va.alloc.kind is AllocKind.GLOBAL and va.alloc.symbol == "g" and va.alloc.mutable
    assert vc.alloc.kind is AllocKind.ARGUMENT  # after the store, @g holds the argument's storage


def test_report_json_of_a_global_program_validates() -> None:
    report = verify_text((ROOT / "proofs/corpus/async_global_timepoint_stale.mlir").read_text(), "stale.mlir")
    validate(json.loads(json.dumps(report.to_json())))
    assert report.classes == {"MISSED_WAIT"}


CALLER = '''
util.global private mutable @state : !stream.resource<variable>
util.func private @bump() {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c1_i32 = arith.constant 1 : i32
  %s = "util.global.load"() <{global = @state}> : () -> !stream.resource<variable>
  %r, %t = stream.async.execute on(#hal.device.affinity<@dev0>) with(%s as %x: !stream.resource<variable>{%c64}) -> %s{%c64} {
    %f = stream.async.fill %c1_i32, %x[%c0 to %c64 for %c64] : i32 -> %x as !stream.resource<variable>{%c64}
    stream.yield %f : !stream.resource<variable>{%c64}
  } => !stream.timepoint
  %done = stream.timepoint.await %t => %r : !stream.resource<variable>{%c64}
  "util.global.store"(%done) <{global = @state}> : (!stream.resource<variable>) -> ()
  util.return
}
util.func public @main() {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c2_i32 = arith.constant 2 : i32
  %s = "util.global.load"() <{global = @state}> : () -> !stream.resource<variable>
  %r, %t = stream.async.execute on(#hal.device.affinity<@dev0>) with(%s as %x: !stream.resource<variable>{%c64}) -> %s{%c64} {
    %f = stream.async.fill %c2_i32, %x[%c0 to %c64 for %c64] : i32 -> %x as !stream.resource<variable>{%c64}
    stream.yield %f : !stream.resource<variable>{%c64}
  } => !stream.timepoint
  util.call @bump() : () -> ()
  %done = stream.timepoint.await %t => %r : !stream.resource<variable>{%c64}
  "util.global.store"(%done) <{global = @state}> : (!stream.resource<variable>) -> ()
  util.return
}
'''


def test_a_call_to_a_function_using_a_global_has_no_summary() -> None:
    """@bump writes @state while @main's own write of it may still run: a callee summary says
    nothing about globals, so the call is not summarised and @main is not proved (fail closed)."""
    report = verify_text(CALLER, "call.mlir")
    assert report.status == "unknown" and not report.errors
    assert any("resource global @state" in u.reason for u in report.unknowns)


HELPER = '''
util.global private @weights : !stream.resource<constant>
util.initializer {
  util.call @init_weights() : () -> ()
  util.return
}
util.func private @init_weights() {
  %c64 = arith.constant 64 : index
  %c1_i32 = arith.constant 1 : i32
  %r, %t = stream.async.execute on(#hal.device.affinity<@dev0>) with() -> !stream.resource<constant>{%c64} {
    %s = stream.async.splat %c1_i32 : i32 -> !stream.resource<constant>{%c64}
    stream.yield %s : !stream.resource<constant>{%c64}
  } => !stream.timepoint
  %w = stream.timepoint.await %t => %r : !stream.resource<constant>{%c64}
  "util.global.store"(%w) <{global = @weights}> : (!stream.resource<constant>) -> ()
  util.return
}
'''


def test_a_private_function_only_initializers_call_may_store_an_immutable_global() -> None:
    """IREE (UtilOps.td, VerifyInitializationOrder): initializer-only functions may set them."""
    assert "BORROWED_INPUT_MUTATED" not in verify_text(HELPER, "h.mlir").classes
    # Called from a public function too, it is no longer initializer-only.
    also = HELPER + '''
util.func public @reset() {
  util.call @init_weights() : () -> ()
  util.return
}
'''
    report = verify_text(also, "h.mlir")
    assert report.classes == {"BORROWED_INPUT_MUTATED"}
    assert all(v.function == "init_weights" for v in report.violations)


def test_a_later_load_declaring_more_bytes_than_the_first_is_out_of_bounds() -> None:
    def program(second: int) -> str:
        return f'''
util.global private mutable @g : !stream.resource<variable>
util.func public @f() {{
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %cN = arith.constant {second} : index
  %z = arith.constant 0 : i32
  %a = "util.global.load"() <{{global = @g}}> : () -> !stream.resource<variable>
  %t = stream.cmd.execute on(#hal.device.affinity<@dev0>) with(%a as %x: !stream.resource<variable>{{%c64}}) {{
    stream.cmd.fill %z, %x[%c0 for %c64] : i32 -> !stream.resource<variable>{{%c64}}
  }} => !stream.timepoint
  %b = "util.global.load"() <{{global = @g}}> : () -> !stream.resource<variable>
  %u = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t) => with(%b as %y: !stream.resource<variable>{{%cN}}) {{
    stream.cmd.fill %z, %y[%c0 for %cN] : i32 -> !stream.resource<variable>{{%cN}}
  }} => !stream.timepoint
  %d = stream.timepoint.await sync %u => %b : !stream.resource<variable>{{%cN}}
  util.return
}}
'''
    assert verify_text(program(64), "g.mlir").ok
    assert verify_text(program(32), "g.mlir").ok
    assert verify_text(program(128), "g.mlir").classes == {"OUT_OF_BOUNDS"}
