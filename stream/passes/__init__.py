"""The Stream passes, one module each; importing this package registers them all.

Each pass module defines a pure function `Module -> Module` decorated with
`@register_pass("cli-name")`; see `stream.passes.pass_manager`.
"""

from __future__ import annotations

import importlib
import pkgutil

from stream.passes.pass_manager import (
    DEFAULT_PIPELINE,
    PASSES,
    PassInfo,
    PassRecord,
    PassVerificationError,
    PipelineError,
    VerifyHook,
    parse_pipeline,
    register_pass,
    run_pipeline,
)

for _module in pkgutil.iter_modules(__path__):
    if _module.name != "pass_manager":
        importlib.import_module(f"{__name__}.{_module.name}")

__all__ = [
    "DEFAULT_PIPELINE",
    "PASSES",
    "PassInfo",
    "PassRecord",
    "PassVerificationError",
    "PipelineError",
    "parse_pipeline",
    "register_pass",
    "run_pipeline",
    "VerifyHook",
]
