"""The property classes (SPEC §3.3), each declared once as a `PropertyClass` record.

A record says what users see (the name, its severity, a one-line meaning), when the verifier
reports it, how its obligations are discharged and how a counterexample is explained, and the
few facts the code acts on:

* `severity`: "error" (exit 1) or "warning" (reported, exit 0); `verify.explain` gives every
  violation of the class this severity, and so does the refinement report;
* `shapes`: the obligation shapes (`verify.obligations`) that may carry the class; a test
  (`tests/verify/test_properties.py`) generates the obligations of every corpus program and
  fails on a (class, shape) pair no record declares;
* `message`: how `verify.explain` words the header: `order` (which op uses which value without
  what ordering it), `range` (which range leaves which size), `detail` (the obligation's own
  sentence), `cycle` (the waits of a deadlock), `values` (refinement: the diverging result);
* `identity`: how the pass hook (`verify.hook`) recognises the finding in the pass input, to
  call it pre-existing: by the `ops` involved, or by the `allocation` (a pass may move the ops);
* `per_detail`: one finding per distinct range check, not one per pair of ops;
* `witness`: whether a counterexample comes with a witness schedule (`verify.witness`; a leak
  or a cycle has none);
* `runtime`: what the executor's `--check-races` does about it: `finding` (it reports the class
  dynamically, with the same name and severity), `error` (the run fails with an error status
  naming it), `indirect` (it shows as other classes: a pack overlap as a race on the shared
  bytes or an OUT_OF_BOUNDS) or `check` (`run --check` compares the results instead).

Every list of classes is generated from `PROPERTIES` or checked against it by a test: the
`--report=json` schema (`verify.schema`), `CLASSES` (`verify.report`), the class list of
`streamproof verify --help`, the README table and the table of docs/VERIFIER.md
(`UPDATE_DOCS=1 pytest tests/verify/test_properties.py` rewrites the two tables).

Adding a class: add its record here (the order is the order users see), make an obligation
generator produce it (`verify/obligations.py`) and, when `message` is new, its wording
(`verify/explain.py`); then rewrite the docs tables (`UPDATE_DOCS=1 pytest
tests/verify/test_properties.py`); add a corpus program that exhibits it (proofs/corpus, `// EXPECT: NAME`).
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import Literal

__all__ = ["PropertyClass", "PROPERTIES", "CLASSES", "SHAPES", "property_class", "readme_table", "verifier_table", "help_text"]

# The obligation shapes of verify.obligations (its docstring defines them).
SHAPES = frozenset({"order", "order_any", "order_if_overlap", "conflict", "range", "fact", "pack", "opaque"})

_RACE_DISCHARGE = ("`conflict`, for pairs of accesses of one allocation, at least one a write: proved when HB reachability "
                   "orders the two sites, or their ranges cannot intersect (constant ranges by integer arithmetic, symbolic "
                   "ones by Z3)")
_OPAQUE = "; an access through storage an op without an effect rule returned (`opaque`) is never proved: undecided"


@dataclass(frozen=True, slots=True)
class PropertyClass:
    name: str
    severity: Literal["error", "warning"]
    doc: str  # one line: what it means (SPEC §3.3); `--help` and the README show it
    reported: str  # when the verifier reports it (docs/VERIFIER.md)
    discharged: str  # how its obligations are discharged
    explained: str  # what its counterexample shows
    shapes: tuple[str, ...] = ()
    message: Literal["order", "range", "detail", "cycle", "values"] = "order"
    identity: Literal["ops", "allocation"] = "ops"
    per_detail: bool = False
    witness: bool = True
    runtime: Literal["finding", "error", "indirect", "check"] = "finding"

    def __post_init__(self) -> None:
        unknown = set(self.shapes) - SHAPES
        if unknown:
            raise ValueError(f"property class {self.name}: unknown obligation shapes {sorted(unknown)}")


PROPERTIES: tuple[PropertyClass, ...] = (
    PropertyClass(
        "RACE_READ_AFTER_WRITE", "error",
        "a read of bytes an earlier access writes, not ordered after it",
        "two accesses of intersecting bytes of one allocation, the later in program order a read of what the earlier "
        "writes, with no HB order between them (in one submission: across submissions it is a `MISSED_WAIT`); also one "
        "op against itself (a dispatch binding the same bytes `ro` and `wo`, a copy with overlapping ranges), an op "
        "using the result of another op of its async wave (unless that result is written in place and the bytes the "
        "two touch of it are disjoint, back along the chain of in-place ops of the wave: waves at byte granularity, "
        "below), and tie linearity (below)",
        _RACE_DISCHARGE + "; a value used in its own submission before its producer (`order`): HB reachability; an "
        "in-place result used in its wave (`order_if_overlap`): the byte ranges cannot intersect" + _OPAQUE,
        "the write and the read, the bytes both touch, the symbol values, and a witness interleaving in which the read "
        "starts before the write ends",
        ("conflict", "order", "order_if_overlap", "opaque"),
    ),
    PropertyClass(
        "RACE_WRITE_AFTER_READ", "error",
        "a write of bytes an earlier access only reads, not ordered after it",
        "as `RACE_READ_AFTER_WRITE`, the later access a write of what the earlier only reads; also tie linearity: an "
        "in-place write that may run before a read of the version it ends",
        _RACE_DISCHARGE + "; tie linearity (`order_if_overlap`): the read must end before the in-place write starts",
        "the read and the write, the bytes, and a witness in which the write starts before the read ends (a note says "
        "whether the in-place write always runs first or nothing orders them)",
        ("conflict", "order_if_overlap"),
    ),
    PropertyClass(
        "RACE_WRITE_AFTER_WRITE", "error",
        "two writes of intersecting bytes with no order between them",
        "as `RACE_READ_AFTER_WRITE`, both accesses writes; also two in-place writes of one version (tie linearity)",
        _RACE_DISCHARGE + "; two in-place writes of one version are a structural `fact`" + _OPAQUE,
        "the two writes, the bytes, and a witness in which they overlap in time",
        ("conflict", "fact", "opaque"),
    ),
    PropertyClass(
        "USE_BEFORE_ALLOC", "error",
        "an access not after the alloca's result timepoint",
        "an access not after its `alloca`'s timepoint (or a dealloca that may run before its alloca)",
        "`order`: HB reachability from the alloca's completion to the access's start",
        "the alloca and the access, and a witness in which the access starts before the allocation is ready",
        ("order",),
    ),
    PropertyClass(
        "USE_AFTER_FREE", "error",
        "an access not before the dealloca (or the release of the last claim)",
        "an access not before the dealloca starts, or not before the `release` that drops the last claim",
        "`order`: HB reachability from the access's end to the free's start",
        "the access and the free, and a witness in which the free starts before the access ends",
        ("order",),
    ),
    PropertyClass(
        "DOUBLE_FREE", "error",
        "two frees of one allocation, or a free of storage the function does not own",
        "two frees of one allocation (through any alias), a dealloca of storage the function does not own (imports, "
        "arguments, constants, unknown producers), or of an `indeterminate` alloca",
        "`fact`: decided by the storage model alone (which frees reach which allocation)",
        "the allocation and the frees, with the reason",
        ("fact",), message="detail", identity="allocation",
    ),
    PropertyClass(
        "LEAK", "warning",
        "a transient allocation never freed on some path",
        "a transient `alloca`/`alloc` never freed and never handed out",
        "`fact`: decided by the storage model alone",
        "the allocation; no witness (nothing happens, so nothing to schedule)",
        ("fact",), message="detail", identity="allocation", witness=False,
    ),
    PropertyClass(
        "MISSED_WAIT", "error",
        "a consumer of a resource whose producer's timepoint does not cover it",
        "a read-after-write whose two ops are in different submissions (the consumer lacks a wait on the producer's "
        "timepoint), a host op (export, load, return, an unknown op) reading device-written bytes (an await orders only "
        "the ops using its results: below), an async-level value used before a wait covers its producer, and anything "
        "the caller can observe (its own buffers, exported/returned ones) not finished at the return (synchronous ABI) "
        "or at a chained fence (async ABI, `timepoint.chain_external`); an input accessed before a wait covering the "
        "caller's wait fence (coarse-fences ABI, below); and, calling a coarse-fences function, a result used before a "
        "`hal.fence.await` (no timeout) of the signal fence handed to the call, or read by a later call whose wait fence "
        "does not cover it (`rule=\"coarse-fences\"`)",
        "`order`/`order_any`: HB reachability from the producer's end to the consumer's start (or to one of the waits "
        "that may cover it); a cross-submission `conflict` as for races; `opaque` (never proved): the result of a "
        "coarse-fences call whose signal fence is not fresh (not made by `hal.fence.create` for that call alone)",
        "the producer and the consumer (or the fence, the handed-over value), the value used, and a witness in which the "
        "consumer runs before a wait covers the producer",
        ("order", "order_any", "order_if_overlap", "conflict", "opaque"),
    ),
    PropertyClass(
        "DEADLOCK", "error",
        "a wait on a timepoint that is never reached",
        "a cycle in the event graph: e.g. a host wait on an imported fence that only work issued after the wait signals",
        "found by happens-before itself: the event graph has a cycle (nothing else in that function is checked)",
        "the waits on the cycle, in order",
        (), message="cycle", runtime="error", witness=False,
    ),
    PropertyClass(
        "AFFINITY_MISMATCH", "error",
        "an op touching a resource on a device where it does not live, without a transfer",
        "a dispatch or fill on a device where the storage does not live (copies, flushes, invalidates and discards are "
        "lowered transfers and may cross devices); an op placed on another device than its region",
        "`fact`: the placements of the storage and the op are compared",
        "the op, the storage and the two devices",
        ("fact",), message="detail",
    ),
    PropertyClass(
        "OUT_OF_BOUNDS", "error",
        "an access range outside the resource's size",
        "a range outside the value's declared size (bindings, copies, fills, slices, updates, subviews, captures "
        "claiming more than the captured resource), for some value of the symbols",
        "`range`: constant ranges by integer arithmetic, symbolic ones by Z3 (unsatisfiable: proved)",
        "the range, the size it leaves, and the symbol values that make it leave",
        ("range",), message="range", per_detail=True, runtime="error",
    ),
    PropertyClass(
        "PACK_OVERLAP", "error",
        "two slices of one pack live at once on shared bytes",
        "an access through a pack slice that leaves the slice, or two slices the pack may lay out on the same bytes "
        "(disjoint lifetime intervals) whose uses are not separated in time: two uses may overlap, or the uses "
        "interleave (slice #0, then #1, then #0 again; the witness shows the three)",
        "`pack`: HB reachability between the two slices' uses; `range` for an access leaving its slice",
        "the slices, the uses and a witness of the overlap or interleaving",
        ("pack", "range"), message="detail", per_detail=True, runtime="indirect",
    ),
    PropertyClass(
        "BORROWED_INPUT_MUTATED", "error",
        "a write to an import without `consume`, or to a constant",
        "a write to an import without `consume`, to `constant` storage or to an immutable global's storage; "
        "a store of an immutable global outside an initializer",
        "`range`: the write's range must be empty (constant by integer arithmetic, symbolic by Z3); "
        "`fact`: the store of an immutable global outside an initializer",
        "the write and the borrowed storage (the store)",
        ("range", "fact"), message="detail", identity="allocation",
    ),
    PropertyClass(
        "VALUE_MISMATCH", "error",
        "the pass output computes a different value than the pass input",
        "from refinement (`--refines`, the hook): `verify/refinement/`",
        "translation validation: the two programs' results as terms, compared per byte range (Z3 for symbolic sizes)",
        "the first diverging op, the result and bytes that differ, both terms and the symbol values",
        (), message="values", runtime="check",
    ),
)

_BY_NAME = {p.name: p for p in PROPERTIES}
CLASSES: tuple[str, ...] = tuple(_BY_NAME)


def property_class(name: str) -> PropertyClass:
    """The record of `name` (KeyError naming the known classes for another name)."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"unknown property class {name!r} (known: {', '.join(CLASSES)})") from None


