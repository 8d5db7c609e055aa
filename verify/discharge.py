"""Discharging obligations: exact reachability first, Z3 for everything symbolic.

`--smt=pruned` (the default): an ordering requirement is decided by `verify.hb` (exact, see its
docstring); a range condition whose expressions are all constants is decided by integer
arithmetic (exact); every remaining condition, i.e. all symbolic range arithmetic, is a Z3
query under the facts the program implies (`verify.symbolic`).

`--smt=full`: every obligation (except structural facts such as "freed twice") is one Z3 query
over the whole event graph (a time variable per event, `t_u < t_v` per edge) and the range
condition, with no reachability and no constant folding: an independent oracle for the pruned
mode (a linear extension of the graph exists exactly when an ordering is not forced).

Fail closed: `unknown`, including an `rlimit` hit, is never "proved" (status `unknown`, exit 3);
so are `opaque` obligations (accesses through storage the model cannot name). A violation that
depends on an op without an effect rule is `unknown` too, naming the op (`verify.unmodelled`).
`smt_dump` writes every query as an SMT-LIB 2 file (with `set-logic`) that z3 or cvc5 re-check:
`sat` means a violation, `unsat` a proof.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field

import z3

from stream.ir.core import Op
from verify.events import Site
from verify.hb import HappensBefore
from verify.model import FunctionModel
from verify.obligations import Cond, Obligation
from verify.symbolic import Expr
from verify.unmodelled import Unmodelled

__all__ = ["Verdict", "Decider", "Stats", "DEFAULT_RLIMIT"]

DEFAULT_RLIMIT = 20_000_000
_MAX_SOLVERS = 64  # incremental solvers kept per function, one per closure of facts


@dataclass(slots=True)
class Verdict:
    status: str  # proved | violated | unknown
    how: str  # reachability | constant | z3 | structure
    values: dict[int, int] = field(default_factory=dict)  # atom id -> value (Z3 model)
    reason: str = ""


@dataclass(slots=True)
class Stats:
    obligations: int = 0
    by_reachability: int = 0
    by_constant: int = 0
    by_z3: int = 0
    violated: int = 0
    unknown: int = 0
    z3_queries: int = 0

    def add(self, other: Stats) -> None:
        for f in self.__slots__:  # type: ignore[attr-defined]
            setattr(self, f, getattr(self, f) + getattr(other, f))


def cond_z3(model: FunctionModel, cond: Cond) -> z3.BoolRef:
    s = model.symbols
    return z3.Or(*[z3.And(*[s.z3(e) > 0 for e in conj]) for conj in cond]) if cond else z3.BoolVal(False, s.ctx)


def cond_exprs(cond: Cond) -> list[Expr]:
    return [e for conj in cond for e in conj]


class Decider:
    def __init__(
        self, model: FunctionModel, hb: HappensBefore, smt: str = "pruned", rlimit: int = DEFAULT_RLIMIT,
        dump_dir: str | None = None, dump_prefix: str = "",
    ) -> None:
        self.model = model
        self.hb = hb
        self.full = smt == "full"
        self.rlimit = rlimit
        self.dump_dir = dump_dir
        self.dump_prefix = dump_prefix or model.func.name
        self.stats = Stats()
        self._cache: dict[object, Verdict] = {}
        self._core_proofs: set[object] = set()  # canonical keys of conditions proved under their core
        self._times: list[z3.ArithRef] | None = None
        self._solvers: dict[tuple[frozenset[int], tuple[int, ...]], z3.Solver] = {}
        self._unmodelled = Unmodelled(model)
        self._tops: dict[Op, int] | None = None  # op -> index of its top-level op (runtime checks)

    # -- entry point ----------------------------------------------------------------------------
    def decide(self, ob: Obligation) -> Verdict:
        self.stats.obligations += 1
        v = self._full(ob) if self.full else self._pruned(ob)
        if v.status == "violated":
            why = self._unmodelled.why(ob)
            if why is not None:  # the violation depends on what an op without a rule does
                v = Verdict("unknown", v.how, reason=why)
        if v.status == "violated":
            self.stats.violated += 1
        elif v.status == "unknown":
            self.stats.unknown += 1
        elif v.how == "reachability":
            self.stats.by_reachability += 1
        elif v.how == "constant":
            self.stats.by_constant += 1
        elif v.how == "z3":
            self.stats.by_z3 += 1
        return v

    def before(self, a: Site, b: Site) -> bool:
        return self.hb.before(a, b)

    # -- pruned mode ----------------------------------------------------------------------------
    def _pruned(self, ob: Obligation) -> Verdict:
        shape, hb = ob.shape, self.hb
        if shape == "fact":
            return Verdict("violated", "structure")
        if shape == "opaque":
            return Verdict("unknown", "structure", reason=ob.detail)
        if shape == "range":
            return self._cond(ob, ob.cond or ())
        assert ob.first is not None and ob.second is not None
        if shape == "order":
            return Verdict("proved" if hb.before(ob.first, ob.second) else "violated", "reachability")
        if shape == "order_any":
            ok = any(hb.before(ob.first, t) for t in ob.targets)
            return Verdict("proved" if ok else "violated", "reachability")
        if shape == "order_if_overlap":
            if hb.before(ob.first, ob.second):
                return Verdict("proved", "reachability")
            return self._cond(ob, ob.cond or ())
        if shape == "conflict":
            if ob.first is not ob.second and hb.ordered(ob.first, ob.second):
                return Verdict("proved", "reachability")
            return self._cond(ob, ob.cond or ())
        if shape == "pack":
            xs, ys = ob.groups
            if all(hb.before(x.site, y.site) for x in xs for y in ys) or all(hb.before(y.site, x.site) for x in xs for y in ys):
                return Verdict("proved", "reachability")
            return self._cond(ob, ob.cond or ())
        raise AssertionError(f"unknown obligation shape {shape}")

    def _cond(self, ob: Obligation, cond: Cond) -> Verdict:
        """Can the condition hold? Constants are evaluated; the rest goes to Z3."""
        symbolic: list[tuple[Expr, ...]] = []
        for conj in cond:
            if all(e.is_const for e in conj):
                if all(e.const > 0 for e in conj):
                    return Verdict("violated", "constant")
                continue
            if any(e.is_const and e.const <= 0 for e in conj):
                continue
            symbolic.append(conj)
        if not symbolic:
            return Verdict("proved", "constant")
        cond_ = tuple(symbolic)
        v = self._cond_z3(ob, cond_)
        if v.status != "proved":
            # What the runtime checks before the op establish only strengthens the assumptions:
            # asked only when the question is open without them (most queries never need them,
            # and the guard joins every query on checked values into one closure).
            guarded = self._guarded(ob, cond_)
            if guarded is not cond_:
                v = self._cond_z3(ob, guarded)
        return v

    def _cond_z3(self, ob: Obligation, cond_: Cond) -> Verdict:
        # Queries equal up to a renaming of atoms (the same layout in another region) have the
        # same answer: each distinct one is solved once. A cached failure is solved again for
        # its own counterexample values.
        key = self.model.symbols.canonical(cond_) or cond_
        hit = self._cache.get(key)
        if hit is not None and hit.status != "violated":
            return Verdict(hit.status, hit.how, {}, hit.reason)
        v = self._solve(ob, [cond_z3(self.model, cond_)], cond_exprs(cond_), cond_)
        self._cache[key] = v
        return v

    # -- runtime checks -------------------------------------------------------------------------
    def _guarded(self, ob: Obligation, cond: Cond) -> Cond:
        """`cond` on the executions that issue the obligation's latest op: those passed every
        runtime check before it (`cf.assert`, `hal.buffer_view.assert`; verify.int_facts), so
        each conjunction gets that check's guard. Unchanged when no check precedes the op or
        the condition does not depend on what the checks establish."""
        symbols = self.model.symbols
        if not symbols.guards:
            return cond
        position = self._position(ob)
        guard = symbols.guard_before(position) if position is not None else None
        if guard is None or guard.atoms()[0] not in symbols.closure(cond_exprs(cond))[0]:
            return cond
        return tuple((*conj, guard) for conj in cond)

    def _position(self, ob: Obligation) -> int | None:
        """The index in the function body of the latest top-level op the obligation involves."""
        sites = [ob.first, ob.second, *ob.targets, *(a.site for g in ob.groups for a in g)]
        sites += [a.site for a in (ob.x, ob.y) if a is not None]
        rc = ob.range_check
        if rc is not None:
            sites.append(rc.site)
        found = [s.order[0] for s in sites if s is not None and s.order]
        if self._tops is None:
            self._tops = {inner: i for i, top in enumerate(self.model.func.body.ops) for inner in top.walk()}
        for op in (ob.op, rc.op if rc is not None else None):
            if op is not None and op in self._tops:
                found.append(self._tops[op])
        return max(found) if found else None

    # -- full mode ------------------------------------------------------------------------------
    def times(self) -> list[z3.ArithRef]:
        if self._times is None:
            self._times = [z3.Int(f"t{e}", self.model.symbols.ctx) for e in range(len(self.model.graph))]
        return self._times

    def edges(self, t: list[z3.ArithRef]) -> list[z3.BoolRef]:
        g = self.model.graph
        return [t[u] < t[v] for u, v in zip(g.src, g.dst)]

    def unordered(self, t: list[z3.ArithRef], a: Site, b: Site) -> z3.BoolRef:
        """Some execution runs `b` before `a` is done: not `a ≺ b`."""
        return t[b.start] < t[a.end] if b.start != a.end else z3.BoolVal(False, self.model.symbols.ctx)

    def _full(self, ob: Obligation) -> Verdict:
        if ob.shape == "fact":
            return Verdict("violated", "structure")
        if ob.shape == "opaque":
            return Verdict("unknown", "structure", reason=ob.detail)
        cond = self._guarded(ob, ob.cond) if ob.cond else ob.cond
        exprs = cond_exprs(cond) if cond else []
        parts: list[z3.BoolRef] = [cond_z3(self.model, cond)] if cond is not None else []
        if ob.shape != "range":
            t = self.times()
            parts.extend(self.edges(t))
            a, b = ob.first, ob.second
            assert a is not None and b is not None
            if ob.shape in ("order", "order_if_overlap"):
                parts.append(self.unordered(t, a, b))
            elif ob.shape == "order_any":
                parts.extend(self.unordered(t, a, x) for x in ob.targets)
            elif ob.shape == "conflict":
                if a is not b:
                    parts.extend((self.unordered(t, a, b), self.unordered(t, b, a)))
            elif ob.shape == "pack":
                # Two executions: one runs some use of slice j no earlier than a use of slice i
                # ends... and one the other way round: the slices are not separated in time.
                t2 = [z3.Int(f"u{e}", self.model.symbols.ctx) for e in range(len(self.model.graph))]
                parts.extend(self.edges(t2))
                xs, ys = ob.groups
                parts.append(z3.Or(*[self.unordered(t, x.site, y.site) for x in xs for y in ys]))
                parts.append(z3.Or(*[self.unordered(t2, y.site, x.site) for x in xs for y in ys]))
        return self._solve(ob, parts, exprs)

    # -- Z3 ---------------------------------------------------------------------------------------
    def _solve(self, ob: Obligation, parts: list[z3.BoolRef], exprs: list[Expr], cond: Cond | None = None) -> Verdict:
        """Decide `parts` (`cond`, when they are just that condition) under the facts of `exprs`."""
        self.stats.z3_queries += 1
        symbols = self.model.symbols
        closure = symbols.closure(exprs)
        # A nonlinear closure gets a fresh solver per query (below), which then re-asserts every
        # pack's layout: ask first under the facts that usually decide it (a proof from fewer
        # facts is a proof). A linear closure shares one incremental solver, which is cheaper.
        # Conditions equal up to a renaming of atoms under their cores (one layer of a model
        # against the next) are proved once.
        if any(symbols.facts[fi].nonlinear for fi in closure[1]):
            core = symbols.core(exprs)
            if core[1] != closure[1]:
                key = symbols.canonical(cond, core[1]) if cond is not None else None
                if key is not None and key in self._core_proofs:
                    return Verdict("proved", "z3")
                verdict = self._solve_in(ob, parts, exprs, core)
                if verdict.status == "proved":
                    if key is not None:
                        self._core_proofs.add(key)
                    return verdict
        return self._solve_in(ob, parts, exprs, closure)

    def _solve_in(self, ob: Obligation, parts: list[z3.BoolRef], exprs: list[Expr], closure: tuple[frozenset[int], tuple[int, ...]]) -> Verdict:
        symbols = self.model.symbols
        atoms, facts = closure
        shared = self._solvers.get((atoms, facts))
        if shared is None:
            assumptions, nonlinear = symbols.closure_assumptions(atoms, facts)
            if nonlinear:  # Z3's incremental core is weaker on nonlinear arithmetic: a fresh solver
                return self._check(ob, self._fresh(assumptions), parts, exprs, nonlinear)
            shared = self._remember((atoms, facts), self._fresh(assumptions))
        # The query in a push/pop scope on top of its closure's facts; if the incremental core
        # gives up, the same question goes to a fresh solver, as it did before this cache.
        shared.push()
        try:
            verdict = self._check(ob, shared, parts, exprs, False)
        finally:
            shared.pop()
        if verdict.status != "unknown":
            return verdict
        return self._check(ob, self._fresh(symbols.closure_assumptions(atoms, facts)[0]), parts, exprs, False)

    def _fresh(self, assumptions: list[z3.BoolRef]) -> z3.Solver:
        solver = z3.Solver(ctx=self.model.symbols.ctx)
        solver.set("rlimit", self.rlimit)  # per `check`, also on a solver that answers many
        solver.add(*assumptions)
        return solver

    def _remember(self, key: tuple[frozenset[int], tuple[int, ...]], solver: z3.Solver) -> z3.Solver:
        """Keep an incremental solver per closure of linear facts: the queries about one program
        share a few closures (every range of one pack depends on all of its layout facts, often
        hundreds), so the facts are asserted once instead of once per query."""
        if len(self._solvers) >= _MAX_SOLVERS:
            self._solvers.pop(next(iter(self._solvers)))  # the oldest closure
        self._solvers[key] = solver
        return solver

    def _check(self, ob: Obligation, solver: z3.Solver, parts: list[z3.BoolRef], exprs: list[Expr], nonlinear: bool) -> Verdict:
        solver.add(*parts)
        if self.dump_dir is not None:
            self._dump(ob, solver, nonlinear)
        result = solver.check()
        if result == z3.sat:
            return Verdict("violated", "z3", self.model.symbols.model_values(solver.model(), exprs))
        if result == z3.unsat:
            return Verdict("proved", "z3")
        return Verdict("unknown", "z3", reason=f"solver: {solver.reason_unknown() or 'unknown'}")

    def _dump(self, ob: Obligation, solver: z3.Solver, nonlinear: bool) -> None:
        assert self.dump_dir is not None
        os.makedirs(self.dump_dir, exist_ok=True)
        name = f"{self.dump_prefix}_{self.stats.z3_queries:05d}_{ob.cls.lower()}.smt2"
        where = ob.first.op.location if ob.first is not None else (ob.op.location if ob.op is not None else None)
        logic = "QF_NIA" if nonlinear else "QF_LIA"
        body = solver.to_smt2()
        header = (
            f"; streamproof obligation {ob.cls} ({ob.shape}) at {where}\n"
            "; sat: the property can be violated (a counterexample exists); unsat: proved\n"
            f"(set-logic {logic})\n"
        )
        # Written beside and renamed into place: a symlink (or anything else) already at that name
        # in the dump directory is replaced, never written through.
        path = os.path.join(self.dump_dir, name)
        tmp = f"{path}.{os.getpid()}.tmp"
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)  # a leftover of a killed run (unlink removes a link, never its target)
        with open(tmp, "x", encoding="utf-8") as f:
            f.write(header + body)
        os.replace(tmp, path)
