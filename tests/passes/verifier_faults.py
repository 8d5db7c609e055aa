"""Fault injection for the cmd-level passes: run the per-pass verifier on a deliberately broken
pass output and return what it rejects; and the fixture that installs the verifier for a test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from stream.ir.core import Module
from stream.passes import PassVerificationError
from stream.passes.pass_manager import _VERIFY_HOOK
from verify.hook import install, make_hook


@pytest.fixture
def installed_verifier() -> Iterator[None]:
    """The per-pass verifier installed for one test (`run_pipeline(..., verify="each")`), and
    whatever hook was installed before put back afterwards. Use it with
    `pytestmark = pytest.mark.usefixtures("installed_verifier")` after importing it."""
    saved = _VERIFY_HOOK[0]
    install()
    yield
    _VERIFY_HOOK[0] = saved


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
