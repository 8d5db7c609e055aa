"""Bindings a dispatch's kernel overwrites whole without reading them.

IREE ties the result of a dispatch that fills part of a larger buffer (a concat target, a
`stream.async.alloca` of uninitialized bytes) to that buffer, so the binding is `rw` at the cmd
level and a tied operand at the async level, although the kernel only writes it: its subspan is
`!iree_tensor_ext.dispatch.tensor<writeonly:...>` and it stores one whole tensor there. Read as
`rw`, the kernel's output would depend on the old bytes, which are uninitialized or dead (another
slice of the slab in one layout, something else in the next): two programs computing the same
values would differ there. So the refinement leaves the old bytes out of the kernel's inputs
exactly when the executable shows they cannot matter (`overwritten`):

* every entry point of the dispatch is an exported function of an executable of the module whose
  binding argument `j` has exactly one `stream.binding.subspan`, at constant offset 0, of a
  `writeonly` dispatch tensor of static shape with whole-byte elements;
* that subspan is used exactly once, by an `iree_tensor_ext.dispatch.tensor.store` in the
  function's entry block (it runs whenever the kernel does) of offsets 0, the full shape and
  strides 1, with no dynamic offset, size or stride;
* the binding's byte length at the dispatch site is the tensor's byte size.

Then the kernel writes every byte of the binding from its other inputs, and a `writeonly` tensor
cannot be loaded, so its old contents are not an input. Anything else keeps the read.
"""

from __future__ import annotations

from stream.ir.attributes import ArrayAttr, DenseArrayAttr, SymbolRefAttr
from stream.ir.core import Module, Op, Value
from stream.ir.walk import constant_int
from verify.bindings import BindingContext, Subspan, read_entry

__all__ = ["overwritten", "stores_whole"]

_STORE = "iree_tensor_ext.dispatch.tensor.store"


def overwritten(module: Module | None, op: Op, binding: int, length: int | None) -> bool:
    """Does every kernel `op` may run overwrite all `length` bytes of binding `binding` without
    reading them (see the module docstring)?"""
    if module is None or length is None:
        return False
    attr = op.properties.get("entry_points")
    refs = attr.elements if isinstance(attr, ArrayAttr) else (attr,)
    if not refs:
        return False
    ctx = BindingContext(module, op)
    for ref in refs:
        if not isinstance(ref, SymbolRefAttr):
            return False
        entry = read_entry(ctx, ref)
        if isinstance(entry, str) or binding >= len(entry.subspans):
            return False
        subs = entry.subspans[binding]
        if isinstance(subs, str) or len(subs) != 1 or not _whole_store(subs[0], entry.defs, entry.ops, length):
            return False
    return True


def _whole_store(s: Subspan, defs: dict[Value, Op], ops: tuple[Op, ...], length: int) -> bool:
    """The binding's only subspan is at offset 0, as long as the binding, and stored whole."""
    if len(s.op.operands) != 2 or constant_int(s.op.operands[1], defs) != 0 or not stores_whole(s, ops):
        return False
    count = 1
    for d in s.shape:
        count *= d  # type: ignore[operator]
    return count * s.element_bytes == length


def stores_whole(s: Subspan, ops: tuple[Op, ...]) -> bool:
    """Is the subspan `s` (of an entry block `ops`) a `writeonly` static tensor of whole-byte
    elements whose only use is one store of all of it in the entry block? Then the kernel writes
    every byte of the subspan, wherever it is, and reads none of them."""
    text = str(s.op.results[0].type)
    if "<writeonly:" not in text or not s.exact or any(d is None for d in s.shape):
        return False
    # every use, nested ones included; the store itself must be in the entry block (it always runs)
    users = [inner for o in ops for inner in o.walk() if s.op.results[0] in inner.operands]
    if (len(users) != 1 or users[0] not in ops or users[0].name != _STORE or len(users[0].operands) != 2
            or users[0].operands[1] is not s.op.results[0]):
        return False
    store = users[0]
    rank = len(s.shape)
    return (_ints(store, "static_offsets") == [0] * rank and _ints(store, "static_sizes") == list(s.shape)
            and _ints(store, "static_strides") == [1] * rank)


def _ints(op: Op, name: str) -> list[int] | None:
    a = op.properties.get(name)
    if isinstance(a, DenseArrayAttr):
        return [int(x) for x in a.values]
    return None
