"""Pass registry, pipeline parsing and the pass manager.

A pass is a pure function `Module -> Module` registered under its command-line name, with its
options declared as a frozen dataclass (`schedule-concurrency{favor=max-concurrency}` sets the
`favor` field). `run_pipeline` runs passes in order and, after each one, calls the verification
hook it is given (`hook=verify.hook.make_hook()`; the `stream` layer never imports `verify`, and
there is no process-wide hook): the hook receives the pass input and output and raises
`PassVerificationError` when the output is not proved.
"""

from __future__ import annotations

import dataclasses
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from stream.ir.core import Module
from stream.ir.gc_pause import paused_gc
from stream.passes import forked_verification

__all__ = [
    "PassInfo",
    "register_pass",
    "PASSES",
    "parse_pipeline",
    "PipelineError",
    "PassVerificationError",
    "PassRecord",
    "run_pipeline",
    "VerifyHook",
    "DEFAULT_PIPELINE",
]


@dataclass(frozen=True)
class PassInfo:
    name: str
    run: Callable[..., Module]
    options: type | None = None
    summary: str = ""
    # The level the pass produces ("tensor", "async", "cmd") when it changes level.
    produces: str | None = None


PASSES: dict[str, PassInfo] = {}


def register_pass(name: str, options: type | None = None, summary: str = "", produces: str | None = None) -> Callable[[Callable[..., Module]], Callable[..., Module]]:
    """Decorator: `@register_pass("elide-timepoints")` on `def elide_timepoints(module) -> Module`."""

    def wrap(fn: Callable[..., Module]) -> Callable[..., Module]:
        doc = (fn.__doc__ or "").strip().splitlines()
        PASSES[name] = PassInfo(name, fn, options, summary or (doc[0] if doc else ""), produces)
        return fn

    return wrap


# The default pipeline, SPEC section 4.
DEFAULT_PIPELINE = (
    "convert-to-stream",
    "encode-tensors",
    "materialize-copy-on-write",
    "elide-async-copies",
    "refine-usage",
    "schedule-execution",
    "schedule-concurrency",
    "propagate-timepoints",
    "schedule-allocation",
    "automatic-reference-counting",
    "reuse-allocations",
    "elide-timepoints",
)


class PipelineError(ValueError):
    """A pipeline string that does not parse or names an unknown pass or option."""


_ITEM = re.compile(r"\s*([A-Za-z0-9_\-]+)\s*(?:\{([^{}]*)\})?\s*(?:,|$)")


def parse_pipeline(text: str) -> list[tuple[PassInfo, Any]]:
    """`a,b{opt=v,flag=true}` -> [(PassInfo, options)]. An empty string is the empty pipeline."""
    out: list[tuple[PassInfo, Any]] = []
    pos = 0
    text = text.strip()
    while pos < len(text):
        m = _ITEM.match(text, pos)
        if m is None or m.end() == pos:
            raise PipelineError(f"cannot read the pass pipeline at: {text[pos:]!r} (expected name or name{{opt=value}})")
        name, opts = m.group(1), m.group(2)
        info = PASSES.get(name)
        if info is None:
            known = ", ".join(sorted(PASSES)) or "(none registered)"
            raise PipelineError(f"unknown pass '{name}'; known passes: {known}")
        out.append((info, _parse_options(info, opts or "")))
        pos = m.end()
    return out


def _parse_options(info: PassInfo, text: str) -> Any:
    if info.options is None:
        if text.strip():
            raise PipelineError(f"pass '{info.name}' takes no options")
        return None
    fields = {f.name.replace("_", "-"): f for f in dataclasses.fields(info.options)}
    values: dict[str, Any] = {}
    for item in filter(None, (s.strip() for s in re.split(r"[ ,]+", text))):
        key, _, raw = item.partition("=")
        f = fields.get(key) or fields.get(key.replace("_", "-"))
        if f is None:
            raise PipelineError(f"pass '{info.name}' has no option '{key}' (options: {', '.join(fields)})")
        values[f.name] = _convert(info.name, f, raw)
    return info.options(**values)


