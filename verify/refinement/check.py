"""Translation validation: does AFTER compute what BEFORE computes? (SPEC section 3.4)

`check_refinement(before, after)` runs each function of BEFORE and its namesake in AFTER on
symbolic inputs (`verify.refinement.machine`) and compares what the caller can observe:

* every function result, by its bytes (a tensor, a resource, an exported buffer view) or value
  (an index or scalar). Results pair by position; arguments pair by position too, which is the
  ABI mapping between levels (tensor argument `i` <-> the buffer view imported from argument `i`;
  index arguments pass through);
* every mutable global either program loads or stores: what it holds when the call returns, and
  what the initializers left in it (both programs start the call from the same unknown state:
  the induction over calls of `verify.refinement.rules_globals`);
* every caller-visible buffer: the final contents of the caller's storage the program can reach.
  A borrowed argument (a tensor argument without `iree.abi.consume`/`iree.abi.output`, a buffer
  view imported without `consume`, or never imported) must keep its bytes; a resource-typed
  argument (caller-provided storage, as in IREE's own tests) must end with BEFORE's bytes. A
  consumed argument (`consume`, `iree.abi.consume`, `iree.abi.output`: docs/CONVENTIONS.md
  treats an output argument as storage given to the program) is given away: the caller sees
  results only through the returned buffer views, which are compared as results. When BEFORE
  writes a borrowed buffer in place (a tie on a borrowed argument, at any level), or reads a
  buffer after overwriting it in place, it promised nothing about that buffer and AFTER may
  leave anything there: such a program relies on copy-on-write, and the safety checker reports
  a lowering that still writes the caller's buffer after `materialize-copy-on-write`
  (BORROWED_INPUT_MUTATED).

What a "proof" means: for every assignment of the symbolic inputs (index arguments, pack
offsets) satisfying the facts (sizes non-negative, every access in bounds, async ranges
consistent, pack slices disjoint when their lifetimes intersect), the observables of AFTER equal
those of BEFORE, where BEFORE's uninitialized bytes may be refined by any consistent bytes. The
claim is conditional on AFTER passing the safety properties of SPEC 3.3 (no races, missed waits,
use-after-free, out-of-bounds accesses: they make the one interleaving the interpreter runs stand
for all) and models index arithmetic on unbounded integers. Kernels are uninterpreted functions,
so two programs that differ only in what an unknown kernel would happen to compute equally are
reported as different: a false alarm that can be explained, never a silent miss.

When a question about symbolic sizes depends on the inputs (is the scatter row 0?), the check
splits the case and runs again under each answer, up to `max_cases` cases per function (the
report's `cases` is the total); a Z3 `unknown`, a resource limit or too many cases make the
verdict unknown.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import z3

from stream.ir.core import Location, Module, Op, Value
from stream.ir.diagnostics import DiagnosticError
from stream.ir.equality import ops_equal
from stream.ir.gc_pause import paused_gc
from stream.ir.interfaces import alias_pairs
from stream.ir.spec import spec_of
from stream.ir.types import FloatType, IndexType, IntegerType, ResourceType, TensorType
from stream.ir.walk import FUNCTION_OPS, Function, function, functions
from verify.calls import CALL_OPS
from verify.refinement import (  # noqa: F401 (rules)
    control_flow,
    rules_async,
    rules_cmd,
    rules_file,
    rules_flow,
    rules_host,
    rules_parameter,
    rules_tensor,
)
from verify.refinement.compare import Comparer, Divergence
from verify.refinement.control_flow import check_loops, run_function
from verify.refinement.global_state import check_private, current, mutable_decl
from verify.refinement.ints import IntExpr
from verify.refinement.machine import BufView, Context, Machine, Res
from verify.refinement.memory import Allocation, Piece
from verify.refinement.report import Mismatch, RefinementReport, Unknown
from verify.refinement.rules_globals import initial_state, run_initializers
from verify.refinement.solver import DEFAULT_RLIMIT, Undecided
from verify.refinement.terms import ByteStr, Scalar, UninitAtom

__all__ = ["check_refinement", "DEFAULT_MAX_CASES"]

DEFAULT_MAX_CASES = 64


def check_refinement(
    before: Module,
    after: Module,
    function: str | None = None,
    *,
    rlimit: int = DEFAULT_RLIMIT,
    max_cases: int = DEFAULT_MAX_CASES,
    skip_unchanged: bool = False,
) -> RefinementReport:
    """Check that `after` refines `before` for one function (by name) or for every function of
    `before` with a body. Branches and loops are followed as `verify.refinement.control_flow`
    says. Raises `DiagnosticError` for input the check does not support (an op with regions it
    has no rule for, a named function that does not exist).
    `skip_unchanged` (the per-pass hook sets it) takes a function that is `before`'s own, up to
    renaming, over unchanged executables, as refining it without executing either."""
    with paused_gc():  # millions of small acyclic terms: see stream.ir.gc_pause
        return _check(before, after, function, rlimit, max_cases, skip_unchanged)


def _check(before: Module, after: Module, function: str | None, rlimit: int, max_cases: int, skip_unchanged: bool) -> RefinementReport:
    start = time.perf_counter()
    report = RefinementReport(before.location.file, after.location.file)
    if function is not None:
        f = _function(before, function)
        if f is None:
            raise DiagnosticError.at(before.location, f"refinement: BEFORE has no function @{function} with a body")
        pairs = [f]
    else:
        pairs = functions(before)
    for f in pairs:
        g = _function(after, f.name)
        report.functions.append(f.name)
        if g is None:
            if _is_public(f):
                report.mismatches.append(Mismatch(f.name, -1, "-", "function", None, after.location, None,
                                                  f"@{f.name}", "<missing>", f"AFTER has no body for the public function @{f.name}"))
            continue
        if skip_unchanged and _unchanged(before, after, f, g):
            continue  # the same function over the same executables computes the same values
        _check_function(f, g, report, rlimit, max_cases, _unobserved_args(before, f), (before, after))
    report.seconds = time.perf_counter() - start
    return report


def _unchanged(before: Module, after: Module, f: Function, g: Function) -> bool:
    """`g` is `f` up to renaming and every other top-level op (the executables its dispatches
    name, globals) is unchanged too. Then `g` refines `f` whatever they compute: symbolic
    execution is deterministic, so it would give both the same terms (a pass that leaves a
    function alone must not make its check undecided)."""
    if not ops_equal(f.op, g.op):
        return False
    rest_f = [op for op in before.ops if op.name not in FUNCTION_OPS]
    rest_g = [op for op in after.ops if op.name not in FUNCTION_OPS]
    return len(rest_f) == len(rest_g) and all(ops_equal(x, y) for x, y in zip(rest_f, rest_g))


def _function(m: Module, name: str) -> Function | None:
    return function(m, name)


def _is_public(f: Function) -> bool:
    vis = f.op.properties.get("sym_visibility")
    return vis is None or getattr(vis, "value", "public") == "public"


def _memory_mode(f: Function) -> bool:
    """A function with any cmd-level op keeps its contents in explicit memory."""
    for op in f.op.walk():
        spec = spec_of(op)
        if spec is not None and spec.defines_level == "cmd":
            return True
    return False


def _level(f: Function) -> str:
    if _memory_mode(f):
        return "cmd"
    for op in f.op.walk():
        if op.dialect == "flow":
            return "input"
    if any(isinstance(t, TensorType) for t in f.type.inputs + f.type.results):
        return "input"
    return "async"


# -- cases -------------------------------------------------------------------------------------------
def _check_function(
    f: Function, g: Function, report: RefinementReport, rlimit: int, max_cases: int, unobserved: set[int],
    modules: tuple[Module | None, Module | None] = (None, None),
) -> None:
    if len(f.type.inputs) != len(g.type.inputs) or len(f.type.results) != len(g.type.results):
        if _expanded(f, g):
            report.unknowns.append(Unknown(f.name, (
                f"the signature was expanded ({len(f.type.inputs)} -> {len(f.type.results)} values in BEFORE, "
                f"{len(g.type.inputs)} -> {len(g.type.results)} in AFTER: sizes, offsets or timepoints added next to "
                "its resources, as IREE's convert-to-stream and propagate-* passes do); the check pairs values "
                "by position and has no mapping for it"), g.op.location))
            return
        report.mismatches.append(Mismatch(
            f.name, -1, "-", "function", None, g.op.location, None, str(f.type), str(g.type),
            f"the signatures do not correspond: {len(f.type.inputs)} -> {len(f.type.results)} values in BEFORE, "
            f"{len(g.type.inputs)} -> {len(g.type.results)} in AFTER",
        ))
        return
    pending: list[list[z3.BoolRef]] = [[]]
    z3_context = z3.Context()  # private to this check (see `Ints.ctx`), shared by its cases
    cases = 0  # the limit is per function: a module of many static functions is never undecided
    while pending:
        conditions = pending.pop()
        report.cases += 1
        cases += 1
        if cases > max_cases:
            report.unknowns.append(Unknown(f.name, f"more than {max_cases} cases of symbolic sizes to consider", g.op.location))
            return
        ctx = Context.create(rlimit, z3_context)
        for c in conditions:
            ctx.facts.assume(c)
        try:
            if ctx.facts.consistent() is False:
                continue  # an impossible combination of case assumptions
            found = _run_case(ctx, f, g, unobserved, modules)
            if found and ctx.facts.consistent() is False:
                continue  # the program's own facts rule this case out
        except Undecided as e:
            report.solver_queries += ctx.facts.queries
            if e.split is not None:
                pending.append([*conditions, z3.Not(e.split)])
                pending.append([*conditions, e.split])
                continue
            report.unknowns.append(Unknown(f.name, e.reason, g.op.location, [str(c) for c in conditions]))
            return
        report.solver_queries += ctx.facts.queries
        if found:
            example = _example(ctx, conditions) if conditions else {}
            for mm in found:
                mm.assumptions = [_render_condition(ctx, c) for c in conditions]
                mm.example = example
            report.mismatches.extend(found)
            return


def _render_condition(ctx: Context, c: z3.BoolRef) -> str:
    """A case assumption in the programs' own names (`16*%row <= 0`)."""
    pairs = [(ctx.ints.z3_sym(s), z3.Int(s.label, ctx.ints.ctx)) for s in ctx.ints._sym_list]
    return str(z3.substitute(z3.simplify(c), *pairs)) if pairs else str(z3.simplify(c))


