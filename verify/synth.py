"""Synthetic cmd-level programs, for property tests and benchmarks.

`cmd_program(n, ...)` writes a realistic schedule of `n` dispatches in IREE's cmd-level form: per
device a chain of execute regions; each region gets a queue-ordered transient slab (alloca,
dealloca after the region) and an output buffer, runs `waves` of up to `width` dispatches in
`cmd.concurrent` on disjoint slab slices (each wave reads the previous wave's slices), and ends
with a dispatch reading the last wave and the previous region's output. Regions await the
previous region of their device and their allocations; the host awaits every device at the end.

`faults` injects bugs at random places (seeded): `drop-await` (a region stops awaiting its
predecessor), `early-free` (a slab dealloca awaits its alloca instead of the region),
`same-slice` (two dispatches of one wave write the same slice), `no-alloca-wait` (a region stops
awaiting its slab). The program is correct without faults.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

__all__ = ["cmd_program", "Synth", "FAULTS"]

FAULTS = ("drop-await", "early-free", "same-slice", "no-alloca-wait")
SLICE = 256


@dataclass
class Synth:
    text: str
    dispatches: int
    regions: int
    faults: list[tuple[str, int]] = field(default_factory=list)  # (fault, region index)


def cmd_program(
    n: int, *, devices: int = 1, per_region: int = 8, width: int = 4, seed: int = 0, faults: dict[str, int] | None = None,
    symbolic: bool = False,
) -> Synth:
    """With `symbolic`, every region lays its slab out with a `stream.resource.pack` (all slices
    live together), so slab offsets and the slab size are symbolic and ranges go to Z3."""
    rng = random.Random(seed)
    regions = max(1, -(-n // per_region))
    chosen: dict[int, set[str]] = {}
    injected: list[tuple[str, int]] = []
    for fault, count in (faults or {}).items():
        if fault not in FAULTS:
            raise ValueError(f"unknown fault {fault!r} (known: {', '.join(FAULTS)})")
        for r in rng.sample(range(regions), min(count, regions)):
            chosen.setdefault(r, set()).add(fault)
            injected.append((fault, r))
    out: list[str] = []
    w = out.append
    slab_size = SLICE * 2 * width  # two banks: a wave writes one and reads what the previous wave wrote in the other
    consts = {0, SLICE, slab_size}
    last_tp: list[str | None] = [None] * devices
    last_out: list[str] = ["%in"] * devices
    left = n
    slots = 2 * width

    def at(r: int, offset: int) -> str:
        return f"%p{r}#{1 + offset // SLICE}" if symbolic else f"%c{offset}"

    for r in range(regions):
        dev = r % devices
        aff = f"#hal.device.affinity<@dev{dev}>"
        k = min(per_region, left)
        left -= k
        bugs = chosen.get(r, set())
        size = f"%p{r}#0" if symbolic else f"%c{slab_size}"
        if symbolic:
            w(f"  %p{r}:{slots + 1} = stream.resource.pack on({aff}) slices({{")
            w(",\n".join(f"    [0, 1] = %c{SLICE}" for _ in range(slots)))
            w("  }) : index")
        w(f"  %slab{r}, %ts{r} = stream.resource.alloca uninitialized on({aff}) : !stream.resource<transient>{{{size}}} => !stream.timepoint")
        w(f"  %out{r}, %to{r} = stream.resource.alloca uninitialized on({aff}) : !stream.resource<external>{{%c{SLICE}}} => !stream.timepoint")
        waits = [f"%to{r}"]
        if "no-alloca-wait" not in bugs:
            waits.append(f"%ts{r}")
        prev = last_tp[dev]
        if prev is not None and "drop-await" not in bugs:
            waits.append(prev)
        w(f"  %j{r} = stream.timepoint.join max({', '.join(waits)}) => !stream.timepoint")
        src = last_out[dev]
        w(f"  %e{r} = stream.cmd.execute on({aff}) await(%j{r}) => with({src} as %a: !stream.resource<external>{{%c{SLICE}}}, "
          f"%slab{r} as %s: !stream.resource<transient>{{{size}}}, %out{r} as %o: !stream.resource<external>{{%c{SLICE}}}) {{")
        done, wave, prev_width, last_slot = 0, 0, 0, 0
        while done < k - 1:  # the last dispatch of the region writes its output
            m = min(width, k - 1 - done)
            same = "same-slice" in bugs and m >= 2 and wave == 0
            if m > 1:
                w("    stream.cmd.concurrent {")
            for i in range(m):
                slot = ((wave % 2) * width + (0 if same and i == 1 else i)) * SLICE
                consts.add(slot)
                w(f"      stream.cmd.dispatch @ex::@d{r}_{done + i} {{")
                if prev_width:
                    read = (((wave - 1) % 2) * width + i % prev_width) * SLICE
                    consts.add(read)
                    w(f"        ro %s[{at(r, read)} for %c{SLICE}] : !stream.resource<transient>{{{size}}},")
                else:
                    w(f"        ro %a[%c0 for %c{SLICE}] : !stream.resource<external>{{%c{SLICE}}},")
                w(f"        wo %s[{at(r, slot)} for %c{SLICE}] : !stream.resource<transient>{{{size}}}")
                w("      }")
            if m > 1:
                w("    }")
            last_slot = ((wave % 2) * width) * SLICE
            done += m
            wave += 1
            prev_width = m
        consts.add(last_slot)
        w(f"    stream.cmd.dispatch @ex::@d{r}_out {{")
        w(f"      ro %s[{at(r, last_slot)} for %c{SLICE}] : !stream.resource<transient>{{{size}}},")
        w(f"      wo %o[%c0 for %c{SLICE}] : !stream.resource<external>{{%c{SLICE}}}")
        w("    }")
        w("  } => !stream.timepoint")
        free_after = f"%ts{r}" if "early-free" in bugs else f"%e{r}"
        w(f"  %d{r} = stream.resource.dealloca on({aff}) await({free_after}) => %slab{r} : !stream.resource<transient>{{{size}}} => !stream.timepoint")
        last_tp[dev] = f"%e{r}"
        last_out[dev] = f"%out{r}"
    finals = [t for t in last_tp if t is not None]
    w(f"  %done = stream.timepoint.join max({', '.join(finals + [f'%d{r}' for r in range(regions)])}) => !stream.timepoint")
    w(f"  %r = stream.timepoint.await %done => {last_out[0]} : !stream.resource<external>{{%c{SLICE}}}")
    w("  util.return %r : !stream.resource<external>")
    w("}")
    head = ["util.func public @synth(%in: !stream.resource<external>) -> !stream.resource<external> {"]
    head += [f"  %c{c} = arith.constant {c} : index" for c in sorted(consts)]
    return Synth("\n".join(head + out) + "\n", n, regions, injected)
