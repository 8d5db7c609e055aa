"""One type for every per-op table: op name -> rule, with a declared policy and requirement.

Every layer keeps behaviour that is specific to an op in tables keyed by the op's name (the
verifier's effect rules, the runtime's host rules, the passes' rewrite rules, ...). A `RuleTable`
is such a table with what used to be implicit made explicit:

* `name` and `doc`: what the table is and what one of its rules does (the coverage test prints
  it when an op lacks an entry, so it is the instruction for writing the missing rule);
* `policy`: what happens to an op the table has no entry for:
  - `refuse`: `lookup` raises `MissingRule` naming the op and the table;
  - `conservative`: `lookup` returns the declared conservative `default` (a rule that assumes the
    worst, never one that proves something);
  - `undecided`: `lookup` returns `default` (None, or a rule modelling the op conservatively)
    and the caller turns what depends on the op into an undecided obligation (exit 3), never a
    definite verdict (the verifier's `EFFECTS`);
  - `identity`: `lookup` returns `default` (usually None): the op is left alone / passes through
    unchanged (a rewrite that does not apply, an op that contributes nothing);
* `requires`: which registered ops must have an entry (`Requirement`: explicit names, name
  prefixes, the levels the op may occur at, traits, a predicate on its spec, exceptions).
  `tests/test_op_coverage.py` prints the matrix of registered ops against every table and fails
  when an op a requirement includes has no entry.

A `RuleTable` is a `dict` (lookups stay as fast as a dict's; `in`, `get`, iteration as before);
`table[name]` of a missing op raises `MissingRule` (a `KeyError`). Entries are added by
decorator (`@TABLE.register("stream.async.copy", ...)`) or given literally (`entries=`); adding an
op twice raises.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

__all__ = ["Policy", "Requirement", "RuleTable", "OpSet", "MissingRule", "all_tables", "levels_of", "traits_of", "execution_op", "awaits_and_signals", "queue_timeline", "NOTHING"]

Policy = Literal["refuse", "conservative", "undecided", "identity"]
POLICIES: tuple[Policy, ...] = ("refuse", "conservative", "undecided", "identity")

R = TypeVar("R")


@dataclass(frozen=True)
class Requirement:
    """Which registered ops a table must have an entry for: the union of the explicit `ops`, the
    ops whose name starts with one of `prefixes`, the ops that may occur only at the given
    `levels` (their spec's `levels` is a non-empty subset), the ops with one of `traits`, and the
    ops whose spec satisfies `where` (a named function whose docstring's first line says which ops,
    e.g. "host ops of the cmd level"); minus `unless` (ops covered elsewhere, e.g. a companion set
    of pure ops), each exception being a deliberate decision stated in `why`."""

    ops: frozenset[str] = frozenset()
    prefixes: tuple[str, ...] = ()
    levels: frozenset[str] = frozenset()
    traits: frozenset[str] = frozenset()
    where: Callable[[Any], bool] | None = None
    unless: frozenset[str] = frozenset()
    why: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "ops", frozenset(self.ops))
        object.__setattr__(self, "levels", frozenset(self.levels))
        object.__setattr__(self, "traits", frozenset(self.traits))
        object.__setattr__(self, "unless", frozenset(self.unless))

    def includes(self, name: str, spec: Any) -> bool:
        """Whether the op `name` (registered with `spec`, an `OpSpec` or None) needs an entry."""
        if name in self.unless:
            return False
        if name in self.ops or (self.prefixes and name.startswith(self.prefixes)):
            return True
        levels = getattr(spec, "levels", None)
        if self.levels and levels and frozenset(levels) <= self.levels:
            return True
        if self.traits and self.traits & frozenset(getattr(spec, "traits", ())):
            return True
        return self.where is not None and spec is not None and bool(self.where(spec))

    def required(self, registered: Mapping[str, Any]) -> frozenset[str]:
        """The registered ops (name -> spec) that need an entry."""
        return frozenset(n for n, s in registered.items() if self.includes(n, s))

    def describe(self) -> str:
        parts = []
        if self.ops:
            parts.append("ops " + ", ".join(sorted(self.ops)))
        if self.prefixes:
            parts.append("ops named " + " / ".join(p + "*" for p in self.prefixes))
        if self.levels:
            parts.append("ops only at levels " + "/".join(sorted(self.levels)))
        if self.traits:
            parts.append("ops with trait " + " / ".join(sorted(self.traits)))
        if self.where is not None:
            doc = " ".join((self.where.__doc__ or "").strip().split("\n\n")[0].split())
            parts.append(doc.rstrip(".") or f"ops whose spec satisfies {getattr(self.where, '__name__', 'a predicate')}")
        text = "; ".join(parts) or "no op"
        if self.unless:
            text += " except " + ", ".join(sorted(self.unless))
        return text + (f" ({self.why})" if self.why else "")


NOTHING = Requirement()

_TABLES: list[RuleTable[Any]] = []


class MissingRule(KeyError):
    """An op without an entry in a table whose policy is `refuse` (or `table[name]`)."""

    def __init__(self, table: RuleTable[Any], op: str) -> None:
        super().__init__(op)
        self.table = table
        self.op = op

    def __str__(self) -> str:
        t = self.table
        return f"no rule for '{self.op}' in {t.name} ({t.module}, policy {t.policy}): {t.doc.splitlines()[0] if t.doc else ''}"


class RuleTable(dict[str, R]):
    """A table op name -> rule with a declared policy for missing ops and a requirement (see the
    module docstring)."""

    name: str
    doc: str
    policy: Policy
    default: R | None
    requires: Requirement
    module: str

    def __init__(
        self,
        name: str,
        doc: str,
        *,
        policy: Policy,
        default: R | None = None,
        requires: Requirement = NOTHING,
        entries: Mapping[str, R] | Iterable[tuple[str, R]] = (),
        module: str | None = None,
        listed: bool = True,
    ) -> None:
        super().__init__()
        if policy not in POLICIES:
            raise ValueError(f"rule table {name}: unknown policy '{policy}' (one of {', '.join(POLICIES)})")
        if policy == "refuse" and default is not None:
            raise ValueError(f"rule table {name}: a refusing table has no default")
        self.name = name
        self.doc = doc.strip()
        self.policy = policy
        self.default = default
        self.requires = requires
        self.module = module if module is not None else sys._getframe(1).f_globals.get("__name__", "?")
        for key, rule in entries.items() if isinstance(entries, Mapping) else entries:
            self.add(key, rule)
        if listed:  # in `all_tables()` (the coverage test's matrix); tests make unlisted ones
            _TABLES.append(self)

    # dict calls __missing__ for `table[name]` only; `get` and `in` stay the dict's own.
    def __missing__(self, key: str) -> R:
        raise MissingRule(self, key)

    def __repr__(self) -> str:
        return f"RuleTable({self.name}, {len(self)} entries, policy={self.policy})"

    def __hash__(self) -> int:  # type: ignore[override]
        return id(self)

    def __eq__(self, other: object) -> bool:
        return self is other

    def add(self, name: str, rule: R) -> None:
        if name in self:
            raise ValueError(f"rule table {self.name}: '{name}' registered twice")
        dict.__setitem__(self, name, rule)

    def set_default(self, rule: R) -> R:
        """Declare the default rule later than the table (when it is defined in a module that
        imports the table); usable as a decorator."""
        if self.policy == "refuse":
            raise ValueError(f"rule table {self.name}: a refusing table has no default")
        self.default = rule
        return rule

    def register(self, *names: str) -> Callable[[R], R]:
        """Decorator: `@TABLE.register("op.a", "op.b")` adds the function as the rule of each."""

        def wrap(fn: R) -> R:
            for n in names:
                self.add(n, fn)
            return fn

        return wrap

    def lookup(self, name: str) -> R | None:
        """The rule for `name`, else what the policy says: `refuse` raises `MissingRule`; the
        other policies return the declared `default` (the conservative rule, or None for the
        caller to treat as undecided / identity)."""
        rule = dict.get(self, name)
        if rule is not None:
            return rule
        if self.policy == "refuse":
            raise MissingRule(self, name)
        return self.default

    def resolve(self, name: str) -> R:
        """`lookup` for a table that always has an answer (a rule or the declared default):
        raises `MissingRule` when there is neither."""
        rule = self.lookup(name)
        if rule is None:
            raise MissingRule(self, name)
        return rule

    def names(self) -> frozenset[str]:
        return frozenset(self)

    def missing(self, registered: Mapping[str, Any]) -> list[str]:
        """The required registered ops without an entry."""
        return sorted(self.requires.required(registered) - self.keys())


class OpSet(RuleTable[bool]):
    """A table whose rule is membership: the ops of one class (the pure ops, the ops a timepoint
    passes through, ...). `op.name in S` as before; `S | other`, `S & other` and `S - other` are
    frozensets of names. The policy says what not being a member means (usually `identity`: the
    op is treated the ordinary way)."""

    def __init__(
        self,
        name: str,
        doc: str,
        ops: Iterable[str],
        *,
        policy: Policy = "identity",
        requires: Requirement = NOTHING,
        module: str | None = None,
        listed: bool = True,
    ) -> None:
        super().__init__(name, doc, policy=policy, requires=requires, entries=((n, True) for n in ops),
                         module=module if module is not None else sys._getframe(1).f_globals.get("__name__", "?"), listed=listed)

    def __repr__(self) -> str:
        return f"OpSet({self.name}, {sorted(self)})"

    def __or__(self, other: Iterable[str]) -> frozenset[str]:  # type: ignore[override]
        return frozenset(self) | frozenset(other)

    def __ror__(self, other: Iterable[str]) -> frozenset[str]:  # type: ignore[override]
        return frozenset(other) | frozenset(self)

    def __and__(self, other: Iterable[str]) -> frozenset[str]:
        return frozenset(self) & frozenset(other)

    def __rand__(self, other: Iterable[str]) -> frozenset[str]:
        return frozenset(other) & frozenset(self)

    def __sub__(self, other: Iterable[str]) -> frozenset[str]:
        return frozenset(self) - frozenset(other)

    def __rsub__(self, other: Iterable[str]) -> frozenset[str]:
        return frozenset(other) - frozenset(self)


def levels_of(spec: Any) -> frozenset[str]:
    """The levels an op may occur at (empty for an op without an `OpSpec`)."""
    return frozenset(getattr(spec, "levels", ()))


def traits_of(spec: Any) -> frozenset[str]:
    return frozenset(getattr(spec, "traits", ()))


def execution_op(spec: Any) -> bool:
    """the streamable async ops an execution region holds (not the region ops themselves)"""
    name = getattr(spec, "name", "")
    return name.startswith("stream.async.") and "streamable" in traits_of(spec) and not getattr(spec, "regions", ())


def awaits_and_signals(spec: Any) -> bool:
    """timeline ops that await one timepoint operand and signal a result timepoint (their
    `Timeline` interface names both: the executes, alloca, dealloca)"""
    timeline = getattr(spec, "timeline", None)
    return timeline is not None and timeline.awaits == "await_timepoint" and timeline.result is not None


def queue_timeline(spec: Any) -> bool:
    """ops whose result timepoint a queue signals (a `Timeline` interface with a result, other
    than the stream.timepoint ops)"""
    timeline = getattr(spec, "timeline", None)
    return timeline is not None and timeline.result is not None and not spec.name.startswith("stream.timepoint.")


def all_tables() -> list[RuleTable[Any]]:
    """Every `RuleTable` created so far (import the modules defining them first)."""
    return list(_TABLES)