def _example(ctx: Context, conditions: list[z3.BoolRef]) -> dict[str, int]:
    if ctx.facts.consistent() is not True:
        return {}
    model = ctx.facts.solver.model()
    out: dict[str, int] = {}
    for sym in ctx.ints._sym_list:
        if sym.key and sym.key[0] in ("arg", "argsize", "pack"):
            v = model.eval(ctx.ints.z3_sym(sym), model_completion=False)
            if isinstance(v, z3.IntNumRef):
                out[sym.label] = v.as_long()
    return out


# -- one case ----------------------------------------------------------------------------------------
@dataclass(slots=True)
class Observed:
    """What a caller sees of one result or buffer: bytes (with the pieces and their writers when
    they come from storage), a scalar, an untouched argument buffer, or nothing (a timepoint)."""

    data: ByteStr | None = None
    scalar: Scalar | None = None
    untouched_arg: int | None = None
    pieces: list[Piece] | None = None
    producer: Op | None = None
    alloc: Allocation | None = None
    offset: IntExpr = 0  # where the observed bytes start in `alloc` (pieces use absolute offsets)
    res: Res | None = None  # the value-level resource observed (for tracing who wrote a byte)
    machine: Machine | None = None
    name: str = ""
    nothing: bool = False


def _run_case(
    ctx: Context, f: Function, g: Function, unobserved: set[int], modules: tuple[Module | None, Module | None] = (None, None),
) -> list[Mismatch]:
    mb = Machine(ctx, "before", f, _level(f))
    mb.module = modules[0]
    run_initializers(mb, modules[0])
    run_function(mb)
    ma = Machine(ctx, "after", g, _level(g))
    ma.module = modules[1]
    run_initializers(ma, modules[1])
    run_function(ma)
    for m in (mb, ma):
        if m.results is None:
            raise DiagnosticError.at(m.func.op.location, f"refinement: @{m.func.name} does not end with a return")
    cmp = Comparer(ctx)
    check_loops(ctx)  # every result below rests on the loops' induction (Undecided when it fails)
    out: list[Mismatch] = []
    assert mb.results is not None and ma.results is not None
    names_b = _result_names(mb)
    names_a = _result_names(ma)
    for j, (eb, ea) in enumerate(zip(mb.results, ma.results)):
        ob = _observe(mb, eb, names_b[j])
        oa = _observe(ma, ea, names_a[j])
        mm = _compare(ctx, cmp, f.name, "result", j, ob, oa, ma.return_op)
        if mm is not None:
            out.append(mm)
    out.extend(_compare_globals(ctx, cmp, f.name, mb, ma))
    for p in range(len(f.arguments)):
        if p in unobserved:
            continue
        expected = _expected_storage(mb, p, f)
        if expected is None:
            continue
        actual = _actual_storage(ma, p, g, expected)
        mm = _compare(ctx, cmp, f.name, "argument", p, expected, actual, ma.return_op)
        if mm is not None:
            out.append(mm)
    return out


