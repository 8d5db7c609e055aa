"""Shared pytest configuration: the golden-file runner and common fixtures.

Golden tests are `.mlir` files under `tests/golden/` with lit-style `// RUN:` lines, e.g.

    // RUN: streamproof compile %s --pass-pipeline=schedule-execution --split-input-file | filecheck %s

`%s` is the file itself; `streamproof`, `filecheck` and `not` run from this Python environment.
Each RUN line is one test item; a non-zero exit of the pipeline fails it with the output shown.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# Real IREE 3.13 output, copied from the project's shared material so a clean clone has it.
IREE_EXAMPLES = ROOT / "tests" / "data" / "iree"


def _tool(name: str) -> str:
    py = shlex.quote(sys.executable)
    return {
        "streamproof": f"{py} -m streamproof",
        "filecheck": f"{py} -m filecheck",
        "not": f"{py} {shlex.quote(str(ROOT / 'tests' / 'tools' / 'not.py'))}",
    }[name]


def expand_run_line(line: str, path: Path) -> str:
    words = []
    for word in line.split(" "):
        if word in ("streamproof", "filecheck", "not"):
            words.append(_tool(word))
        else:
            words.append(word.replace("%s", shlex.quote(str(path))))
    return " ".join(words)


class GoldenFile(pytest.File):
    def collect(self):  # type: ignore[no-untyped-def]
        runs = []
        for line in self.path.read_text().splitlines():
            stripped = line.strip()
            if stripped.startswith("// RUN:"):
                cmd = stripped[len("// RUN:") :].strip()
                if runs and runs[-1].endswith("\\"):
                    runs[-1] = runs[-1][:-1] + " " + cmd
                else:
                    runs.append(cmd)
        for i, cmd in enumerate(runs):
            yield GoldenRun.from_parent(self, name=f"RUN{i}", command=cmd)


class GoldenRun(pytest.Item):
    def __init__(self, *, command: str, **kwargs):  # type: ignore[no-untyped-def]
        super().__init__(**kwargs)
        self.command = command

    def runtest(self) -> None:
        shell = expand_run_line(self.command, self.path)
        env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        proc = subprocess.run(["bash", "-o", "pipefail", "-c", shell], capture_output=True, text=True, cwd=ROOT, env=env, timeout=600)
        if proc.returncode != 0:
            raise GoldenFailure(self.command, proc.returncode, proc.stdout, proc.stderr)

    def repr_failure(self, excinfo):  # type: ignore[no-untyped-def]
        if isinstance(excinfo.value, GoldenFailure):
            e = excinfo.value
            return f"RUN: {e.command}\nexit code {e.code}\n--- stdout ---\n{e.stdout[-4000:]}\n--- stderr ---\n{e.stderr[-4000:]}"
        return super().repr_failure(excinfo)

    def reportinfo(self):  # type: ignore[no-untyped-def]
        return self.path, 0, f"{self.path.name}::{self.name}"


class GoldenFailure(Exception):
    def __init__(self, command: str, code: int, stdout: str, stderr: str) -> None:
        super().__init__(command)
        self.command, self.code, self.stdout, self.stderr = command, code, stdout, stderr


def pytest_collect_file(parent, file_path):  # type: ignore[no-untyped-def]
    if file_path.suffix == ".mlir" and "golden" in file_path.parts and "data" not in file_path.parts:
        return GoldenFile.from_parent(parent, path=file_path)
    return None


@pytest.fixture(scope="session")
def iree_examples() -> Path:
    return IREE_EXAMPLES
