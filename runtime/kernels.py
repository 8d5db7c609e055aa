"""The kernel registry: numpy functions by dispatch symbol, and how dispatches call them.

Calling convention (the same for the reference interpreter and for `stream.cmd.dispatch`):

    kernel(*inputs, *scalars, *outputs)

* `inputs` are the dispatch's tensor operands as read-only numpy arrays, in operand order; at the
  cmd level these are the `ro` and `rw` bindings in binding order;
* `scalars` are its non-tensor operands (index values as Python ints, other scalars as numpy
  scalars), in order, without the dynamic dims that shape the bindings; at the cmd level these are
  the uniform operands minus the trailing dims (docs/CONVENTIONS.md);
* `outputs` are writable arrays in binding order: the in-place (tied) results first, in the order
  of the operands they reuse, then the other results in order; at the cmd level, the `rw` and `wo`
  bindings in binding order (resource operands, then untied results: the same order). A tied
  output **is** the array of its input (`out is x`), so `np.add(x, y, out=out)` updates in place.

A kernel may instead take only `(*inputs, *scalars)` and return its result(s); they are copied into
the outputs (shapes must match exactly). Which form a kernel uses is read from its signature.

Lookup: a symbol `@ex::@entry` tries `ex::entry`, then `entry`, then `ex`; a bare `@matmul` tries
`matmul`. Kernels for IREE-built schedules, whose dispatches carry no `streamproof.binding_types`,
declare their binding types: `@kernel("diamond_dispatch_0_matmul_64x64x64_f32",
bindings=["tensor<64x64xf32>"] * 3)`, or `bindings="bytes"` to take every binding as a flat uint8
array of its bound length (a stand-in kernel that only moves bytes is enough to check a schedule
for races and deadlocks).
"""

from __future__ import annotations

import importlib.util
import inspect
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from runtime.builtin_kernels import BUILTINS
from stream.ir.attributes import SymbolRefAttr
from stream.ir.types import TensorType

__all__ = ["Kernel", "KernelRegistry", "KernelError", "kernel", "DEFAULT_REGISTRY", "load_kernel_file", "parse_tensor_type"]


class KernelError(Exception):
    """A kernel could not be registered, found or called as declared."""


def parse_tensor_type(text: str | TensorType) -> TensorType:
    """`"tensor<64x64xf32>"` -> TensorType (TensorType values pass through)."""
    if isinstance(text, TensorType):
        return text
    from stream.ir.diagnostics import DiagnosticError, SourceFile
    from stream.ir.parser import Parser

    try:
        t = Parser(SourceFile("<binding type>", text)).parse_type()
    except DiagnosticError as e:
        raise KernelError(f"cannot read binding type {text!r}: {e.diagnostic.message}") from None
    if not isinstance(t, TensorType) or t.shape is None:
        raise KernelError(f"binding type {text!r} is not a ranked tensor type such as tensor<4x?xf32>")
    return t


@dataclass(eq=False)
class Kernel:
    """A registered kernel. `bindings` are declared binding types (needed only for dispatches
    that do not carry `streamproof.binding_types`, such as IREE's); `raw_bytes` kernels take
    each binding as a flat uint8 array of its bound length instead."""

    name: str
    fn: Callable[..., Any]
    bindings: tuple[TensorType, ...] | None = None
    raw_bytes: bool = False
    _styles: dict[tuple[int, int], str] = field(default_factory=dict, repr=False)

    @property
    def doc(self) -> str:
        return inspect.getdoc(self.fn) or ""

    def style(self, n_args: int, n_out: int) -> str:
        """'out' when the function takes the outputs as arguments, 'return' when it returns them."""
        key = (n_args, n_out)
        style = self._styles.get(key)
        if style is None:
            style = self._styles[key] = _style_of(self.fn, n_args, n_out, self.name)
        return style

    def __call__(self, inputs: Sequence[np.ndarray], scalars: Sequence[Any], outputs: Sequence[np.ndarray]) -> None:
        """Run on arrays; results land in `outputs`."""
        if self.style(len(inputs) + len(scalars), len(outputs)) == "out":
            self.fn(*inputs, *scalars, *outputs)
            return
        result = self.fn(*inputs, *scalars)
        _store_results(self.name, result, outputs)


def _style_of(fn: Callable[..., Any], n_args: int, n_out: int, name: str) -> str:
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):  # builtins without a signature: assume the out form
        return "out"

    def accepts(n: int) -> bool:
        try:
            sig.bind(*range(n))
            return True
        except TypeError:
            return False

    if accepts(n_args + n_out):
        return "out"
    if accepts(n_args):
        return "return"
    raise KernelError(
        f"kernel '{name}' takes {_arity(sig)} but the dispatch passes {n_args} input(s)/scalar(s) and {n_out} output(s): "
        f"it must accept {n_args + n_out} arguments (inputs, scalars, outputs) or {n_args} (and return the outputs)"
    )


