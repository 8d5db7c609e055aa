"""The streamproof IR: types, attributes, ops, text parsing and printing."""

from __future__ import annotations

from stream.ir.attributes import *  # noqa: F403
from stream.ir.core import UNKNOWN_LOC, Alias, Block, Location, Module, Op, Region, Value
from stream.ir.diagnostics import Diagnostic, DiagnosticError, SourceFile
from stream.ir.parser import parse_module, split_input_file
from stream.ir.printer import print_module, print_op
from stream.ir.spec_registry import add_loader
from stream.ir.types import *  # noqa: F403


def _load_dialects() -> None:
    from stream.dialect import load_all

    load_all()


add_loader(_load_dialects)

__all__ = [
    "Alias",
    "Block",
    "Diagnostic",
    "DiagnosticError",
    "Location",
    "Module",
    "Op",
    "Region",
    "SourceFile",
    "UNKNOWN_LOC",
    "Value",
    "parse_module",
    "print_module",
    "print_op",
    "split_input_file",
]
