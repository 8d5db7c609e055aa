"""Fault injection for the cmd-level passes: run the per-pass verifier on a deliberately broken
pass output and return what it rejects."""

from __future__ import annotations

import pytest

from stream.ir.core import Module
from stream.passes import PassVerificationError
from verify.hook import make_hook


def rejection(before: Module, after: Module, pass_name: str) -> set[str]:
    """The violation classes the verifier blames on `pass_name` (the test fails if it accepts)."""
    with pytest.raises(PassVerificationError) as caught:
        make_hook()(before, after, pass_name)
    error = caught.value
    assert error.pass_name == pass_name
    assert f"introduced by: {pass_name}" in str(error)
    return {v.cls for v in error.report.violations if getattr(v, "introduced_by", None) == pass_name}


def accepted(before: Module, after: Module, pass_name: str) -> None:
    """The unbroken pass output is proved (so a rejection above is the fault's doing)."""
    make_hook()(before, after, pass_name)
