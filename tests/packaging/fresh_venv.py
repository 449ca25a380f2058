"""A venv to run programs in with a clean environment (the fixture lives in conftest.py)."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest


@dataclass(frozen=True)
class Venv:
    path: Path
    env: dict[str, str]

    @property
    def bin(self) -> Path:
        return self.path / ("Scripts" if os.name == "nt" else "bin")

    @property
    def python(self) -> Path:
        return self.bin / ("python.exe" if os.name == "nt" else "python")

    def run(self, *args: str | Path, cwd: Path, check: bool = True
            ) -> subprocess.CompletedProcess[str]:
        """Run a program of this venv (``toolhost``, ``python``) with a clean environment."""
        program, *rest = (str(a) for a in args)
        proc = subprocess.run([str(self.bin / program), *rest], cwd=cwd, env=self.env,
                              capture_output=True, text=True, timeout=120)
        if check and proc.returncode != 0:
            pytest.fail(f"{args} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}")
        return proc
