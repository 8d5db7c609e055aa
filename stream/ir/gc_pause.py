"""Pausing Python's cyclic garbage collector around bulk construction of acyclic objects.

Parsing or printing a large module allocates hundreds of thousands of small objects that stay
alive (values, ops, tokens, strings); each allocation burst triggers a collection that rescans
all of them, which costs a third of the parse time of a 10k-op module. The same holds for a
pass (every earlier module is still alive), the verifier's model and the refinement checker's
terms (millions of small objects), and a run of the executor (commands, views, submissions).
IR objects hold no reference cycles of their own, so nothing is lost by collecting once
afterwards instead. This is the one place that turns the collector off: every layer uses
`paused_gc()` (the layering lets `verify` and `runtime` import `stream.ir`).
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["paused_gc"]

_LOCK = threading.Lock()
_DEPTH = 0  # pauses in progress, in every thread
_RESTORE = False  # whether the collector was enabled when the first of them began


@contextmanager
def paused_gc() -> Iterator[None]:
    """Disable the cyclic collector for the block. Pauses nest and may overlap across threads
    (two runs of the executor at once, a pass that verifies while the pass manager has paused):
    the collector is re-enabled when the last pause in progress ends, and only if it was enabled
    when the first began, so no pause ends another's early or leaves it off for good. Usable as
    a decorator too (`@paused_gc()`)."""
    global _DEPTH, _RESTORE
    with _LOCK:
        if _DEPTH == 0:
            _RESTORE = gc.isenabled()
            gc.disable()
        _DEPTH += 1
    try:
        yield
    finally:
        with _LOCK:
            _DEPTH -= 1
            if _DEPTH == 0 and _RESTORE:
                gc.enable()