def _compare_globals(ctx: Context, cmp: Comparer, fname: str, mb: Machine, ma: Machine) -> list[Mismatch]:
    """The mutable globals either program touches: equal after the initializers (the base case),
    and equal when the call returns (the step), with no state the caller can reach. A call to
    another function may load or store them too, which the machine does not follow (a call is
    an opaque op): with mutable globals in either module, such a function is undecided."""
    out: list[Mismatch] = []
    ret = ma.return_op
    for m in (mb, ma):
        call = next((op for op in m.func.op.walk() if op.name in CALL_OPS), None)
        state = m.module is not None and any(
            op.name == "util.global" and mutable_decl(m, getattr(op.properties.get("sym_name"), "value", "")) is not None
            for op in m.module.ops)
        if call is not None and state:
            raise Undecided(f"@{fname} calls another function at {call.location}, which may load or store the module's mutable "
                            "globals: the comparison of the two programs' global state does not follow calls")
    for name in sorted(mb.global_touched | ma.global_touched):
        if mutable_decl(mb, name) is None or mutable_decl(ma, name) is None:
            raise Undecided(f"@{name} is a mutable global in one program and not in the other: their states are not related")
        ib, ia = initial_state(mb, name), initial_state(ma, name)
        if (ib is None) != (ia is None):
            raise Undecided(f"@{name} holds a value after the initializers in one program only")
        if ib is not None and ia is not None:
            ob, oa = _observe_snapshot(ib, f"@{name}"), _observe_snapshot(ia, f"@{name}")
            mm = _compare(ctx, cmp, fname, "initial global", -1, ob, oa, ret)
            if mm is not None:
                out.append(mm)
        for m in (mb, ma):
            check_private(m, name)
            e = current(m, name)
            if m.level != "input" and isinstance(e, Res) and (
                    any(r is e for r in m.results or ()) or any(x.res is e for x in m.exports)):
                raise Undecided(f"@{name} holds a value the call also hands to the caller: the caller could change the "
                                "global's state between calls, which the comparison of the two programs' states does not follow")
        mm = _compare(ctx, cmp, fname, "global", -1, _observe_global(mb, name), _observe_global(ma, name), ret)
        if mm is not None:
            out.append(mm)
    return out


