"""ABI obligations: what the function's caller, and the functions after it, may observe.

* `completion`: what the caller can observe (its own storage, what it gets back) is finished when
  it may look: at the return (synchronous ABI), at a signalled fence (async ABI), or, for a
  private function, once the caller has awaited the timepoint returned with it;
* `wait_fence`: under the coarse-fences ABI every access to an input is ordered after the wait
  fence (or, for a private function, after the timepoint an argument is handed in with);
* `globals_`: an access to a loaded global follows the timepoint stored with it, what is stored
  into a global is finished where a later loader observes it, and only initializers store an
  immutable global (`verify.globals`); after a call without a summary, which may use any global,
  an access of a mutable global is undecided (`opaque`).
"""

from __future__ import annotations

from collections.abc import Iterator

from verify.model import FunctionModel
from verify.obligation import Obligation, overlap_cond
from verify.storage import AllocKind

__all__ = ["completion", "wait_fence", "globals_", "INPUTS"]


def completion(model: FunctionModel) -> Iterator[Obligation]:
    """What the caller can observe (its own storage, and what it gets back) must be finished
    when it may look: at the return (synchronous ABI) or at a signalled fence (async ABI)."""
    targets = model.completions or ([model.return_site] if model.return_site is not None else [])
    if not targets:
        return
    shape = "order" if len(targets) == 1 else "order_any"
    for site, value in model.handoffs:  # async ABI: a handed-out value must be ready at a fence
        producer = model.ready.get(value)
        if producer is not None:
            yield Obligation(
                "MISSED_WAIT", shape, producer, targets[-1], roles=("producer", "fence"), op=site.op, value=value,
                targets=tuple(targets),
            )
    seen: set[int] = set()
    every = [h for hs in model.deferred.values() for h in hs]
    stored = {h.site.id for hs in model.global_handoffs.values() for h, _ in hs}
    for a in sorted(model.accesses, key=lambda a: not a.writes):
        visible = a.alloc.caller_visible or a.alloc.id in model.escapes
        if not visible or a.site.id in seen or a.site.host or a.site in every or a.site.id in stored:
            continue
        if a.alloc.kind is AllocKind.GLOBAL and a.alloc.id in model.global_handoffs:
            continue  # a global stored back: the next loader observes it where `globals_` says
        seen.add(a.site.id)
        own = model.deferred.get(a.alloc.id)
        handed = own or (every if a.alloc.caller_visible else None)
        if handed and a.alloc.id not in model.ready_escapes and not model.completions:
            # Private function: storage returned unready with a timepoint is observed once the
            # caller has awaited that timepoint (each one it is returned with); the caller's other
            # buffers once it has awaited a timepoint the call returned (each, as it may pick any).
            for h in handed:
                if h is not a.site:
                    yield Obligation(
                        "MISSED_WAIT", "order", a.site, h, a, None, a.alloc, roles=("access", "handed over"),
                        detail="is not covered by the timepoint the function returns with it" if own else
                        "is not covered by a timepoint the function returns (the caller reuses its buffers once it has awaited one)",
                        targets=(h,),
                    )
            continue
        t = targets[-1]
        yield Obligation(
            "MISSED_WAIT", "order" if len(targets) == 1 else "order_any", a.site, t, a, None, a.alloc,
            roles=("access", "return" if t is model.return_site else "fence"),
            detail="is not finished when the caller may observe the memory",
            targets=tuple(targets),
        )


INPUTS = (AllocKind.IMPORT, AllocKind.IMPORT_CONSUMED, AllocKind.ARGUMENT)


def wait_fence(model: FunctionModel) -> Iterator[Obligation]:
    """Coarse-fences ABI (SPEC §3.1 rule 8): the caller may still be writing the inputs until the
    wait fence is signalled, so every access to an input (an import or a resource argument) must
    be ordered after it: after a wait (device or host) that transitively covers its import."""
    seen: set[tuple[int, int]] = set()
    for fence in model.wait_fences:
        signal = model.fence_sites.get(fence)
        if signal is None:
            continue
        for a in model.accesses:
            if a.alloc.kind not in INPUTS or (signal.id, a.site.id) in seen:
                continue
            seen.add((signal.id, a.site.id))
            yield Obligation(
                "MISSED_WAIT", "order", signal, a.site, None, a, a.alloc, roles=("wait fence", "access"), op=a.site.op,
                detail=f"{a.site.name} is not ordered after the wait fence that guards the inputs (the caller may still be writing them)",
            )
    if model.arg_guards:  # private functions: an argument handed in with a timepoint
        for a in model.accesses:
            guard = model.arg_guards.get(a.alloc.id)
            if guard is None or (guard.id, a.site.id) in seen:
                continue
            seen.add((guard.id, a.site.id))
            yield Obligation(
                "MISSED_WAIT", "order", guard, a.site, None, a, a.alloc, roles=("handed in", "access"), op=a.site.op,
                detail=f"{a.site.name} is not ordered after the timepoint the caller hands in with it (the value may not be ready)",
            )


def globals_(model: FunctionModel) -> Iterator[Obligation]:
    """Globals (verify.globals): an access to a loaded resource global follows the timepoint
    stored with it (its companion); what a function stores into a global is finished where a
    later loader observes it; an immutable global is stored only by initializers."""
    for a in model.accesses:
        guard = model.global_guards.get(a.alloc.id)
        if guard is not None and a.site is not guard[0]:
            yield Obligation(
                "MISSED_WAIT", "order", guard[0], a.site, None, a, a.alloc, roles=("global timepoint", "access"), op=a.site.op,
                detail=f"{a.site.name} uses @{a.alloc.symbol} before the timepoint stored with it (@{guard[1]}) is reached",
            )
    observed = {h.site.id for hs in model.global_handoffs.values() for h, _ in hs}
    for a in sorted(model.accesses, key=lambda a: not a.writes):
        if a.site.id in observed:  # another store's observation (subviews of one slab): not an access of this function's work
            continue
        for h, companion in model.global_handoffs.get(a.alloc.id, ()):
            yield Obligation(
                "MISSED_WAIT", "order_if_overlap", a.site, h.site, a, h, a.alloc, overlap_cond(a, h), roles=("access", "stored"),
                detail=f"is not covered by the timepoint stored in @{companion}" if companion else
                "is not finished when the value is stored into the global",
            )
    # A call without a summary may load or store any global (verify.storage: calls touching
    # globals are not summarised): an access of a mutable global here is never proved then.
    if model.storage.call_reasons:
        calls = sorted(model.storage.call_reasons, key=lambda o: (o.location.line, o.location.col))
        seen: set[int] = set()
        for a in model.accesses:
            if a.alloc.kind is not AllocKind.GLOBAL or not a.alloc.mutable or a.alloc.id in seen:
                continue
            seen.add(a.alloc.id)
            call = calls[0]
            yield Obligation(
                "RACE_WRITE_AFTER_WRITE" if a.writes else "RACE_READ_AFTER_WRITE", "opaque", a.site, None, a, None, a.alloc,
                roles=("access", ""), op=a.site.op,
                detail=f"{a.site.op.name} uses the mutable global @{a.alloc.symbol}, which the call at {call.location} may use too "
                       f"({model.storage.call_reasons[call]})",
            )
    for site, name in model.immutable_stores:
        yield Obligation(
            "BORROWED_INPUT_MUTATED", "fact", site, None, roles=("store", ""), op=site.op,
            detail=f"stores the immutable global @{name} outside an initializer (only initializers may set it)",
        )