_RUNTIME = {"finding": "reported", "error": "the run fails", "indirect": "as a race or `OUT_OF_BOUNDS`",
            "check": "`run --check` compares results"}


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def readme_table() -> str:
    """The README's table of classes: name, severity, meaning, what `run --check-races` does."""
    rows = ["| class | severity | meaning | `run --check-races` |", "|---|---|---|---|"]
    rows += [f"| `{p.name}` | {p.severity} | {_cell(p.doc)} | {_RUNTIME[p.runtime]} |" for p in PROPERTIES]
    return "\n".join(rows)


def verifier_table() -> str:
    """The table of docs/VERIFIER.md: when each class is reported, how it is discharged and
    explained."""
    rows = ["| class | reported when | discharged by | counterexample |", "|---|---|---|---|"]
    for p in PROPERTIES:
        name = f"`{p.name}`" + (f" ({p.severity})" if p.severity != "error" else "")
        rows.append(f"| {name} | {_cell(p.reported)} | {_cell(p.discharged)} | {_cell(p.explained)} |")
    return "\n".join(rows)


def help_text(width: int = 100) -> str:
    """The class list of `streamproof verify --help`: one class a line (wrapped)."""
    pad = max(len(p.name) for p in PROPERTIES) + 2
    lines = []
    for p in PROPERTIES:
        doc = p.doc + (f" ({p.severity})" if p.severity != "error" else "")
        lines.extend(textwrap.wrap(doc, width, initial_indent=f"  {p.name.ljust(pad)}", subsequent_indent=" " * (pad + 2)))
    return "\n".join(lines)