def _observe_snapshot(snap: tuple[object, ...], name: str) -> Observed:
    if snap[0] == "res":
        return Observed(data=snap[2], name=name)  # type: ignore[arg-type]
    return Observed(scalar=snap[1], name=name)  # type: ignore[arg-type]


def _observe_global(m: Machine, name: str) -> Observed:
    """What the mutable global `name` holds when the call returns: the value the call stored last,
    else what it held at entry; the contents of its storage now when it has storage (an in-place
    write after the store, or to the entry storage, changes the state), else its bytes."""
    e = current(m, name)
    label = f"@{name}"
    if isinstance(e, Res) and e.alloc is not None:  # storage: what it holds now (an in-place write after the store counts)
        o = _final(m, e.alloc, e.offset, e.size)
        o.name = label
        return o
    snap = m.global_snap.get(name)
    if isinstance(e, Res) and snap is not None:
        return Observed(data=snap, producer=e.producer, res=e, machine=m, name=label)
    return _observe(m, e, label)


def _expanded(f: Function, g: Function) -> bool:
    """AFTER's signature is BEFORE's with values added next to its resources (every added value an
    index or a timepoint, BEFORE's own types otherwise kept or lowered tensor -> resource), and no
    buffer view at the boundary (an ABI function whose signature changed is a mismatch)."""
    def kinds(types: object) -> list[str]:
        out = []
        for t in types:  # type: ignore[attr-defined]
            out.append("resource" if isinstance(t, (ResourceType, TensorType)) else str(t))
        return out

    if any("buffer_view" in str(t) for t in (*f.type.inputs, *f.type.results)):
        return False
    for before, after in ((kinds(f.type.inputs), kinds(g.type.inputs)), (kinds(f.type.results), kinds(g.type.results))):
        rest = [k for k in after if k not in ("index", "!stream.timepoint")]
        if len(after) < len(before) or rest != [k for k in before if k not in ("index", "!stream.timepoint")]:
            return False
    return True



