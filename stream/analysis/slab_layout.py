"""Slab layout: byte offsets for the slices of one `stream.resource.pack`.

A slice has a size and an inclusive lifetime interval `[start, end]` (positions in an execution
region). Two slices whose intervals intersect are live at the same time and must get disjoint
bytes; slices whose intervals are disjoint may share bytes. `layout_slices` places every slice at
an offset aligned to `alignment` and returns the offsets and the slab's total size (the end of
the furthest slice, rounded up to the alignment).

The algorithm is greedy best fit by decreasing size (the strip-packing heuristic TFLite's arena
planner and IREE's LayoutSlices use): the largest slice is placed first; each next slice goes into
the smallest gap, among the slices already placed that are live at the same time, that holds
it, or after the last of them. It is not optimal (the problem is NP-hard) but it never
overlaps two live slices, which `check_layout` states and the tests check on random inputs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["DEFAULT_ALIGNMENT", "Slice", "layout_slices", "check_layout", "align"]

# IREE's default resource configuration: minimum offset alignment of 64 bytes.
DEFAULT_ALIGNMENT = 64


@dataclass(frozen=True, slots=True)
class Slice:
    size: int
    start: int
    end: int  # inclusive

    def overlaps_in_time(self, other: Slice) -> bool:
        return self.start <= other.end and other.start <= self.end


def align(n: int, alignment: int) -> int:
    return -(-n // alignment) * alignment


def layout_slices(slices: Sequence[Slice], alignment: int = DEFAULT_ALIGNMENT) -> tuple[list[int], int]:
    """Offsets (one per slice, in input order) and the total slab size."""
    if alignment <= 0:
        raise ValueError("alignment must be positive")
    order = sorted(range(len(slices)), key=lambda i: (-slices[i].size, slices[i].start, i))
    offsets = [0] * len(slices)
    placed: list[int] = []
    for i in order:
        s = slices[i]
        live = sorted((offsets[j], slices[j].size) for j in placed if slices[j].overlaps_in_time(s))
        best: int | None = None
        best_gap: int | None = None
        cursor = 0
        for offset, size in live:
            start = align(cursor, alignment)
            gap = offset - start
            if gap >= s.size and (best_gap is None or gap < best_gap):
                best, best_gap = start, gap
            cursor = max(cursor, offset + size)
        offsets[i] = best if best is not None else align(cursor, alignment)
        placed.append(i)
    total = align(max((offsets[i] + s.size for i, s in enumerate(slices)), default=0), alignment)
    return offsets, total


def check_layout(slices: Sequence[Slice], offsets: Sequence[int], total: int, alignment: int) -> list[str]:
    """Problems with a layout (empty when it is valid): misaligned offsets, slices beyond the
    total, and pairs of slices live at the same time that share bytes."""
    problems: list[str] = []
    for i, (s, o) in enumerate(zip(slices, offsets)):
        if o % alignment:
            problems.append(f"slice {i} at offset {o} is not {alignment}-byte aligned")
        if o + s.size > total:
            problems.append(f"slice {i} [{o}, {o + s.size}) exceeds the total {total}")
    for i in range(len(slices)):
        for j in range(i + 1, len(slices)):
            a, b = slices[i], slices[j]
            if a.size and b.size and a.overlaps_in_time(b):
                if offsets[i] < offsets[j] + b.size and offsets[j] < offsets[i] + a.size:
                    problems.append(f"slices {i} and {j} are live together and share bytes")
    return problems
