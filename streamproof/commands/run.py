"""streamproof run: not available in this build yet."""

from __future__ import annotations

import argparse

HELP = __doc__ or ""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("args", nargs="*")


def main(args: argparse.Namespace) -> int:
    from streamproof.cli import UsageError

    raise UsageError("streamproof run: this command is not available in this build yet")