def _unobserved_args(module: Module, f: Function) -> set[int]:
    """Arguments of a private function whose buffer no caller can look at after the call: at
    every call site in BEFORE (there must be one) the value passed is made in the caller (not
    the caller's own argument, nor an import the caller does not consume) and has no later use
    there. IREE's elide-async-copies relies on exactly this to drop a callee's defensive clone
    (a callee writing such an argument in place changes nothing any caller sees)."""
    vis = f.op.properties.get("sym_visibility")
    if vis is None or getattr(vis, "value", None) != "private":
        return set()
    sites: list[tuple[Op, list[Op]]] = []
    for g in functions(module):
        for block in g.op.regions[0].blocks:
            ops = list(block.ops)
            for i, op in enumerate(ops):
                if op.name in CALL_OPS and getattr(op.properties.get("callee"), "root", None) == f.name and \
                        not getattr(op.properties.get("callee"), "nested", ()):
                    sites.append((op, ops[i + 1:]))
            for op in block.ops:
                for inner in op.walk():
                    if inner is not op and inner.name in CALL_OPS and getattr(inner.properties.get("callee"), "root", None) == f.name:
                        return set()  # a call in a nested region: its later uses are not followed here
    if not sites:
        return set()
    defs = {r: op for g in functions(module) for op in g.op.walk() for r in op.results}
    out = set(range(len(f.arguments)))
    for call, later in sites:
        for p in list(out):
            if p >= len(call.operands):
                out.discard(p)
                continue
            v = call.operands[p]
            if not isinstance(v.type, ResourceType) or call.operands.count(v) > 1:
                out.discard(p)
                continue
            if not _made_in_caller(v, defs):
                out.discard(p)  # the caller's argument, or a borrowed import: its caller sees it
                continue
            if any(v in inner.operands for op in later for inner in op.walk()):
                out.discard(p)
    return out