def _convert(pass_name: str, f: dataclasses.Field[Any], raw: str) -> Any:
    kind = f.type if isinstance(f.type, str) else getattr(f.type, "__name__", str(f.type))
    allowed = f.metadata.get("choices") if f.metadata else None
    if allowed is not None and raw not in allowed:
        raise PipelineError(f"option '{f.name}' of '{pass_name}' must be one of {', '.join(allowed)}, not '{raw}'")
    if kind in ("bool",):
        if raw in ("", "true", "1"):
            return True
        if raw in ("false", "0"):
            return False
        raise PipelineError(f"option '{f.name}' of '{pass_name}' is a boolean, not '{raw}'")
    if kind in ("int",):
        try:
            return int(raw)
        except ValueError:
            raise PipelineError(f"option '{f.name}' of '{pass_name}' is an integer, not '{raw}'") from None
    return raw


class PassVerificationError(Exception):
    """A pass produced output that the verifier did not prove. `report` is the verifier's
    report object (with the counterexample); `pass_name` names the culprit."""

    def __init__(self, pass_name: str, report: Any, message: str) -> None:
        super().__init__(message)
        self.pass_name = pass_name
        self.report = report
        # Filled in by `run_pipeline`: the passes proved before this one, and this pass's own
        # record (its timings; `report` is the failing report).
        self.records: list[PassRecord] = []
        self.failed: PassRecord | None = None


@dataclass
class PassRecord:
    """What happened in one pass: timings and the verifier's report (if it ran)."""

    name: str
    transform_seconds: float
    verify_seconds: float = 0.0
    report: Any = None
    output: Module | None = field(default=None, repr=False)


VerifyHook = Callable[[Module, Module, str], Any]
"""`hook(before, after, pass_name)`: the report of a proved pass output; raises
`PassVerificationError` when the output is not proved (`verify.hook.make_hook` makes one)."""

VERIFY_MODES = ("each", "final", "none")


def _transform(info: PassInfo, options: Any, module: Module) -> Module:
    """Run one pass with Python's cyclic garbage collector paused: passes build many small
    acyclic objects while every earlier module is still alive (the records keep them), so the
    collector would rescan a growing heap again and again (a quarter of the transform time at
    6k dispatches). It runs again, and collects, once the pass is done."""
    with paused_gc():
        return info.run(module, options) if info.options is not None else info.run(module)


def run_pipeline(
    module: Module,
    pipeline: Sequence[tuple[PassInfo, Any]],
    *,
    hook: VerifyHook | None = None,
    verify: str | None = None,
    after_pass: Callable[[str, Module], None] | None = None,
    stop_after: Callable[[PassInfo], bool] | None = None,
    keep_outputs: bool = True,
    jobs: int = 1,
) -> tuple[Module, list[PassRecord]]:
    """Run the passes in order, proving them with `hook` (`verify.hook.make_hook(...)`).
    `verify` says when the hook runs: "each" (after every pass; the default when a hook is
    given), "final" (once, the whole pipeline's output against its input) or "none" (the
    default without a hook). The hook raises PassVerificationError. `keep_outputs=False` leaves
    `PassRecord.output` empty, so that each intermediate module is freed once the next pass has
    been verified against it (a 100k-dispatch pipeline holds a dozen large module versions
    otherwise); `after_pass` still sees every output. `jobs >= 2` (with "each", where
    `os.fork` exists) verifies up to `jobs` pass outputs at once in forked processes while the
    next passes run (`stream.passes.forked_verification`): the same proofs, the same records
    and the same first failure as a serial run, in less wall time on several cores."""
    if verify is None:
        verify = "none" if hook is None else "each"
    if verify not in VERIFY_MODES:
        raise ValueError(f"verify must be 'each', 'final' or 'none', not {verify!r}")
    if verify != "none" and hook is None:
        raise ValueError(f"verify={verify!r} needs a verification hook: run_pipeline(..., hook=verify.hook.make_hook())")
    if verify == "each" and jobs >= 2 and forked_verification.available():
        assert hook is not None
        return _run_forked(module, pipeline, hook, jobs, after_pass, stop_after, keep_outputs)
    records: list[PassRecord] = []
    original = module
    for info, options in pipeline:
        start = time.perf_counter()
        out = _transform(info, options, module)
        record = PassRecord(info.name, time.perf_counter() - start, output=out if keep_outputs else None)
        if verify == "each":
            _verify_here(hook, module, out, record, records)  # type: ignore[arg-type]
        records.append(record)
        if after_pass is not None:
            after_pass(info.name, out)
        module = out
        if stop_after is not None and stop_after(info):
            break
    if verify == "final" and records:
        vstart = time.perf_counter()
        try:
            records[-1].report = hook(original, module, "pipeline")  # type: ignore[misc]
        except PassVerificationError as e:
            e.records, e.failed = records[:-1], records[-1]
            records[-1].verify_seconds, records[-1].report = time.perf_counter() - vstart, e.report
            raise
        records[-1].verify_seconds = time.perf_counter() - vstart
    return module, records


