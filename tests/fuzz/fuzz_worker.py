"""The fuzz test's child process: runs `streamproof` command lines in-process, one per request.

Protocol (one JSON object per line): the parent writes `{"argv": [...], "cwd": DIR}`, the worker
answers `{"rc": N, "stdout": ..., "stderr": ..., "seconds": S}` once the command is done. A
command runs as `streamproof.cli.main(argv)` runs it from a shell (stdin empty, stdout/stderr
captured, `SystemExit` taken as the exit code), with `STREAMPROOF_DEBUG=1` so that an internal
error comes with its traceback. The parent owns the clock: a command that does not answer in
time is a hang, and the parent kills this process and starts another.

The address space is capped (`FUZZ_MEMORY_MB`, default 3072) so that a command that tries to
allocate a huge input fails inside this process instead of exhausting the machine.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import resource
import sys
import time


def _capture() -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="replace", write_through=True)


def _text(stream: io.TextIOWrapper, limit: int = 20000) -> str:
    stream.flush()
    data = stream.buffer.getvalue()  # type: ignore[attr-defined]
    return data[-limit:].decode("utf-8", errors="replace")


def run_one(argv: list[str], cwd: str) -> dict[str, object]:
    from streamproof.cli import main

    out, err = _capture(), _capture()
    start = time.perf_counter()
    old_stdin, old_cwd = sys.stdin, os.getcwd()
    sys.stdin = io.StringIO("")
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc: object = main(argv)
            except SystemExit as e:
                rc = e.code if isinstance(e.code, int) else (0 if e.code is None else 2)
            except BaseException as e:  # main() must catch everything: anything else is a finding
                import traceback

                traceback.print_exc()
                rc = f"escaped {type(e).__name__}"
    finally:
        sys.stdin = old_stdin
        os.chdir(old_cwd)
    return {"rc": rc, "stdout": _text(out), "stderr": _text(err), "seconds": time.perf_counter() - start}


def main() -> None:
    limit = int(os.environ.get("FUZZ_MEMORY_MB", "3072")) << 20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    os.environ["STREAMPROOF_DEBUG"] = "1"
    import streamproof.cli  # noqa: F401  (import once, before the first request's clock starts)

    # Answers go to a private copy of stdout; the real fd 1 (where a stray write from a thread or
    # from C code would land) is pointed at /dev/null so that nothing can corrupt the protocol.
    protocol_out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    sys.stdout = open(os.devnull, "w")
    for line in sys.stdin:
        request = json.loads(line)
        answer = run_one(request["argv"], request["cwd"])
        protocol_out.write(json.dumps(answer) + "\n")
        protocol_out.flush()


if __name__ == "__main__":
    main()
