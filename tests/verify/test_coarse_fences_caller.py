"""The calling side of the coarse-fences ABI (`verify.rules.fence_ops`): IREE's synchronous
wrapper of an `$async` function awaits the signal fence it handed over before it uses a result.

The corpus (`proofs/corpus/abi_wrapper_*.mlir`) holds one program per rule; these tests add the
cases that need a variation of the wrapper, and the mutant on real IREE output that the rule exists
for: deleting the wrapper's `hal.fence.await` was still "proved" before it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import ROOT, check

from stream.ir import parse_module
from verify import verify_module
from verify.api import NOTHING_TO_PROVE

CALLEE = (ROOT / "proofs" / "corpus" / "abi_wrapper_ok.mlir").read_text().split("util.func public @main(")[0]
MODELS = sorted((ROOT / "tests" / "data" / "iree_models").glob("*/[0-9]*.generic.mlir"))
AWAIT = '"hal.fence.await"'


def wrapper(body: str, args: str = "%arg0: !hal.buffer_view") -> str:
    return f"""{CALLEE}
util.func public @main({args}) -> !hal.buffer_view {{
  %null = "util.null"() : () -> !hal.fence
  %forever = arith.constant -1 : i32
  %c0 = arith.constant 0 : index
  %device = "hal.devices.get"(%c0) : (index) -> !hal.device
  %fence = "hal.fence.create"(%device) <{{flags = 0 : i64}}> : (!hal.device) -> !hal.fence
  {body}
}}
"""


CALL = "%r = util.call @main$async(%arg0, %null, %fence) : (!hal.buffer_view, !hal.fence, !hal.fence) -> !hal.buffer_view"


def await_(fence: str = "%fence", timeout: str = "%forever") -> str:
    return f'%status = "hal.fence.await"({timeout}, {fence}) <{{flags = 0 : i64}}> : (i32, !hal.fence) -> i32'


def outcome(text: str) -> tuple[str, set[str]]:
    report = check(text)
    return report.status, {v.cls for v in report.violations}


def test_the_wrapper_is_checked_not_skipped() -> None:
    report = check(wrapper(f"{CALL}\n  {await_()}\n  util.return %r : !hal.buffer_view"))
    assert report.status == "proved"
    (main,) = [s for s in report.functions if s.name == "main"]
    assert main.note != NOTHING_TO_PROVE and main.stats.obligations >= 1


def test_a_use_after_the_wait_is_covered_and_one_before_it_is_not() -> None:
    assert outcome(wrapper(f"{CALL}\n  {await_()}\n  util.return %r : !hal.buffer_view")) == ("proved", set())
    # The same await, placed after the use (another call reads the result first).
    use = "%x = util.call @sink(%r) : (!hal.buffer_view) -> !hal.buffer_view"
    text = wrapper(f"{CALL}\n  {use}\n  {await_()}\n  util.return %x : !hal.buffer_view")
    text += "util.func private @sink(%v: !hal.buffer_view) -> !hal.buffer_view {\n  util.return %v : !hal.buffer_view\n}\n"
    assert outcome(text) == ("violated", {"MISSED_WAIT"})


def test_awaiting_another_fence_does_not_cover_the_result() -> None:
    other = '%other = "hal.fence.create"(%device) <{flags = 0 : i64}> : (!hal.device) -> !hal.fence'
    assert outcome(wrapper(f"{other}\n  {CALL}\n  {await_('%other')}\n  util.return %r : !hal.buffer_view")) == (
        "violated", {"MISSED_WAIT"})


def test_a_timeout_the_verifier_cannot_read_orders_nothing() -> None:
    text = wrapper(f"{CALL}\n  {await_(timeout='%ms')}\n  util.return %r : !hal.buffer_view",
                   args="%arg0: !hal.buffer_view, %ms: i32")
    assert outcome(text) == ("violated", {"MISSED_WAIT"})


def test_a_signal_fence_the_caller_did_not_create_leaves_the_uses_undecided() -> None:
    call = "%r = util.call @main$async(%arg0, %null, %given) : (!hal.buffer_view, !hal.fence, !hal.fence) -> !hal.buffer_view"
    text = wrapper(f"{call}\n  {await_('%given')}\n  util.return %r : !hal.buffer_view",
                   args="%arg0: !hal.buffer_view, %given: !hal.fence")
    report = check(text)
    assert report.status == "unknown" and not report.violations
    assert "not a fence hal.fence.create made for this call" in report.unknowns[0].reason


def _straight_line(text: str) -> bool:  # control flow is refused for the whole module (the next issue)
    return '"scf.' not in text and '"cf.' not in text


@pytest.mark.parametrize("path", [p for p in MODELS if AWAIT in (t := p.read_text()) and _straight_line(t)], ids=lambda p: f"{p.parent.name}/{p.name[:2]}")
def test_deleting_the_wrappers_await_in_real_iree_output_is_a_missed_wait(path: Path) -> None:
    def in_the_wrapper(text: str) -> list[str]:
        report = verify_module(parse_module(text, str(path)))
        return [v.cls for v in report.violations if not v.function.endswith("$async")]

    text = path.read_text()
    assert in_the_wrapper(text) == []
    assert in_the_wrapper("\n".join(line for line in text.splitlines() if AWAIT not in line)) == ["MISSED_WAIT"]
