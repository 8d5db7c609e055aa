"""The `streamproof` command line.

    streamproof compile IN.mlir [-o OUT] [--pass-pipeline=...] [--generic] [--split-input-file] ...
    streamproof verify  IN.mlir [--refines BEFORE.mlir] [--report=text|json] ...
    streamproof run     IN.mlir [--function F] [--input 4x8xf32=1.0] [--driver task] [--check] ...
    streamproof prove   [PATH]

Exit codes: 0 success or proved; 1 a property failed (counterexample printed); 2 bad input or
usage (a `file:line:col: error:` diagnostic); 3 solver unknown, a resource limit, or an internal
error. Bad input never shows a Python traceback; an internal error shows a one-line summary
(set STREAMPROOF_DEBUG=1 for the traceback).
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from collections.abc import Callable, Sequence

from stream.ir.diagnostics import DiagnosticError
from streamproof.errors import EXIT_BAD_INPUT, EXIT_OK, EXIT_UNKNOWN, EXIT_VIOLATION, UsageError

__all__ = ["main", "build_parser", "EXIT_OK", "EXIT_VIOLATION", "EXIT_BAD_INPUT", "EXIT_UNKNOWN", "UsageError"]


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{self.prog}: error: {message}")


def _subcommands() -> dict[str, tuple[str, Callable[[argparse.ArgumentParser], None], Callable[[argparse.Namespace], int]]]:
    from streamproof.commands import compile as compile_cmd
    from streamproof.commands import prove as prove_cmd
    from streamproof.commands import run as run_cmd
    from streamproof.commands import verify as verify_cmd

    return {
        "compile": (compile_cmd.HELP, compile_cmd.add_arguments, compile_cmd.main),
        "verify": (verify_cmd.HELP, verify_cmd.add_arguments, verify_cmd.main),
        "run": (run_cmd.HELP, run_cmd.add_arguments, run_cmd.main),
        "prove": (prove_cmd.HELP, prove_cmd.add_arguments, prove_cmd.main),
    }


def _version() -> str:
    """`streamproof X (z3 Y, numpy Z)`: what a bug report needs, from the installed metadata."""
    from importlib.metadata import PackageNotFoundError, version

    def of(dist: str) -> str:
        try:
            return version(dist)
        except PackageNotFoundError:
            return "not installed"

    return f"streamproof {of('streamproof')} (z3-solver {of('z3-solver')}, numpy {of('numpy')})"


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="streamproof",
        description="Verified compiler, verifier and executor for asynchronous multi-device programs "
        "in the style of IREE's Stream dialect.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Run 'streamproof COMMAND -h' for a command's options and examples.\n"
        "Exit codes: 0 ok/proved, 1 property failed, 2 bad input, 3 unknown/limit/internal error.",
    )
    parser.add_argument("--version", action="version", version=_version(), help="print the versions of streamproof, z3 and numpy")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name, (help_text, add_arguments, run) in _subcommands().items():
        doc = help_text.strip().splitlines()
        p = sub.add_parser(
            name,
            help=doc[0],
            description="\n".join(doc),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        add_arguments(p)
        p.set_defaults(_run=run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from streamproof.io import OutputError

    command = "streamproof"
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        if getattr(args, "_run", None) is None:
            parser.print_help(sys.stderr)
            return EXIT_BAD_INPUT
        command = f"streamproof {args.command}"
        return int(args._run(args))
    except DiagnosticError as e:
        print(str(e), file=sys.stderr)
        return EXIT_BAD_INPUT
    except UsageError as e:
        print(str(e), file=sys.stderr)
        return EXIT_BAD_INPUT
    except OutputError as e:  # an output file that cannot (or must not) be written
        print(f"{command}: error: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("streamproof: interrupted", file=sys.stderr)
        return EXIT_UNKNOWN
    except BrokenPipeError:
        return EXIT_OK
    except Exception as e:  # an internal error: short message, never a traceback by default
        from stream.passes.pass_manager import PassVerificationError

        if isinstance(e, PassVerificationError):  # a pass output was not proved: the counterexample
            print(str(e), file=sys.stderr)
            return int(getattr(e.report, "exit_code", 0) or EXIT_VIOLATION)
        if os.environ.get("STREAMPROOF_DEBUG"):
            traceback.print_exc()
        where = traceback.extract_tb(e.__traceback__)[-1] if e.__traceback__ else None
        loc = f" (at {os.path.basename(where.filename)}:{where.lineno})" if where else ""
        print(f"streamproof: internal error: {type(e).__name__}: {e}{loc}", file=sys.stderr)
        print("streamproof: this is a bug in streamproof; set STREAMPROOF_DEBUG=1 for the traceback", file=sys.stderr)
        return EXIT_UNKNOWN


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
