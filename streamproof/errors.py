"""The exit codes every command returns, and the error for bad command-line usage.

They live apart from `streamproof.cli` (which imports the commands) so that a command imports
them without importing its own importer.
"""

from __future__ import annotations

__all__ = ["EXIT_OK", "EXIT_VIOLATION", "EXIT_BAD_INPUT", "EXIT_UNKNOWN", "UsageError"]

# 0 ok/proved, 1 a property failed (counterexample printed), 2 bad input or usage,
# 3 solver unknown, a resource limit or an internal error.
EXIT_OK, EXIT_VIOLATION, EXIT_BAD_INPUT, EXIT_UNKNOWN = 0, 1, 2, 3


class UsageError(Exception):
    """Bad command-line usage (exit 2)."""
