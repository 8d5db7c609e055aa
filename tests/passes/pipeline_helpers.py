"""Compiling a generated program through the default pipeline, every pass proved (the random
pipeline property tests share it)."""

from __future__ import annotations

import stream.ir as ir
from stream.passes import DEFAULT_PIPELINE, PassRecord, PassVerificationError, parse_pipeline, run_pipeline
from verify.hook import make_hook

PIPELINE = parse_pipeline(",".join(DEFAULT_PIPELINE))


def compile_proved(text: str, name: str) -> tuple[ir.Module, ir.Module, list[PassRecord]]:
    """(the parsed input, the compiled module, the pass records) of `text` through the default
    pipeline with the verification hook; an AssertionError naming the pass that rejected it,
    with the program, otherwise."""
    module = ir.parse_module(text, name)
    try:
        compiled, records = run_pipeline(module, PIPELINE, hook=make_hook())
    except PassVerificationError as e:
        raise AssertionError(f"{e.pass_name} rejected {name}:\n{e}\n{text}") from None
    return module, compiled, records
