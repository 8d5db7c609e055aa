"""The proof gate: general lemmas proved in Z3 and a corpus of programs with expected verdicts.

A *lemma* is a Python file defining `LEMMA = Lemma(...)`: a statement in words, the claim as Z3
formulas over symbolic programs (`claims()` returns them; each must hold), and whether it is
expected to be proved or refuted (the union rule of coverage at alternatives is *refuted*: Z3
gives the counterexample). A lemma is proved when the negation of its claims is unsatisfiable.

A *corpus program* is an `.mlir` file with header lines `// EXPECT: proved` or
`// EXPECT: CLASS [CLASS...]`; the set of classes the verifier reports must equal the expected
set, in the pruned and in the full SMT mode.

`run(paths)` checks everything found under `paths` (files or directories); any result that
differs from its expectation is a *surprise*.
"""

from __future__ import annotations

import importlib.util
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import z3

__all__ = ["Lemma", "LemmaResult", "CorpusResult", "ProveReport", "run", "check_lemma", "check_program", "expectations", "default_root"]


@dataclass(frozen=True)
class Lemma:
    name: str
    statement: str
    claims: Callable[[], list[z3.BoolRef]]
    expect: str = "proved"  # "proved" | "refuted"
    rlimit: int = 50_000_000


@dataclass(slots=True)
class LemmaResult:
    path: str
    lemma: Lemma | None
    status: str  # proved | refuted | unknown | error
    detail: str = ""
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.lemma is not None and self.status == self.lemma.expect

    def line(self) -> str:
        name = self.lemma.name if self.lemma else Path(self.path).stem
        mark = "ok  " if self.ok else "FAIL"
        expect = f" (expected {self.lemma.expect})" if self.lemma is not None and not self.ok else ""
        extra = f": {self.detail}" if self.detail else ""
        return f"{mark} lemma {name}: {self.status}{expect}{extra}"


@dataclass(slots=True)
class CorpusResult:
    path: str
    expected: set[str]
    got: dict[str, set[str]] = field(default_factory=dict)  # smt mode -> classes ("proved" when none)
    detail: str = ""
    seconds: float = 0.0

    @property
    def unreadable(self) -> bool:
        """The program was never verified: no expectation, or it does not parse (bad input)."""
        return not self.got

    @property
    def ok(self) -> bool:
        return bool(self.got) and all(g == self.expected for g in self.got.values()) and not self.detail

    def line(self) -> str:
        mark = "ok  " if self.ok else "FAIL"
        exp = " ".join(sorted(self.expected))
        if self.ok:
            return f"{mark} corpus {Path(self.path).name}: {exp}"
        got = "; ".join(f"{mode}: {' '.join(sorted(g))}" for mode, g in self.got.items())
        if self.unreadable:
            return f"{mark} corpus {Path(self.path).name}: {self.detail}"
        return f"{mark} corpus {Path(self.path).name}: expected {exp}, got {got}{(' ' + self.detail) if self.detail else ''}"


@dataclass(slots=True)
class ProveReport:
    lemmas: list[LemmaResult] = field(default_factory=list)
    programs: list[CorpusResult] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def results(self) -> list[LemmaResult | CorpusResult]:
        """Every lemma, then every corpus program."""
        out: list[LemmaResult | CorpusResult] = [*self.lemmas, *self.programs]
        return out

    @property
    def surprises(self) -> list[LemmaResult | CorpusResult]:
        return [r for r in self.results if not r.ok]

    @property
    def ok(self) -> bool:
        return not self.surprises and bool(self.lemmas or self.programs)

    def text(self, verbose: bool = True) -> str:
        lines = [r.line() for r in self.results if verbose or not r.ok]
        n = len(self.surprises)
        lines.append(
            f"{len(self.lemmas)} lemma(s), {len(self.programs)} program(s): "
            + ("all as expected" if n == 0 else f"{n} surprise(s)") + f" in {self.seconds:.2f} s"
        )
        return "\n".join(lines)


def load_lemma(path: Path) -> Lemma:
    spec = importlib.util.spec_from_file_location(f"streamproof_lemma_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    lemma = getattr(module, "LEMMA", None)
    if not isinstance(lemma, Lemma):
        raise ImportError(f"{path} defines no LEMMA = Lemma(...)")
    return lemma


def check_lemma(path: Path) -> LemmaResult:
    start = time.perf_counter()
    try:
        lemma = load_lemma(path)
    except Exception as e:  # a broken lemma file is a surprise, not a crash of the gate
        return LemmaResult(str(path), None, "error", f"{type(e).__name__}: {e}")
    solver = z3.Solver()
    solver.set("rlimit", lemma.rlimit)
    solver.add(z3.Not(z3.And(*lemma.claims())))
    result = solver.check()
    seconds = time.perf_counter() - start
    if result == z3.unsat:
        return LemmaResult(str(path), lemma, "proved", "", seconds)
    if result == z3.sat:
        model = solver.model()
        shown = ", ".join(f"{d.name()} = {model[d]}" for d in sorted(model.decls(), key=lambda d: d.name()) if d.arity() == 0)
        return LemmaResult(str(path), lemma, "refuted", f"counterexample: {shown}", seconds)
    return LemmaResult(str(path), lemma, "unknown", solver.reason_unknown(), seconds)


_EXPECT = re.compile(r"^\s*//\s*EXPECT:\s*(.*)$")


def expectations(text: str) -> set[str]:
    out: set[str] = set()
    for line in text.splitlines():
        m = _EXPECT.match(line)
        if m:
            out.update(m.group(1).split())
    return out


def check_program(path: Path, modes: Iterable[str] = ("pruned", "full")) -> CorpusResult:
    from stream.ir.diagnostics import DiagnosticError
    from stream.ir.parser import parse_module
    from stream.ir.verifier import verify_structure
    from verify.api import verify_module

    start = time.perf_counter()
    text = path.read_text()
    result = CorpusResult(str(path), expectations(text))
    if not result.expected:
        result.detail = "no '// EXPECT:' line (the verdicts the program must get, e.g. '// EXPECT: proved')"
        return result
    try:
        module = parse_module(text, str(path))
        verify_structure(module)
        for mode in modes:
            report = verify_module(module, smt=mode)
            got = set(report.classes) | ({"UNKNOWN"} if report.unknowns else set())
            got = got or {"proved"}  # "proved" only when nothing is violated or undecided
            result.got[mode] = got
    except DiagnosticError as e:
        result.detail = f"bad input: {e.diagnostic.location}: error: {e.diagnostic.message}"
    result.seconds = time.perf_counter() - start
    return result


def default_root() -> Path:
    """`proofs/` of the checkout this package runs from, else `./proofs`."""
    here = Path(__file__).resolve().parent.parent / "proofs"
    return here if here.is_dir() else Path("proofs")


def run(paths: Iterable[Path], modes: Iterable[str] = ("pruned", "full")) -> ProveReport:
    start = time.perf_counter()
    report = ProveReport()
    modes = tuple(modes)
    for root in paths:
        files = sorted(root.rglob("*")) if root.is_dir() else [root]
        for f in files:
            lemma_file = f.suffix == ".py" and (f == root or f.parent.name == "lemmas") and not f.name.startswith(("_", "test_"))
            if lemma_file:
                report.lemmas.append(check_lemma(f))
            elif f.suffix == ".mlir":
                report.programs.append(check_program(f, modes))
    report.seconds = time.perf_counter() - start
    return report