def _verify_here(hook: VerifyHook, before: Module, after: Module, record: PassRecord, records: list[PassRecord]) -> None:
    """Run the hook on one pass in this process, filling in `record`'s report and seconds; a
    failure raises PassVerificationError carrying the passes proved before (`records`) and this
    pass's record."""
    vstart = time.perf_counter()
    try:
        record.report = hook(before, after, record.name)
    except PassVerificationError as e:
        record.verify_seconds = time.perf_counter() - vstart
        record.report = e.report
        e.records, e.failed = records, record
        raise
    record.verify_seconds = time.perf_counter() - vstart


@dataclass(slots=True)
class _Pending:
    ticket: int
    record: PassRecord
    before: Module
    after: Module
    forked: bool  # verified in a child (else in this process, when settled)


def _run_forked(
    module: Module,
    pipeline: Sequence[tuple[PassInfo, Any]],
    hook: VerifyHook,
    jobs: int,
    after_pass: Callable[[str, Module], None] | None,
    stop_after: Callable[[PassInfo], bool] | None,
    keep_outputs: bool,
) -> tuple[Module, list[PassRecord]]:
    """`run_pipeline` with every pass output but the first verified in a forked child (see its
    docstring; the first warms this process up for the children). Outcomes are taken in pass order, so records, `after_pass` calls and the first failure are
    those of a serial run; a transform that raises while earlier outputs are still being
    verified raises only once they are all proved (a serial run would have stopped at the
    first unproved one)."""
    records: list[PassRecord] = []
    pending: list[_Pending] = []
    verifier = forked_verification.ForkedVerifier(hook, jobs)

    def settle(p: _Pending) -> None:
        outcome = verifier.result(p.ticket) if p.forked else None
        if outcome is not None and outcome.report is not None:
            p.record.report, p.record.verify_seconds = outcome.report, outcome.seconds
        else:  # not forked, or not passed in the child: the hook, here (raising the serial run's error)
            _verify_here(hook, p.before, p.after, p.record, records)
            p.record.verify_seconds += outcome.seconds if outcome is not None else 0.0
        records.append(p.record)
        if after_pass is not None:
            after_pass(p.record.name, p.after)

    try:
        for ticket, (info, options) in enumerate(pipeline):
            start = time.perf_counter()
            try:
                out = _transform(info, options, module)
            except BaseException:
                while pending:
                    settle(pending.pop(0))
                raise
            record = PassRecord(info.name, time.perf_counter() - start, output=out if keep_outputs else None)
            # The first output is proved here: that loads what the hook imports and caches on
            # first use, which every child then inherits instead of loading it again.
            forked = ticket > 0
            pending.append(_Pending(ticket, record, module, out, forked))
            if forked:
                verifier.submit(ticket, module, out, info.name)
            else:
                settle(pending.pop())
            while pending and verifier.ready(pending[0].ticket):
                settle(pending.pop(0))
            module = out
            if stop_after is not None and stop_after(info):
                break
        while pending:
            settle(pending.pop(0))
    finally:
        verifier.close()
    return module, records
