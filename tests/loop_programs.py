"""Hypothesis strategies for random cmd-level programs with a loop (and branches in it).

`loop_programs()` draws a function `@loop(%n: index) -> !hal.buffer_view` that allocates two or
three 64-byte buffers, fills each whole, runs `%n` iterations of a body of fills and copies
(one `stream.cmd.execute` each, or an `scf.if` on the first iteration choosing between two),
then awaits what the loop carries out, exports buffer 0 and frees the rest. What is random:

* the body's ops, buffers, byte ranges and fill values;
* what each execute awaits: the previous op of the iteration (`prev`; the carried timepoint for
  the first), the carried timepoint (`carried`), or the timepoint from before the loop (`init`);
* what the iteration passes on: its last op's timepoint, a join of all of them, or its first's;
* whether the loop also carries buffers 0 and 1, swapping them every iteration (ping-pong);
* the trip count the program is run with.

Only programs whose every op awaits `prev` and which pass on `last` or `join` are ordered by
construction (`chained`); the rest may race, which is what the verifier must find. The same
program is drawn in two forms: an `scf.for`, and the header block and back edge it stands for
(as IREE prints loops from stage 10 on). `expected` is buffer 0's bytes after `trips`
iterations in program order, computed here by a plain sequential reading of the drawn ops: a
race-free run must give exactly those bytes.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from hypothesis import strategies as st

__all__ = ["LoopProgram", "loop_programs"]

R = "!stream.resource<external>"
RANGES = ((0, 16), (16, 16), (32, 32), (0, 64), (48, 16), (0, 32))
OFFSETS = (0, 16, 32, 48)


@dataclass(frozen=True)
class _Cmd:
    kind: str  # "fill" | "copy"
    dst: int  # buffer role
    offset: int
    length: int
    value: int = 0  # fill
    src: int = 0  # copy
    src_offset: int = 0


@dataclass(frozen=True)
class _Step:
    await_: str  # "prev" | "carried" | "init"
    cmd: _Cmd
    otherwise: _Cmd | None = None  # an scf.if on the first iteration: `cmd` then, `otherwise` else


@dataclass(frozen=True)
class LoopProgram:
    scf: str
    blocks: str
    trips: int
    expected: bytes
    chained: bool
    swap: bool
    writes_carried: bool  # the body writes a buffer the loop carries (swap only)


def _sequential(buffers: int, steps: list[_Step], swap: bool, trips: int) -> bytes:
    data = [bytearray(struct.pack("<i", 10 + k) * 16) for k in range(buffers)]
    roles = list(range(buffers))  # role -> buffer
    for i in range(trips):
        for step in steps:
            c = step.cmd if step.otherwise is None or i == 0 else step.otherwise
            dst = data[roles[c.dst]]
            if c.kind == "fill":
                dst[c.offset:c.offset + c.length] = struct.pack("<i", c.value) * (c.length // 4)
            else:
                dst[c.offset:c.offset + c.length] = data[roles[c.src]][c.src_offset:c.src_offset + c.length]
        if swap:
            roles[0], roles[1] = roles[1], roles[0]
    return bytes(data[roles[0]])


@st.composite
def _cmd(draw: st.DrawFn, buffers: int) -> _Cmd:
    offset, length = draw(st.sampled_from(RANGES))
    dst = draw(st.integers(0, buffers - 1))
    if draw(st.booleans()):
        return _Cmd("fill", dst, offset, length, value=draw(st.integers(1, 4)))
    src = draw(st.sampled_from([b for b in range(buffers) if b != dst]))
    src_offset = draw(st.sampled_from([o for o in OFFSETS if o + length <= 64]))
    return _Cmd("copy", dst, offset, length, src=src, src_offset=src_offset)


def _cmd_text(c: _Cmd, name: str, wait: str, role: list[str], indent: str) -> list[str]:
    if c.kind == "fill":
        return [
            f"{indent}{name} = stream.cmd.execute await({wait}) => with({role[c.dst]} as %d{name[1:]}: {R}{{%c64}}) {{",
            f"{indent}  stream.cmd.fill %v{c.value}, %d{name[1:]}[%c{c.offset} for %c{c.length}] : i32 -> {R}{{%c64}}",
            f"{indent}}} => !stream.timepoint",
        ]
    return [
        f"{indent}{name} = stream.cmd.execute await({wait}) => with({role[c.src]} as %s{name[1:]}: {R}{{%c64}}, "
        f"{role[c.dst]} as %d{name[1:]}: {R}{{%c64}}) {{",
        f"{indent}  stream.cmd.copy %s{name[1:]}[%c{c.src_offset}], %d{name[1:]}[%c{c.offset}], %c{c.length} : "
        f"{R}{{%c64}} -> {R}{{%c64}}",
        f"{indent}}} => !stream.timepoint",
    ]


def _body(steps: list[_Step], role: list[str], indent: str) -> tuple[list[str], list[str]]:
    """The body's lines, and the names of its ops' timepoints."""
    lines: list[str] = []
    names: list[str] = []
    if any(s.otherwise is not None for s in steps):
        lines.append(f"{indent}%first = arith.cmpi eq, %i, %c0 : index")
    for j, step in enumerate(steps):
        wait = {"prev": names[-1] if names else "%t", "carried": "%t", "init": "%tinit"}[step.await_]
        name = f"%u{j}"
        if step.otherwise is None:
            lines += _cmd_text(step.cmd, name, wait, role, indent)
        else:
            lines.append(f'{indent}{name} = "scf.if"(%first) ({{')
            lines += _cmd_text(step.cmd, f"%u{j}a", wait, role, indent + "  ")
            lines.append(f'{indent}  "scf.yield"(%u{j}a) : (!stream.timepoint) -> ()')
            lines.append(f"{indent}}}, {{")
            lines += _cmd_text(step.otherwise, f"%u{j}b", wait, role, indent + "  ")
            lines.append(f'{indent}  "scf.yield"(%u{j}b) : (!stream.timepoint) -> ()')
            lines.append(f"{indent}}}) : (i1) -> !stream.timepoint")
        names.append(name)
    return lines, names


def _passed_on(names: list[str], how: str, indent: str) -> tuple[list[str], str]:
    if how == "join":
        return [f"{indent}%uj = stream.timepoint.join max(%t, {', '.join(names)}) => !stream.timepoint"], "%uj"
    return [], names[-1] if how == "last" else names[0]


@st.composite
def loop_programs(draw: st.DrawFn, max_steps: int = 3, max_trips: int = 3) -> LoopProgram:
    buffers = draw(st.integers(2, 3))
    swap = draw(st.booleans())
    steps: list[_Step] = []
    for _ in range(draw(st.integers(1, max_steps))):
        await_ = draw(st.sampled_from(["prev", "prev", "carried", "init"]))
        cmd = draw(_cmd(buffers))
        otherwise = draw(_cmd(buffers)) if draw(st.integers(0, 3)) == 0 else None
        steps.append(_Step(await_, cmd, otherwise))
    how = draw(st.sampled_from(["last", "last", "join", "first"]))
    trips = draw(st.integers(0, max_trips))
    chained = all(s.await_ == "prev" for s in steps) and (how != "first" or len(steps) == 1)

    head = [
        "util.func public @loop(%n: index) -> !hal.buffer_view {",
        *(f"  %c{k} = arith.constant {k} : index" for k in (0, 1, 16, 32, 48, 64)),
        *(f"  %v{k} = arith.constant {k} : i32" for k in (1, 2, 3, 4, *(10 + b for b in range(buffers)))),
        *(f"  %b{k}, %a{k} = stream.resource.alloca uninitialized : {R}{{%c64}} => !stream.timepoint" for k in range(buffers)),
        f"  %aj = stream.timepoint.join max({', '.join(f'%a{k}' for k in range(buffers))}) => !stream.timepoint",
        f"  %tinit = stream.cmd.execute await(%aj) => with({', '.join(f'%b{k} as %x{k}: {R}{{%c64}}' for k in range(buffers))}) {{",
        *(f"    stream.cmd.fill %v{10 + k}, %x{k}[%c0 for %c64] : i32 -> {R}{{%c64}}" for k in range(buffers)),
        "  } => !stream.timepoint",
    ]
    carried_res = ["%p", "%q"] if swap else []
    role = [*carried_res, *(f"%b{k}" for k in range(len(carried_res), buffers))]
    init_args = ["%tinit", *(["%b0", "%b1"] if swap else [])]
    arg_types = ["!stream.timepoint", *([R, R] if swap else [])]
    body_scf, names = _body(steps, role, "    ")
    join_scf, out_scf = _passed_on(names, how, "    ")
    body_cf, _ = _body(steps, role, "  ")
    join_cf, out_cf = _passed_on(names, how, "  ")
    passed = [out_scf, *(["%q", "%p"] if swap else [])]
    types = ", ".join(arg_types)

    def tail(t: str, p: list[str]) -> list[str]:
        exported = p[0] if swap else "%b0"
        freed = [*(p[1:] if swap else []), *(f"%b{k}" for k in range(1, buffers) if not (swap and k == 1))]
        return [
            f"  %r = stream.timepoint.await {t} => {exported} : {R}{{%c64}}",
            f"  %out = stream.tensor.export on(#hal.device.affinity<@dev0>) %r : tensor<64xi8> in {R}{{%c64}} -> !hal.buffer_view",
            *(f"  %f{k} = stream.resource.dealloca await({t}) => {b} : {R}{{%c64}} => !stream.timepoint" for k, b in enumerate(freed)),
            "  util.return %out : !hal.buffer_view",
            "}",
            "",
        ]

    results = len(arg_types)
    scf = "\n".join([
        *head,
        f'  %loop:{results} = "scf.for"(%c0, %n, %c1, {", ".join(init_args)}) ({{',
        f"  ^bb0(%i: index, %t: !stream.timepoint{''.join(f', {r}: {R}' for r in carried_res)}):",
        *body_scf, *join_scf,
        f'    "scf.yield"({", ".join(passed)}) : ({types}) -> ()',
        f"  }}) : (index, index, index, {types}) -> ({types})",
        *tail("%loop#0", [f"%loop#{k}" for k in range(1, results)]),
    ])
    blocks = "\n".join([
        *head,
        f'  "cf.br"(%c0, {", ".join(init_args)})[^bb1] : (index, {types}) -> ()',
        f"^bb1(%i: index, %t: !stream.timepoint{''.join(f', {r}: {R}' for r in carried_res)}):",
        "  %go = arith.cmpi slt, %i, %n : index",
        '  "cf.cond_br"(%go)[^bb2, ^bb3] <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (i1) -> ()',
        "^bb2:",
        *body_cf, *join_cf,
        "  %next = arith.addi %i, %c1 : index",
        f'  "cf.br"(%next, {", ".join(passed)})[^bb1] : (index, {types}) -> ()',
        "^bb3:",
        *tail("%t", carried_res),
    ])
    expected = _sequential(buffers, steps, swap, trips)
    cmds = [c for st_ in steps for c in (st_.cmd, st_.otherwise) if c is not None]
    writes_carried = swap and any(c.dst in (0, 1) for c in cmds)
    return LoopProgram(scf, blocks, trips, expected, chained, swap, writes_carried)