def _made_in_caller(v: Value, defs: dict[Value, Op]) -> bool:
    """`v` is storage the caller made (following ties and aliases back to their operand): not a
    block argument, not an import without `consume`, not an op the check knows nothing of."""
    for _ in range(10_000):
        op = defs.get(v)
        if op is None:
            return False  # a block argument: the caller's caller's storage
        if op.name == "stream.tensor.import":
            return "consume" in op.properties
        spec = spec_of(op)
        if spec is None:
            return False
        index = op.results.index(v)
        back = spec.tied_operand(op, index)
        if back is None:
            back = next((o for o, r, _ in alias_pairs(spec, op) if r == index), None)
        if back is None:
            return True  # a new value
        v = op.operands[back]
    return False


def _result_names(m: Machine) -> list[str]:
    op = m.return_op
    assert op is not None
    return [f"%{v.name_hint}" if v.name_hint else "(unnamed)" for v in op.operands]


def _final(m: Machine, alloc: Allocation, offset: IntExpr, size: IntExpr) -> Observed:
    pieces = m.memory.read_traced(alloc, offset, size)
    data = pieces[0].data if len(pieces) == 1 else m.terms.concat(p.data for p in pieces)
    return Observed(data=data, pieces=pieces, alloc=alloc, offset=offset)


def _observe(m: Machine, e: object, name: str) -> Observed:
    if isinstance(e, BufView):
        if e.res is not None:
            if e.data is not None:
                return Observed(data=e.data, producer=e.res.producer or e.export, res=e.res, machine=m, name=name)
            assert e.res.alloc is not None
            o = _final(m, e.res.alloc, e.res.offset, e.res.size)
            o.name = name
            return o
        assert e.arg is not None
        alloc = m.arg_allocs.get(e.arg)
        if alloc is None:
            return Observed(untouched_arg=e.arg, name=name)
        o = _final(m, alloc, 0, alloc.size)
        o.name = name
        return o
    if isinstance(e, Res):
        if e.data is not None:
            return Observed(data=e.data, producer=e.producer, res=e, machine=m, name=name)
        assert e.alloc is not None
        o = _final(m, e.alloc, e.offset, e.size)
        o.name = name
        return o
    if e is None:
        return Observed(nothing=True, name=name)
    return Observed(scalar=e, name=name)  # type: ignore[arg-type]


def _expected_storage(mb: Machine, p: int, f: Function) -> Observed | None:
    """What BEFORE promises the caller about the buffer of argument `p` after the call, or None
    when it promises nothing."""
    arg = f.arguments[p]
    t = arg.type
    name = f"%{arg.name_hint}" if arg.name_hint else f"%arg{p}"
    if isinstance(t, (IndexType, IntegerType, FloatType)):
        return None
    if isinstance(t, TensorType):  # the input level: the ABI says it
        given = f.arg_attr(p, "iree.abi.consume") is not None or f.arg_attr(p, "iree.abi.output") is not None
        if given or p in mb.tied_args:
            # Given away, or written in place although borrowed: the program asks for storage it
            # does not own (copy-on-write must copy it; BORROWED_INPUT_MUTATED reports a lowering
            # that does not), so it promises nothing about the buffer.
            return None
        return Observed(untouched_arg=p, name=name)
    alloc = mb.arg_allocs.get(p)
    if alloc is None:
        return Observed(untouched_arg=p, name=name) if not isinstance(t, ResourceType) else None
    if alloc.unconstrained is not None or (alloc.kind == "import" and alloc.consumed):
        return None
    o = _final(mb, alloc, 0, alloc.size)
    o.name = name
    return o


def _actual_storage(ma: Machine, p: int, g: Function, expected: Observed) -> Observed:
    arg = g.arguments[p]
    name = f"%{arg.name_hint}" if arg.name_hint else f"%arg{p}"
    alloc = ma.arg_allocs.get(p)
    if isinstance(arg.type, TensorType) or alloc is None:
        return Observed(untouched_arg=p, name=name)  # input-level arguments are never written
    o = _final(ma, alloc, 0, alloc.size)
    o.name = name
    return o


