"""Slab layout: best-fit placement never overlaps two live slices."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stream.analysis.slab_layout import Slice, align, check_layout, layout_slices


def test_disjoint_lifetimes_share_bytes() -> None:
    offsets, total = layout_slices([Slice(1024, 0, 1), Slice(1024, 1, 2), Slice(1024, 2, 3)])
    assert offsets == [0, 1024, 0]
    assert total == 2048


def test_iree_diamond_layout() -> None:
    # The three locals of IREE's b_diamond (stage 07's pack) laid out as IREE's stage 08 does.
    offsets, total = layout_slices([Slice(16384, 0, 2), Slice(16384, 0, 1), Slice(16384, 1, 2)])
    assert (offsets, total) == ([0, 16384, 32768], 49152)


def test_offsets_are_aligned_and_gaps_are_reused() -> None:
    # A big slice live throughout, two small ones live one after the other.
    slices = [Slice(100, 0, 3), Slice(10, 0, 0), Slice(10, 2, 3), Slice(200, 1, 1)]
    offsets, total = layout_slices(slices, alignment=64)
    assert all(o % 64 == 0 for o in offsets)
    assert offsets[1] == offsets[2]  # the two small slices share the same bytes
    assert not check_layout(slices, offsets, total, 64)
    assert total == align(max(o + s.size for o, s in zip(offsets, slices)), 64)


def test_best_fit_prefers_the_smallest_gap() -> None:
    # Long-lived slices with a 300-byte and a 200-byte hole between them once the short-lived
    # slices die; a 150-byte slice born later goes into the 200-byte hole.
    slices = [Slice(512, 0, 9), Slice(300, 0, 0), Slice(256, 0, 9), Slice(200, 0, 0), Slice(160, 0, 9), Slice(150, 1, 1)]
    offsets, total = layout_slices(slices, alignment=1)
    assert offsets[:5] == [0, 512, 812, 1068, 1268]
    assert offsets[5] == 1068
    assert total == 1428 and not check_layout(slices, offsets, total, 1)


def test_check_layout_reports_overlaps() -> None:
    slices = [Slice(64, 0, 1), Slice(64, 1, 2)]
    assert check_layout(slices, [0, 0], 64, 64) == ["slices 0 and 1 are live together and share bytes"]
    assert check_layout(slices, [0, 32], 128, 64)[0].startswith("slice 1 at offset 32 is not 64-byte aligned")
    with pytest.raises(ValueError):
        layout_slices(slices, alignment=0)


slices_strategy = st.lists(
    st.tuples(st.integers(0, 5000), st.integers(0, 20), st.integers(0, 20)).map(lambda t: Slice(t[0], min(t[1], t[2]), max(t[1], t[2]))),
    max_size=24,
)


@settings(max_examples=150, deadline=None)
@given(slices_strategy, st.sampled_from([1, 16, 64, 256]))
def test_random_layouts_are_valid_and_no_worse_than_disjoint(slices: list[Slice], alignment: int) -> None:
    offsets, total = layout_slices(slices, alignment)
    assert check_layout(slices, offsets, total, alignment) == []
    assert total <= sum(align(s.size, alignment) for s in slices)
    # Never below the bytes live at the busiest moment.
    peak = max((sum(s.size for s in slices if s.start <= t <= s.end) for t in range(21)), default=0)
    assert total >= peak
