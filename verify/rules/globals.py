"""`util.global.load` / `util.global.store`: globals as storage and timepoints (verify.globals).

* a load of a resource global names its storage (`verify.storage`); when PropagateTimepoints gave
  the global a companion timepoint global that may hold a pending timepoint, every access to the
  loaded storage must follow the companion's timepoint (as this function loads it: reached by
  whoever stored it, at a time the function does not know), or it is a MISSED_WAIT;
  (a later load whose users declare more bytes than the first's is OUT_OF_BOUNDS);
* a load of a timepoint global gives the timepoint the global holds: at function entry one
  reach per global (ordered by nothing this function does), after a store the stored one;
* a store of a resource global hands its storage to later loaders: with a companion that is not
  always immediate, they observe it once the timepoint this function leaves in the companion is
  reached and the function has returned (every access here must be finished by then: covered by
  the companion, or awaited by the host before the return); without one, the value must be
  ready and every access here finished at the return (with the synchronous ABI: the next call
  loads it once this one has returned; else at the store itself), a read of all of it, as an
  export. Only the last store of each global does: an earlier one is replaced before any later
  loader runs;
* a store of an immutable global outside an initializer (or a private function only initializers
  call) is BORROWED_INPUT_MUTATED, as IREE's VerifyInitializationOrder refuses it.
"""

from __future__ import annotations

from stream.ir.core import Op, Value
from stream.ir.types import ResourceType, TimepointType
from verify.events import Site
from verify.globals import LOAD, STORE, global_name
from verify.model import READ, Builder, RangeCheck
from verify.rules.table import effect
from verify.storage import AllocKind
from verify.symbolic import ZERO

__all__ = ["global_load", "global_store", "finish_stores"]


def _entry(b: Builder, name: str, op: Op) -> Site:
    """The site at which the timepoint the global `name` holds at function entry is reached."""
    site = b.model.global_entries.get(name)
    if site is None:
        e = b.reach(f"the timepoint @{name} holds when the function starts", [], op)
        found = b.graph.site_of[e]
        assert found is not None
        site = b.model.global_entries[name] = found
    return site


def _current(b: Builder, name: str, op: Op) -> int | None:
    """The event of the timepoint the global `name` holds now (None: reached)."""
    if name in b.model.global_timepoints:
        return b.model.global_timepoints[name]
    if b.storage.globals.always_immediate(name):
        return None
    return _entry(b, name, op).start


@effect(LOAD)
def global_load(b: Builder, op: Op) -> None:
    name = global_name(op)
    if name is None or not op.results:
        return
    r = op.results[0]
    if isinstance(r.type, TimepointType):
        b.timepoint(r, _current(b, name, op))
        return
    if not isinstance(r.type, ResourceType):
        return
    view = b.view(r)
    if view is None or view.alloc.kind is not AllocKind.GLOBAL:
        return  # the value this function stored: its own facts hold
    if view.size is not view.alloc.size and view.size != view.alloc.size:
        # Another load of the global declares its own size: it must fit in the size the first
        # declared (the global's size in this function), or accesses through it may run past it.
        b.model.ranges.append(RangeCheck(None, op, f"the {view.size} bytes of @{name} this load's users declare", ZERO, view.size,
                                         view.alloc.size, None, r))
    companion = b.storage.globals.companion(name)
    if companion is None or companion.name in b.model.global_timepoints or b.storage.globals.always_immediate(companion.name):
        return
    b.model.global_guards.setdefault(view.alloc.id, (_entry(b, companion.name, op), companion.name))


@effect(STORE)
def global_store(b: Builder, op: Op) -> None:
    name = global_name(op)
    if name is None or not op.operands:
        return
    v = op.operands[0]
    decl = b.storage.globals.get(name)
    if isinstance(v.type, TimepointType):
        b.model.global_timepoints[name] = b.model.tp_event.get(v)
        return
    if not isinstance(v.type, ResourceType):
        return
    site = b.host(op, f"store @{name}")
    if decl is not None and not decl.mutable and not b.storage.globals.may_store_immutable(b.model.func.op):
        b.model.immutable_stores.append((site, name))
    b.model.global_stores.append((site, v, name))


def finish_stores(b: Builder) -> None:
    """After the walk (the timepoint a function leaves in a companion is its last store of it):
    where later loaders observe each stored value. Only the last store of each global (in this
    program: one path, or one iteration of a loop) hands storage over: an earlier one is replaced
    before the function returns, so no later loader can see it (a load later in this function
    names its storage and is an access like any other)."""
    last: dict[str, tuple[Site, Value, str]] = {}
    for entry in b.model.global_stores:
        last[entry[2]] = entry
    for site, v, name in last.values():
        companion = b.storage.globals.companion(name)
        pending = companion is not None and not b.storage.globals.always_immediate(companion.name)
        if not pending:
            # The next call loads it once this one has returned: with the synchronous ABI the
            # value must be ready, and what this function does to it (a reload after the store
            # reads it too) finished, at the return. Elsewhere (a loop iteration, which has no
            # return; a fence ABI) at the store itself.
            end = b.model.return_site if not b.model.completions else None
            _observed_at(b, end if end is not None else site, v, name, None)
            continue
        assert companion is not None
        if companion.name in b.model.global_timepoints:
            e = b.model.global_timepoints[companion.name]
        else:  # never stored here: the loader waits on what the companion held at entry
            e = _entry(b, companion.name, site.op).start
        preds = [(site.start, "stored")] + ([(e, f"@{companion.name} is reached")] if e is not None else [])
        end = b.model.return_site
        if end is not None and end is not site:
            # The next call loads it after this one returned: what the host waited for before the
            # return is finished by then too (a reload after the store, awaited by the host).
            preds.append((end.start, "the function returned"))
        seen = b.reach(f"a later load of @{name} once @{companion.name} is reached", preds, site.op)
        handed = b.graph.site_of[seen]
        assert handed is not None
        _observed_at(b, handed, v, name, companion.name)


def _observed_at(b: Builder, site: Site, v: Value, name: str, companion: str | None) -> None:
    b.use(site, v)
    read = b.whole(site, v, READ, f"stored into @{name}")
    if read is not None:
        b.model.global_handoffs.setdefault(read.alloc.id, []).append((read, companion or ""))
