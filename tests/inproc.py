"""``toolhost ARGS`` run in this process: its command line as a person types it, without the
1-2 s a fresh process costs. For commands whose behaviour does not live in the process itself
(signals, exit codes of a dying process, memory caps: those tests start a real one)."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path


@contextlib.contextmanager
def _fresh_root_logger() -> Iterator[None]:
    """The root logger as a fresh process has it (no handlers, WARNING): ``main``'s
    ``logging.basicConfig`` then installs its stderr handler here as it does there (pytest's
    capture handlers would make it a no-op); theirs come back after."""
    import logging

    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    root.handlers = []
    root.setLevel(logging.WARNING)
    try:
        yield
    finally:
        for added in root.handlers:
            added.close()
        root.handlers = handlers
        root.setLevel(level)


@contextlib.contextmanager
def _environment(env: Mapping[str, str | None]) -> Iterator[None]:
    saved = {key: os.environ.get(key) for key in env}
    try:
        for key, value in env.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        yield
    finally:
        for key, old in saved.items():
            if old is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = old


def run_cli(args: Sequence[str], *, cwd: Path | None = None,
            env: Mapping[str, str | None] | None = None,
            input: str = "") -> subprocess.CompletedProcess[str]:
    """``toolhost ARGS`` in ``cwd`` with ``env`` set (a None value unsets the variable), both
    restored after: the exit code (argparse's exits too) and what it wrote to stdout/stderr.
    ``input`` is what it reads on stdin."""
    from toolhost.cli import main

    here = os.getcwd()
    out, err = io.StringIO(), io.StringIO()
    stdin = sys.stdin
    with _environment(env or {}), _fresh_root_logger():
        try:
            if cwd is not None:
                os.chdir(cwd)
            sys.stdin = io.StringIO(input)
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                try:
                    code = main(list(args))
                except SystemExit as exc:  # --version, usage errors
                    code = exc.code if isinstance(exc.code, int) else 2
        finally:
            sys.stdin = stdin
            os.chdir(here)
    return subprocess.CompletedProcess(["toolhost", *args], code, out.getvalue(),
                                       err.getvalue())
