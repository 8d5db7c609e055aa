"""Typed op views: one class per op spec, generated from it, with a named accessor per operand
group, result group, inherent attribute and region.

`view(op).target_offset` is a property of the view class of `op`'s spec; the op's operand and
result layout (where each group starts, how many values it has) is computed once per view, on
the first access that needs it. A name the spec does not declare raises `AttributeError` at once,
naming the op and the names it has (never a silent default).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from stream.ir.core import Op
    from stream.ir.spec import OpSpec

__all__ = ["OpView", "view_class"]


class OpView:
    """Named access to an op's operand groups, results, attributes and regions.

    `view(op).await_timepoint` is the optional await operand (or None), `view(op).resource_operands`
    a tuple, `view(op).affinity` the attribute (or None), `view(op).body` the region.
    """

    __slots__ = ("op", "spec", "_operands", "_results")
    _names: tuple[str, ...] = ()

    def __init__(self, op: Op, spec: OpSpec) -> None:
        self.op = op
        self.spec = spec
        self._operands: list[int] | None = None  # start of each operand group, then the end
        self._results: list[int] | None = None

    def _operand_starts(self) -> list[int]:
        starts = self._operands
        if starts is None:
            starts = self._operands = _starts(self.spec.operand_sizes(self.op))
        return starts

    def _result_starts(self) -> list[int]:
        starts = self._results
        if starts is None:
            starts = self._results = _starts(self.spec.result_sizes(self.op))
        return starts

    def __getattr__(self, name: str) -> Any:
        # Only reached for names the view class does not define.
        if name.startswith("__"):
            raise AttributeError(name)
        raise AttributeError(
            f"'{self.spec.name}' has no operand, result, attribute or region '{name}' (it has: {', '.join(self._names) or 'nothing'})"
        )


def _starts(sizes: list[int]) -> list[int]:
    out = [0]
    for n in sizes:
        out.append(out[-1] + n)
    return out


def _group(kind: str, index: int, arity: str, fixed: int | None) -> property:
    """The accessor of operand (`kind` "operands") or result ("results") group `index`."""
    starts_of = OpView._operand_starts if kind == "operands" else OpView._result_starts
    if fixed is not None:  # only single groups precede it: no segment arithmetic
        def get_fixed(self: OpView) -> Any:
            return getattr(self.op, kind)[fixed]

        return property(get_fixed)

    def get(self: OpView) -> Any:
        starts = starts_of(self)
        group = getattr(self.op, kind)[starts[index] : starts[index + 1]]
        if arity == "single":
            return group[0]
        if arity == "optional":
            return group[0] if group else None
        return group

    return property(get)


def _attr(name: str) -> property:
    def get(self: OpView) -> Any:
        return self.op.properties.get(name)

    return property(get)


def _region(index: int) -> property:
    def get(self: OpView) -> Any:
        return self.op.regions[index] if index < len(self.op.regions) else None

    return property(get)


def _fixed(groups: tuple[Any, ...], index: int) -> int | None:
    """The value index of single group `index` when only single groups precede it."""
    if groups[index].arity == "single" and all(g.arity == "single" for g in groups[:index]):
        return index
    return None


def view_class(spec: OpSpec) -> type[OpView]:
    """The view class of one op spec (operand groups first, then results, attributes, regions;
    the first declaration of a name wins, as the spec's formats resolve names)."""
    members: dict[str, Any] = {}
    for i, o in enumerate(spec.operands):
        members.setdefault(o.name, _group("operands", i, o.arity, _fixed(spec.operands, i)))
    for i, r in enumerate(spec.results):
        members.setdefault(r.name, _group("results", i, r.arity, _fixed(spec.results, i)))
    for a in spec.attrs:
        members.setdefault(a.name, _attr(a.name))
    for i, region in enumerate(spec.regions):
        members.setdefault(region.name, _region(i))
    if spec.affinity is not None:  # `view(op).affinity` whatever the spec calls it
        members.setdefault("affinity", _attr(spec.affinity))
    clash = set(members) & (set(OpView.__slots__) | set(dir(OpView)))
    if clash:
        raise ValueError(f"{spec.name}: group name(s) {sorted(clash)} clash with the view's own attributes")
    members["__slots__"] = ()
    members["_names"] = tuple(members_name for members_name in members if not members_name.startswith("_"))
    cls = type(f"{spec.name.replace('.', '_')}_view", (OpView,), members)
    return cls
