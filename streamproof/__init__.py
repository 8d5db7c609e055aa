"""streamproof: a verified compiler, verifier and executor for asynchronous multi-device programs
in the style of IREE's Stream dialect.

The Python API mirrors the command line:

    import streamproof
    module = streamproof.parse(text)          # MLIR text -> Module
    text = streamproof.print_ir(module)       # Module -> MLIR text (pretty; generic=True for generic)
"""

from __future__ import annotations

from runtime.kernels import kernel
from stream.ir import Module, parse_module, print_module

__all__ = ["Module", "kernel", "parse", "print_ir"]


def parse(text: str, filename: str = "<string>") -> Module:
    """Parse MLIR text (pretty or generic form) into a module."""
    return parse_module(text, filename)


def print_ir(module: Module, generic: bool = False) -> str:
    """Print a module as MLIR text."""
    return print_module(module, generic)