# -- comparing one observable -----------------------------------------------------------------------------
def _as_bytes(ctx: Context, o: Observed, other: Observed) -> ByteStr | None:
    if o.data is not None:
        return o.data
    if o.untouched_arg is not None:
        length = other.data.length if other.data is not None else None
        if length is None:
            return None
        return ctx.terms.of(ctx.terms.arg(o.untouched_arg), length)
    return None


def _compare(ctx: Context, cmp: Comparer, fname: str, kind: str, index: int, ob: Observed, oa: Observed, ret: Op | None) -> Mismatch | None:
    name = oa.name or ob.name
    if ob.nothing and oa.nothing:
        return None
    if ob.scalar is not None or oa.scalar is not None:
        if ob.scalar is not None and oa.scalar is not None and cmp.scalar(ob.scalar, oa.scalar):
            return None
        render = ctx.terms.render_scalar
        return Mismatch(fname, index, name, kind, ret.name if ret else None, ret.location if ret else None, None,
                        render(ob.scalar) if ob.scalar is not None else "<not a scalar>",
                        render(oa.scalar) if oa.scalar is not None else "<not a scalar>",
                        "the scalar values differ")
    if ob.untouched_arg is not None and oa.untouched_arg is not None:
        if ob.untouched_arg == oa.untouched_arg:
            return None
    b = _as_bytes(ctx, ob, oa)
    a = _as_bytes(ctx, oa, ob)
    if b is None or a is None:
        return Mismatch(fname, index, name, kind, ret.name if ret else None, ret.location if ret else None, None,
                        "<bytes>" if b is not None else "<not bytes>", "<bytes>" if a is not None else "<not bytes>",
                        "the two programs return different kinds of values")
    d = cmp.bytes(b, a)
    if d is None:
        return None
    context, context_reason = _context(ctx, oa, d)
    blame = cmp.locate(d, context, context_reason)
    ints = ctx.ints
    op = blame.op
    location: Location | None = op.location if op is not None else (ret.location if ret else None)
    return Mismatch(
        fname, index, name, kind,
        _describe(op) if op is not None else None,
        location,
        (ints.render(d.position), ints.render(ints.add(d.position, d.length))) if d.before_atom is not None else None,
        cmp.render_piece(d.before_atom, d.before_offset, d.length) if d.before_atom is not None else d.reason,
        cmp.render_piece(d.after_atom, d.after_offset, d.length) if d.after_atom is not None else d.reason,
        blame.reason,
    )


def _context(ctx: Context, oa: Observed, d: Divergence) -> tuple[Op | None, str]:
    """The op of AFTER that put the differing bytes where the caller sees them."""
    if oa.pieces is not None:
        ints, facts = ctx.ints, ctx.facts
        at = ints.add(oa.offset, d.position)
        candidates = [p for p in oa.pieces if facts.le(p.lo, at) is True and facts.le(ints.add(at, 1), p.hi) is True]
        for p in candidates or oa.pieces[:1]:
            if p.writer is not None:
                return p.writer, f"these bytes were last written by {p.writer.name}"
            alloc = oa.alloc
            what = alloc.what if alloc is not None else "the storage"
            return (alloc.op if alloc is not None else None), f"these bytes are never written in AFTER (still the initial contents of {what})"
    if oa.res is not None and oa.machine is not None:
        writer = oa.machine.writer_of(oa.res, d.position)
        if isinstance(d.after_atom, UninitAtom) and oa.producer is not None and writer is not oa.producer:
            # Bytes nobody wrote: blame the op that produced the value the caller sees with them.
            where = f" (uninitialized since {writer.name} at {writer.location})" if writer is not None else ""
            return oa.producer, f"{oa.producer.name} yields bytes nobody wrote{where}"
        if writer is not None:
            return writer, f"these bytes come from {writer.name}"
    if oa.producer is not None:
        return oa.producer, f"the value comes from {oa.producer.name}"
    return None, "the values differ"


def _describe(op: Op) -> str:
    sym = op.properties.get("entry_points")
    if sym is not None:
        from verify.refinement.machine import entry_points

        return f"{op.name} {', '.join(entry_points(op))}"
    return op.name
