"""Value semantics of host buffers and files: how an initializer uploads constants.

From ElideTimepoints on, IREE uploads a module's constants in its initializer from a host buffer
(`util.buffer.constant` holding a `#util.composite` of the packed values): it tries to map the
buffer as a resource (`stream.resource.try_map`) and, where that fails, allocates a resource and
reads the bytes into it through a file (`stream.file.constant`, `stream.file.read`). Either way
the resource holds the buffer's bytes, which is what the branch on `try_map`'s flag must not
change; the flag itself is unknown (an opaque integer, so both ways are checked).

A host buffer is a `Res` without storage whose bytes are the constant's (a composite is the
concatenation of its elements' bytes, so that a slice at an element boundary is the very
constant an earlier stage's `stream.resource.constants` spelled); a file is the same over the
bytes it exposes. `stream.file.write` keeps the opaque default (the file's new contents are not
observed).
"""

from __future__ import annotations

from stream.ir.attributes import Attribute, DenseAttr, StringAttr
from stream.ir.core import Op
from stream.ir.parser import parse_attribute_text
from stream.ir.types import TensorType
from verify.refinement.ints import IntExpr
from verify.refinement.layout import composite_parts, decode_dense
from verify.refinement.machine import Machine, Res, groups, rule
from verify.refinement.rules_host import buffer_string, constant_bytes
from verify.refinement.solver import Undecided
from verify.refinement.terms import ByteStr

__all__: list[str] = []


def _element_bytes(m: Machine, op: Op, attr: Attribute) -> ByteStr | None:
    if isinstance(attr, DenseAttr) and str(attr.type).startswith("vector<"):
        # Padding between packed constants is `dense<0> : vector<Nxi8>`: laid out as the tensor.
        attr = parse_attribute_text(f"dense<{attr.body}> : tensor{str(attr.type)[len('vector'):]}")
    if not isinstance(attr, DenseAttr) or not isinstance(attr.type, TensorType):
        return None
    data = decode_dense(attr)
    if data is None:
        return None
    return constant_bytes(m, op, attr, len(data))


def _buffer_bytes(m: Machine, op: Op, value: Attribute) -> tuple[IntExpr, ByteStr]:
    """The size and bytes of a `util.buffer.constant`'s value."""
    parts = composite_parts(str(value))
    if parts is not None:
        total, elements = parts
        pieces = [p for p in (_element_bytes(m, op, e) for e in elements) if p is not None]
        lengths = [p.length for p in pieces]
        if len(pieces) == len(elements) and all(type(n) is int for n in lengths) and sum(lengths) == total:  # type: ignore[arg-type]
            return total, m.terms.concat(pieces)
        # Elements the check cannot lay out: unknown bytes (equal only to the same text), never
        # a constant that would compare unequal to the same bytes spelled otherwise.
        return total, m.terms.of(m.note(m.terms.opaque(("host-buffer", str(value)), f"the bytes of {value}"), op), total)
    if isinstance(value, DenseAttr):
        data = decode_dense(value)
        if data is not None:
            return len(data), constant_bytes(m, op, value, len(data))
    raise Undecided(f"the size of the util.buffer.constant at {op.location} is not known to the refinement check")


@rule("util.buffer.constant")
def _buffer_constant(m: Machine, op: Op) -> None:
    value = op.properties.get("value")
    if value is None or isinstance(value, StringAttr):
        # A string: a parameter scope or key (verify.refinement.rules_parameter).
        text = value.value if isinstance(value, StringAttr) else str(value)
        m.set(op.results[0], buffer_string(m, text))
        return
    size, data = _buffer_bytes(m, op, value)
    m.set(op.results[0], Res(size, data, producer=op))


def _host(m: Machine, op: Op, name: str) -> Res:
    e = m.entry(getattr(groups(op), name))
    if not isinstance(e, Res) or e.data is None:
        raise Undecided(f"the {name} of '{op.name}' at {op.location} is not a host buffer the refinement check follows")
    return e


def _slice(m: Machine, src: Res, offset: IntExpr, length: IntExpr) -> ByteStr:
    m.in_bounds(offset, length, src.size)
    assert src.data is not None
    return m.terms.slice(src.data, offset, length)


@rule("stream.resource.try_map")
def _try_map(m: Machine, op: Op) -> None:
    v = groups(op)
    source = _host(m, op, "source")
    offset, size = m.integer(v.source_offset), m.integer(v.result_size)
    data = _slice(m, source, offset, size)
    # Whether the mapping works is the runtime's choice: an unknown integer (never folded, so a
    # branch on it is checked both ways).
    m.set(op.results[0], m.ints.sym(("try_map", m.opaque_key(op)), f"{op.name} at {op.location}"))
    if m.memory_mode:
        alloc = m.new_alloc("constant", f"the host buffer mapped at {op.location}", op, size, data)
        m.set(op.results[1], Res(size, None, alloc, 0, 0, op))
    else:
        m.set(op.results[1], m.fresh(data, op))


@rule("stream.file.constant")
def _file_constant(m: Machine, op: Op) -> None:
    v = groups(op)
    source = _host(m, op, "source")
    data = _slice(m, source, m.integer(v.source_offset), m.integer(v.source_length))
    m.set(op.results[0], Res(data.length, data, producer=op))


@rule("stream.file.read")
def _file_read(m: Machine, op: Op) -> None:
    v = groups(op)
    file = _host(m, op, "source")
    target = m.res(v.target, m.integer(v.target_size))
    offset, length = m.integer(v.target_offset), m.integer(v.length)
    data = _slice(m, file, m.integer(v.source_offset), length)
    m.in_bounds(offset, length, target.size)
    alloc, base = m.storage(target, op)
    m.write(alloc, m.ints.add(base, offset), data, op)
    m.set(op.results[0], None)
