"""The fuzz harness: builds command lines over mutated seeds, runs them in a contained child
process (`fuzz_worker.py`) with a per-case timeout, and checks what the README promises.

A case is a mutant (`mutator.mutate`) written as `in.mlir` into a fresh directory, with a sentinel
file beside it and, half of the time, the command's output files already there (`0644`, known
content), and one `streamproof compile|verify|run` command line with options drawn for the seed's
level. A case is a *finding* when:

* the command hangs (no answer within the timeout) or kills its process;
* it shows a Python traceback, an internal error, or an exception escapes `cli.main`;
* it exits with a code other than 0-3; exits 3 without an undecided obligation ("could not
  decide", a solver `unknown` or resource limit, the only documented exit-3 outcomes); or exits 2
  without an `error:` diagnostic;
* a file is clobbered: the input or the sentinel changes, a file appears that the command was not
  asked to write (a leftover temporary, say), an output that existed is replaced although the
  command failed, or an existing output loses its mode.

`KNOWN` lists findings that are open items of issue 9 owned elsewhere (each with its item): they
are reported, not failed on, so the test guards everything else meanwhile. An entry that no case
reproduces any more is reported too (`stale`), so the list shrinks as the fixes land.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import os
import random
import re
import selectors
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from mutator import ROOT, mutate, seeds

WORKER = Path(__file__).with_name("fuzz_worker.py")
KERNELS = Path(__file__).with_name("fuzz_kernels.py")
SENTINEL = "keep.txt"
OLD_OUTPUT = "an output that was here before the command ran\n"
# The documented exit-3 outcomes: an undecided obligation (text, or a --report=json report whose
# status is "unknown"), a solver `unknown`, a resource limit.
UNDECIDED = re.compile(r'could not decide|\bundecided\b|solver[: ]+unknown|rlimit|resource limit|"status": "unknown"')
TRACEBACK = "Traceback (most recent call last)"

# (pattern over the finding's text, issue 9 item and owner): open elsewhere, reported but tolerated.
KNOWN: list[tuple[str, str]] = []


@dataclass
class Case:
    index: int
    seed: str
    edits: list[str]
    argv: list[str]
    data: bytes
    outputs: list[str]  # paths (relative to the case directory, `*` patterns, `dir/`) the command may write
    existing: list[str]  # outputs created before the command, with OLD_OUTPUT and mode 0644
    specials: dict[str, str] = field(default_factory=dict)  # name -> "fifo" or "link:TARGET", made before the command

    @property
    def command(self) -> str:
        return self.argv[0]

    def describe(self) -> str:
        return f"case {self.index}: {self.seed} [{'; '.join(self.edits)}] streamproof {' '.join(self.argv)}"


@dataclass
class Outcome:
    case: Case
    rc: object
    stdout: str = ""
    stderr: str = ""
    seconds: float = 0.0
    findings: list[str] = field(default_factory=list)


def _level(text: str) -> str:
    if "stream.cmd." in text or "stream.resource.alloca" in text:
        return "cmd"
    if "stream.async." in text or "stream.tensor." in text:
        return "async"
    return "input"


GROUP_WEIGHTS = {"examples": 3, "proofs": 4, "iree": 3, "tests": 0.3}  # tests/data/programs: one slow 200-op program


def make_case(index: int, rng: random.Random, pool: list[tuple[str, str]]) -> Case:
    command = rng.choice(("compile", "verify", "run"))
    runnable = [(rel, text) for rel, text in pool if _level(text) != "async"]
    candidates = runnable if command == "run" and rng.random() < 0.9 else pool
    groups: dict[str, list[tuple[str, str]]] = {}
    for rel, text in candidates:
        groups.setdefault("iree" if "/iree/" in rel else rel.split("/")[0], []).append((rel, text))
    names = sorted(groups)
    group = rng.choices(names, weights=[GROUP_WEIGHTS.get(g, 1) for g in names])[0]
    rel, text = rng.choice(groups[group])
    mutant, edits = mutate(text, rng, [t for _, t in rng.sample(pool, 3)], mild=0.5 if command == "run" else 1 / 3)
    data = mutant.encode("utf-8", errors="surrogatepass")
    if rng.random() < 0.02:
        k = rng.randrange(len(data) + 1)
        data, edits = data[:k] + b"\xff\xfe" + data[k:], [*edits, f"bytes: invalid UTF-8 at byte {k}"]
    level = _level(text)
    argv, outputs = _argv(command, level, rng)
    if level == "input" and text.count("\n") > 150 and command != "verify" and "--no-verify" not in argv:
        argv.append("--verify=final" if command == "compile" else "--no-verify")  # 12 proved passes of 200 ops: ~15 s
    public = [a or b for a, b in re.findall(r"^\s*util\.func public @([\w$.-]+)|^func\.func @([\w$.-]+)", text, re.M)]
    if command == "run" and len(public) > 1:
        argv += ["--function", rng.choice(public)]
    if command == "run" and level == "cmd" and rng.random() < 0.8:
        argv += _inputs(text, argv[-1] if "--function" in argv else None, rng)
    specials = _specials(argv, outputs, rng)
    existing = [o for o in outputs if not o.endswith("/") and "*" not in o and o not in specials and rng.random() < 0.5]
    return Case(index, rel, edits, argv, data, outputs, existing, specials)


OUTPUT_FLAGS = ("-o", "--trace", "--trace-counterexample")


def _specials(argv: list[str], outputs: list[str], rng: random.Random) -> dict[str, str]:
    """Now and then an output is a FIFO (it must stay one: written directly, never replaced), a
    symlink to the input (which must not change), or `--output-dir` holds a `result0.npy` that
    is a symlink to the input (items 15 and 17)."""
    specials: dict[str, str] = {}
    for i, word in enumerate(argv[:-1]):
        if word in OUTPUT_FLAGS and argv[i + 1] in outputs:
            roll = rng.random()
            if roll < 0.08:
                outputs[outputs.index(argv[i + 1])] = argv[i + 1] = "pipe.out"
                specials["pipe.out"] = "fifo"
            elif roll < 0.13:
                outputs[outputs.index(argv[i + 1])] = argv[i + 1] = "alias.out"
                specials["alias.out"] = "link:in.mlir"
    if "results/" in outputs and rng.random() < 0.3:
        specials["results/result0.npy"] = "link:../in.mlir"
    return specials


def _argv(command: str, level: str, rng: random.Random) -> tuple[list[str], list[str]]:
    source = "./in.mlir" if rng.random() < 0.1 else "in.mlir"
    if command == "verify":
        argv, outputs = ["verify", source], []
        if rng.random() < 0.3:
            argv.append("--report=json")
        if rng.random() < 0.3:
            argv += ["--trace-counterexample", "cex.json"]
            outputs.append("cex.json")
        if rng.random() < 0.15:
            argv.append("--smt=full")
        if rng.random() < 0.1:
            argv.append("--split-input-file")
        argv += ["--rlimit", "5000000"]
        return argv, outputs
    if command == "compile":
        out = "./in.mlir" if rng.random() < 0.03 else "out.mlir"
        argv, outputs = ["compile", source, "-o", out], [] if out == "./in.mlir" else [out]
        if level == "input":
            argv += rng.choice(([], [], ["--verify=final"], ["--compile-to=async"], ["--no-verify"], ["--pass-pipeline="],
                                ["--generic"], ["--split-input-file"], ["--report=json"]))
        else:
            argv += rng.choice((["--pass-pipeline="], ["--pass-pipeline="], ["--generic", "--pass-pipeline="],
                                ["--pass-pipeline=elide-timepoints"], ["--pass-pipeline=reuse-allocations"], []))
        return argv + ["--rlimit", "5000000"], outputs
    argv = ["run", source, "--driver", rng.choice(("sync", "sync", "task", "chaos")), "--kernels", str(KERNELS)]
    outputs = []
    if rng.random() < 0.3:
        argv.append("--check-races")
    if rng.random() < 0.3:
        argv += ["--trace", "trace.json"]
        outputs += ["trace.json", "trace.failed*.json"]  # a failed run keeps trace.json and writes its trace beside it
    if rng.random() < 0.2:
        argv += ["--output-dir", "results"]
        outputs.append("results/")
    if rng.random() < 0.2:
        argv += ["--seed", str(rng.choice((1, 7, 123456789)))]
    if level == "input":
        argv += rng.choice(([], ["--check"], ["--no-verify"], ["--no-verify", "--check"]))
    return argv, outputs


TENSOR_BODY = r"(?:[^<>]|<[^<>]*>)*"  # one level of <...> inside: tensor<4xcomplex<f32>>
ARG = re.compile(rf"%[\w$.-]+: (!stream\.resource<\w+>|!hal\.buffer_view|!hal\.fence|index|i32|tensor<{TENSOR_BODY}>)")


def _inputs(text: str, function: str | None, rng: random.Random) -> list[str]:
    """`--input` values for the function a cmd-level seed runs (none when an argument cannot be
    given on the command line, a fence say): random inputs cover that case."""
    name = re.escape(function) if function else r"[\w$.-]+"
    m = re.search(rf"^\s*util\.func public @{name}\(([^)]*)\)|^func\.func @{name}\(([^)]*)\)", text, re.M)
    if m is None:
        return []
    declared = re.search(rf"@{name}\([^)]*\).*?iree\.abi\.declaration = \"[^(]*\(([^\"]*)\)", text)
    shapes = re.findall(rf"tensor<({TENSOR_BODY})>", declared.group(1).split("->")[0]) if declared else []
    values = []
    for t in ARG.findall(m.group(1) if m.group(1) is not None else m.group(2)):
        if t.startswith("!stream.resource"):
            values.append(rng.choice(("256xi8=0", "64xi8=1", "1024xi8=0", "0xi8")))
        elif t == "!hal.buffer_view" and shapes:
            values.append(shapes.pop(0) + rng.choice(("=0", "=1.5", "")))
        elif t == "!hal.buffer_view":
            values.append(rng.choice(("16xf32=0", "16xf32=1.5", "4x4xf32=[1 2 3 4][5 6 7 8][1 2 3 4][5 6 7 8]")))
        elif t in ("index", "i32"):
            values.append(rng.choice(("64", "128", "200", "0", "1000", "-1", "1099511627776")))
        elif t.startswith("tensor<"):
            values.append(t[len("tensor<"):-1] + "=1")
        else:
            return []
    return [x for v in values for x in ("--input", v)]


class Worker:
    """One `fuzz_worker.py` child; restarted after a hang, a crash, or `recycle` cases."""

    def __init__(self, log: Path, recycle: int = 150) -> None:
        self.log, self.recycle = log, recycle
        self.proc: subprocess.Popen[str] | None = None
        self.served = 0

    def _start(self) -> subprocess.Popen[str]:
        env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        with open(self.log, "a") as log:
            proc = subprocess.Popen([sys.executable, str(WORKER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log,
                                    text=True, cwd=ROOT, env=env)
        self.served = 0
        return proc

    def stop(self) -> None:
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.kill()  # only the child this harness started
            self.proc.wait()
            self.proc = None

    def run(self, argv: list[str], cwd: Path, timeout: float) -> dict[str, object]:
        if self.proc is None or self.served >= self.recycle:
            self.stop()
            self.proc = self._start()
        proc = self.proc
        assert proc.stdin is not None and proc.stdout is not None
        self.served += 1
        try:
            proc.stdin.write(json.dumps({"argv": argv, "cwd": str(cwd)}) + "\n")
            proc.stdin.flush()
        except BrokenPipeError:
            self.stop()
            return {"rc": "worker died before the case", "stdout": "", "stderr": ""}
        with selectors.DefaultSelector() as sel:
            sel.register(proc.stdout, selectors.EVENT_READ)
            ready = sel.select(timeout)
        if not ready:
            self.stop()
            return {"rc": "hang", "stdout": "", "stderr": "", "seconds": timeout}
        line = proc.stdout.readline()
        if not line:
            code = proc.wait()
            self.proc = None
            return {"rc": f"process died (exit status {code})", "stdout": "", "stderr": ""}
        return json.loads(line)


def _digest(path: Path) -> tuple[str, int] | None:
    """Content hash and mode; a FIFO or a symlink by what it is (never opened or followed)."""
    try:
        st = path.lstat()
        if stat.S_ISFIFO(st.st_mode):
            return "fifo", st.st_mode & 0o7777
        if stat.S_ISLNK(st.st_mode):
            return f"link:{os.readlink(path)}", 0
        return hashlib.sha256(path.read_bytes()).hexdigest(), st.st_mode & 0o7777
    except OSError:
        return None


def _snapshot(directory: Path) -> dict[str, tuple[str, int] | None]:
    return {str(p.relative_to(directory)): _digest(p) for p in sorted(directory.rglob("*")) if p.is_symlink() or not p.is_dir()}


def check(outcome: Outcome, before: Mapping[str, tuple[str, int] | None], after: Mapping[str, tuple[str, int] | None], timeout: float) -> list[str]:
    """The findings of one finished case (see the module docstring)."""
    case, rc, err = outcome.case, outcome.rc, outcome.stderr
    found = []
    if rc == "hang":
        found.append(f"hang: no answer in {timeout:g} s")
    elif not isinstance(rc, int):
        found.append(f"crash: {rc}")
    elif rc not in (0, 1, 2, 3):
        found.append(f"exit code {rc}")
    text = outcome.stdout + err
    if TRACEBACK in text or "internal error" in text:
        tail = [ln for ln in text.splitlines() if ln.strip()]
        where = [ln.strip() for ln in tail if ln.strip().startswith("File ")]
        summary = next((ln for ln in reversed(tail) if "internal error" in ln), tail[-1] if tail else "")
        found.append(f"traceback: {summary.strip()}" + (f" [{where[-1]}]" if where else ""))
    elif rc == 3 and not UNDECIDED.search(text):
        found.append(f"exit 3 without an undecided obligation: {err.strip().splitlines()[-1] if err.strip() else '(no message)'}")
    if rc == 2 and "error" not in err:
        found.append("exit 2 without an error diagnostic")
    for name, was in before.items():
        now = after.get(name)
        kind = case.specials.get(name)
        if kind == "fifo":
            if now is None or now[0] != "fifo":
                found.append(f"clobbered: the FIFO {name} was {'removed' if now is None else 'replaced by a regular file'}")
        elif kind is not None:
            pass  # a symlink output may be replaced or refused; what it points at (the input) is checked as itself
        elif name in case.existing:
            failed = rc != 0 and not (case.command == "verify" and rc in (1, 3))
            if failed and now != was:
                found.append(f"clobbered: {name} replaced although {case.command} failed (exit {rc})")
            elif now is not None and was is not None and now[1] != was[1]:
                found.append(f"clobbered: {name} mode {was[1]:o} became {now[1]:o}")
        elif now != was:
            found.append(f"clobbered: {name} {'removed' if now is None else 'changed'}")
    for name in after:
        if name not in before and not any(fnmatch.fnmatch(name, o) or (o.endswith("/") and name.startswith(o)) for o in case.outputs):
            found.append(f"clobbered: unexpected file {name} left behind")
    return found


def known(finding: str) -> str | None:
    return next((item for pattern, item in KNOWN if re.search(pattern, finding)), None)


@dataclass
class FuzzResult:
    outcomes: list[Outcome]
    seconds: float

    def new(self) -> list[tuple[Outcome, str]]:
        return [(o, f) for o in self.outcomes for f in o.findings if known(f) is None]

    def tolerated(self) -> Counter[str]:
        return Counter(k for o in self.outcomes for f in o.findings if (k := known(f)) is not None)

    def summary(self) -> str:
        by_cmd = Counter(o.case.command for o in self.outcomes)
        by_rc = Counter(f"{o.case.command}:{o.rc}" for o in self.outcomes)
        families = Counter(e.split(":")[0] for o in self.outcomes for e in o.case.edits)
        slowest = max(self.outcomes, key=lambda o: o.seconds, default=None)
        lines = [f"fuzz: {len(self.outcomes)} cases in {self.seconds:.1f} s ({', '.join(f'{c} {n}' for c, n in sorted(by_cmd.items()))})",
                 "  exit codes: " + ", ".join(f"{k} x{n}" for k, n in sorted(by_rc.items())),
                 "  edits: " + ", ".join(f"{k} {n}" for k, n in sorted(families.items())),
                 f"  new findings: {len(self.new())}; known (issue 9, open elsewhere): "
                 + (", ".join(f"{k} x{n}" for k, n in sorted(self.tolerated().items())) or "none")]
        if slowest is not None:
            lines.append(f"  slowest case: {slowest.seconds:.2f} s ({slowest.case.describe()[:160]})")
        stale = [item for pattern, item in KNOWN if item not in self.tolerated()]
        if stale:
            lines.append("  known entries no case reproduced: " + ", ".join(stale))
        return "\n".join(lines)


def run_fuzz(cases: int, seed: int, timeout: float = 60.0, keep: Path | None = None) -> FuzzResult:
    """Run `cases` cases drawn from `seed`. With `keep`, each finding's case directory is copied
    there (with `argv.txt`) to reproduce it."""
    rng = random.Random(seed)
    pool = [(str(p.relative_to(ROOT)), p.read_text(encoding="utf-8")) for p in seeds()]
    start = time.perf_counter()
    outcomes = []
    with tempfile.TemporaryDirectory(prefix="streamproof-fuzz-") as tmp:
        worker = Worker(Path(tmp) / "worker.log")
        try:
            for i in range(cases):
                case = make_case(i, rng, pool)
                outcomes.append(run_case(worker, case, Path(tmp) / f"case{i}", timeout, keep))
        finally:
            worker.stop()
    return FuzzResult(outcomes, time.perf_counter() - start)


class _Drain:
    """Reads a FIFO in the background (so that a command writing to it never blocks) until stopped."""

    def __init__(self, path: Path) -> None:
        self.fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.done.is_set():
            try:
                if not os.read(self.fd, 1 << 16):
                    time.sleep(0.01)
            except BlockingIOError:
                time.sleep(0.01)

    def stop(self) -> None:
        self.done.set()
        self.thread.join()
        os.close(self.fd)


def run_case(worker: Worker, case: Case, directory: Path, timeout: float, keep: Path | None = None) -> Outcome:
    directory.mkdir()
    (directory / "in.mlir").write_bytes(case.data)
    (directory / SENTINEL).write_text("a file the command was not asked to touch\n")
    for name in case.existing:
        (directory / name).write_text(OLD_OUTPUT)
        os.chmod(directory / name, 0o644)
    readers = []
    for name, kind in case.specials.items():
        (directory / name).parent.mkdir(parents=True, exist_ok=True)
        if kind == "fifo":
            os.mkfifo(directory / name)
            readers.append(_Drain(directory / name))
        else:
            os.symlink(kind.removeprefix("link:"), directory / name)
    before = _snapshot(directory)
    try:
        answer = worker.run(case.argv, directory, timeout)
    finally:
        for reader in readers:
            reader.stop()
    outcome = Outcome(case, answer["rc"], str(answer.get("stdout", "")), str(answer.get("stderr", "")), float(answer.get("seconds", 0.0)))  # type: ignore[arg-type]
    outcome.findings = check(outcome, before, _snapshot(directory), timeout)
    if outcome.findings and keep is not None:
        dest = keep / f"case{case.index}"
        shutil.copytree(directory, dest, symlinks=True, dirs_exist_ok=True,
                        ignore=lambda d, names: [n for n in names if stat.S_ISFIFO(os.lstat(os.path.join(d, n)).st_mode)])
        (dest / "in.mlir").write_bytes(case.data)
        (dest / "argv.txt").write_text(case.describe() + "\n" + "\n".join(outcome.findings) + "\n--- stderr ---\n" + outcome.stderr)
    shutil.rmtree(directory, ignore_errors=True)
    return outcome


if __name__ == "__main__":  # python tests/fuzz/harness.py [CASES] [SEED] [KEEP_DIR]
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    s = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    result = run_fuzz(n, s, float(os.environ.get("FUZZ_TIMEOUT", "60")), Path(sys.argv[3]) if len(sys.argv) > 3 else None)
    for outcome in result.outcomes:
        for finding in outcome.findings:
            print(f"{finding}\n    {outcome.case.describe()[:400]}" + (f"   (known: {known(finding)})" if known(finding) else ""))
    print(result.summary())
