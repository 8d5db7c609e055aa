"""streamproof: a verified compiler, verifier and executor for asynchronous multi-device programs
in the style of IREE's Stream dialect.

The Python API mirrors the command line (`streamproof.api` has the details):

    import streamproof
    module = streamproof.parse(text)          # MLIR text -> Module (pretty or generic form)
    text = streamproof.print_ir(module)       # Module -> MLIR text (generic=True for generic form)
    result = streamproof.compile(text)        # every pass proved; CompileError with the counterexample
    report = streamproof.verify(result.module, refines=text)
    run = streamproof.run(text, inputs=[...]) # compiled, then run on the numpy runtime

    @streamproof.kernel("my_kernel")          # a numpy kernel for dispatches of @my_kernel
    def my_kernel(x, out): ...

Programs can also be built in Python with `stream.builder.Program`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from runtime.kernels import kernel
from stream.ir import Module, parse_module, print_module

if TYPE_CHECKING:
    from streamproof.api import CompileError, CompileResult, PassResult, compile, run, verify

__all__ = ["CompileError", "CompileResult", "Module", "PassResult", "compile", "kernel", "parse", "print_ir", "run", "verify"]

# Loaded on first use, so that `streamproof --help` does not pay for importing Z3.
_API = frozenset({"compile", "verify", "run", "CompileResult", "CompileError", "PassResult"})


def __getattr__(name: str) -> Any:
    if name in _API:
        from streamproof import api

        return getattr(api, name)
    raise AttributeError(f"module 'streamproof' has no attribute {name!r}")


def parse(text: str, filename: str = "<string>") -> Module:
    """Parse MLIR text (pretty or generic form) into a module."""
    return parse_module(text, filename)


def print_ir(module: Module, generic: bool = False) -> str:
    """Print a module as MLIR text."""
    return print_module(module, generic)
