"""Op tables: one `OpSpec` per op, registered with the IR's spec registry on import."""

from __future__ import annotations


def load_all() -> None:
    """Import every op table (idempotent)."""
    from stream.dialect import (  # noqa: F401
        arith_hal,
        builtin,
        complex,
        directives,
        flow,
        region_directives,
        scf_cf,
        stream_async,
        stream_cmd,
        stream_func,
        stream_parameter,
        stream_resource,
        stream_tensor,
        util_hal,
    )