def _arity(sig: inspect.Signature) -> str:
    params = [p for p in sig.parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = sum(1 for p in params if p.default is p.empty)
    return f"{required} argument(s)" if required == len(params) else f"{required} to {len(params)} arguments"


def _store_results(name: str, result: Any, outputs: Sequence[np.ndarray]) -> None:
    if len(outputs) == 1 and not isinstance(result, (tuple, list)):
        results: Sequence[Any] = (result,)
    elif isinstance(result, (tuple, list)):
        results = result
    else:
        raise KernelError(f"kernel '{name}' returned {type(result).__name__}; expected {len(outputs)} arrays")
    if len(results) != len(outputs):
        raise KernelError(f"kernel '{name}' returned {len(results)} result(s) for {len(outputs)} output(s)")
    for i, (r, out) in enumerate(zip(results, outputs)):
        if r is out:
            continue
        shape = np.shape(r)
        if shape != out.shape and shape != ():
            raise KernelError(f"kernel '{name}' returned shape {shape} for output {i}, which has shape {out.shape}")
        np.copyto(out, r, casting="unsafe")


class KernelRegistry:
    """Kernels by name. A registry may extend a parent (lookups fall back to it), so that a run
    can add kernels without changing the defaults."""

    def __init__(self, parent: KernelRegistry | None = None) -> None:
        self.parent = parent
        self._kernels: dict[str, Kernel] = {}
        self._changes = 0

    @property
    def generation(self) -> int:
        """Changes so far (with the parent's): lets callers cache lookups safely."""
        return self._changes + (self.parent.generation if self.parent is not None else 0)

    def register(self, name: str, fn: Callable[..., Any], bindings: Iterable[str | TensorType] | str | None = None) -> Kernel:
        """Add or replace the kernel `name`. `bindings`: binding types, or "bytes" (see Kernel)."""
        if not name or not isinstance(name, str):
            raise KernelError(f"a kernel needs a name, got {name!r}")
        raw = bindings == "bytes"
        if isinstance(bindings, str) and not raw:
            raise KernelError(f"kernel '{name}': bindings must be a list of tensor types or \"bytes\", not {bindings!r}")
        declared = tuple(parse_tensor_type(b) for b in bindings) if bindings is not None and not raw else None
        k = Kernel(name.lstrip("@"), fn, declared, raw)
        self._kernels[k.name] = k
        self._changes += 1
        return k

    def get(self, name: str) -> Kernel | None:
        k = self._kernels.get(name)
        if k is None and self.parent is not None:
            return self.parent.get(name)
        return k

    @staticmethod
    def candidates(symbol: SymbolRefAttr | str) -> list[str]:
        """Names tried for a dispatch symbol, most specific first."""
        if isinstance(symbol, str):
            parts = [p.lstrip("@") for p in symbol.split("::")]
            symbol = SymbolRefAttr(parts[0], tuple(parts[1:]))
        if not symbol.nested:
            return [symbol.root]
        return ["::".join((symbol.root, *symbol.nested)), symbol.leaf, symbol.root]

    def lookup(self, symbol: SymbolRefAttr | str) -> Kernel | None:
        for name in self.candidates(symbol):
            k = self.get(name)
            if k is not None:
                return k
        return None

    def names(self) -> list[str]:
        seen = set(self._kernels)
        if self.parent is not None:
            seen |= set(self.parent.names())
        return sorted(seen)

    def __contains__(self, name: str) -> bool:
        return self.get(name) is not None


DEFAULT_REGISTRY = KernelRegistry()
for _name, _fn in BUILTINS.items():
    DEFAULT_REGISTRY.register(_name, _fn)


def kernel(
    name: str | Callable[..., Any] | None = None,
    *,
    bindings: Iterable[str | TensorType] | str | None = None,
    registry: KernelRegistry | None = None,
) -> Any:
    """Register a numpy kernel (the `@streamproof.kernel` decorator).

        @streamproof.kernel
        def my_relu(x, out): np.maximum(x, 0, out=out)

        @streamproof.kernel("diamond_dispatch_0_matmul_64x64x64_f32", bindings=["tensor<64x64xf32>"] * 3)
        def mm_relu(a, b, out): out[...] = np.maximum(a @ b, 0)

    The name defaults to the function's name. A later registration of a name replaces the earlier
    one (so a kernels file can override a built-in kernel).
    """
    target = registry if registry is not None else DEFAULT_REGISTRY

    def wrap(fn: Callable[..., Any], kname: str | None) -> Callable[..., Any]:
        target.register(kname or fn.__name__, fn, bindings)
        return fn

    if callable(name):
        return wrap(name, None)
    return lambda fn: wrap(fn, name)


def load_kernel_file(path: str | Path) -> list[str]:
    """Execute a Python file whose `@streamproof.kernel` decorators register kernels; returns the
    names it added or replaced. Errors are KernelError with the file and the original message."""
    path = Path(path)
    if not path.exists():
        raise KernelError(f"{path}: no such kernels file")
    if not path.is_file():  # /dev/null, a directory, a FIFO: exists, so "no such file" would mislead
        raise KernelError(f"{path}: not a regular file (a kernels file is a Python source file)")
    before = {n: DEFAULT_REGISTRY.get(n) for n in DEFAULT_REGISTRY.names()}
    module_name = f"streamproof_user_kernels_{abs(hash(str(path.resolve())))}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise KernelError(f"{path}: cannot be loaded as a Python module (a kernels file is a .py file)")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except KernelError as e:
        raise KernelError(f"{path}: {e}") from None
    except Exception as e:
        tb = e.__traceback__
        line = ""
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == str(path):
                line = f":{tb.tb_lineno}"
            tb = tb.tb_next
        raise KernelError(f"{path}{line}: {type(e).__name__}: {e}") from None
    return [n for n in DEFAULT_REGISTRY.names() if DEFAULT_REGISTRY.get(n) is not before.get(n)]

