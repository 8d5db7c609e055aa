"""Refinement on the util/hal/cf ops of IREE's host code (verify.refinement.rules_host, ints):
`hal.buffer_view.dim` is one unknown per (buffer view, index) in both programs, `cf.assert` and
`util.assume.int` have no value effect, `util.align` is `((v + n - 1) / n) * n` for a constant
power of two, and divisions of exact multiples fold."""

from __future__ import annotations

from stream.ir import parse_module
from verify.refinement import RefinementReport, check_refinement
from verify.refinement.ints import Ints

D0 = "#hal.device.affinity<@dev0>"


def check(before: str, after: str) -> RefinementReport:
    return check_refinement(parse_module(before, "before.mlir"), parse_module(after, "after.mlir"))


def program(size: str, dim: int = 0, checks: str = "") -> str:
    """Import a ?x4xf32 view and export it again with `size` bytes (computed from %d, its dim)."""
    return f"""util.func public @f(%arg0: !hal.buffer_view) -> !hal.buffer_view {{
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c63 = arith.constant 63 : index
{checks}
  %d = "hal.buffer_view.dim"(%arg0) <{{index = {dim} : index}}> : (!hal.buffer_view) -> index
  %bytes = arith.muli %d, %c16 : index
{size}
  %x = stream.tensor.import on({D0}) %arg0 : !hal.buffer_view -> tensor<?x4xf32>{{%d}} in !stream.resource<external>{{%bytes}}
  %out = stream.tensor.export on({D0}) %x : tensor<?x4xf32>{{%d}} in !stream.resource<external>{{%bytes}} -> !hal.buffer_view
  util.return %out : !hal.buffer_view
}}
"""


CHECKS = """  %ok = "arith.cmpi"(%c16, %c1) <{predicate = 8 : i64}> : (index, index) -> i1
  "cf.assert"(%ok) <{msg = "checked"}> : (i1) -> ()
  %u = "util.assume.int"(%c16) <{assumptions = [[#util.int.assumption<umin = 16, umax = 16>]]}> : (index) -> index"""


def test_dims_are_the_same_unknown_whatever_runs_before_them() -> None:
    # AFTER has checks before the dim that BEFORE lacks: an opaque op there used to give the dim
    # another unknown (opaque results are numbered by the ops before them).
    r = check(program(""), program("", checks=CHECKS))
    assert r.ok, r.render_text()
    r = check(program(""), program("", dim=1))
    assert r.status == "mismatch", r.render_text()


ALIGNED = """  %a = "util.align"(%bytes, %c64) : (index, index) -> index"""
BY_HAND = """  %p = arith.addi %bytes, %c63 : index
  %q = arith.divui %p, %c64 : index
  %a = arith.muli %q, %c64 : index"""


def _sliced(computation: str, length: str) -> str:
    """Export the first `length` bytes of a zero-filled slab of `%a` bytes."""
    return f"""util.func public @f(%n: index) -> !hal.buffer_view {{
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c63 = arith.constant 63 : index
  %c0_i8 = arith.constant 0 : i8
  %bytes = arith.muli %n, %c16 : index
{computation}
  %s = stream.async.splat on({D0}) %c0_i8 : i8 -> !stream.resource<external>{{%a}}
  %l = {length}
  %v = stream.async.slice on({D0}) %s[%c0 to %l] : !stream.resource<external>{{%a}} -> !stream.resource<external>{{%l}}
  %out = stream.tensor.export on({D0}) %v : tensor<?xi8>{{%l}} in !stream.resource<external>{{%l}} -> !hal.buffer_view
  util.return %out : !hal.buffer_view
}}
"""


def test_align_means_rounding_up_to_a_power_of_two() -> None:
    whole = "arith.addi %a, %c0 : index"
    r = check(_sliced(ALIGNED, whole), _sliced(BY_HAND, whole))
    assert r.ok, r.render_text()
    odd = ALIGNED.replace("%c64)", "%c63)")  # not a power of two: an unknown of its own
    assert not check(_sliced(ALIGNED, whole), _sliced(odd, whole)).ok


def test_exact_divisions_and_equal_extrema_fold() -> None:
    ints = Ints()
    x = ints.sym(("x",), "x")
    four_x = ints.scale(x, 4)
    assert ints.apply("divsi", four_x, 4) is x and ints.apply("ceildivui", ints.add(four_x, 8), 4) is ints.add(x, 2)
    assert ints.apply("maxui", x, x) is x and ints.apply("minsi", x, x) is x
    assert ints.apply("align", ints.scale(x, 64), 64) is ints.scale(x, 64)
    assert ints.apply("divui", ints.add(four_x, 2), 4) is not x  # not an exact multiple: stays an unknown
    assert ints.apply("align", 100, 64) == 128
