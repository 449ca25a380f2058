"""A toolchain the current directory chooses.

rustup's proxies (``cargo``, ``rustc``, ``rustfmt``, ``rustdoc``, ``cargo-clippy`` ...) run
the toolchain a ``rust-toolchain.toml`` or ``rust-toolchain`` file of the directory or a
parent names, and its ``path`` key (or a path in the old one-line file) names any folder:
its ``bin/cargo`` runs in place of cargo, even for ``cargo --version`` (checked with rustup
itself). ``cargo +/dir`` and ``RUSTUP_TOOLCHAIN=/dir`` do the same from the line. Under a
deny or ask Bash rule such a run is not provable: a toolchain file naming a path, one that
cannot be read, a ``+`` or ``RUSTUP_TOOLCHAIN`` naming a path, or a ``cd`` on the line
before it (the directory is then not known). A toolchain file naming a channel (``1.80``,
``nightly``) is rustup's own download, as before.
"""

from __future__ import annotations

import os

from toolhost.permissions.later.judge import Judge
from toolhost.permissions.later.where import MOVES

__all__ = ["PROXIES", "toolchain_reason"]

PROXIES = frozenset({"cargo", "rustc", "rustdoc", "rustfmt", "cargo-fmt", "cargo-clippy",
                     "clippy-driver", "rust-gdb", "rust-gdbgui", "rust-lldb", "rust-analyzer",
                     "cargo-miri", "rls", "rustup"})
_FILES = ("rust-toolchain.toml", "rust-toolchain")
_LIMIT = 4096


def toolchain_reason(forms: list[tuple[str, ...]], text: str, cwd: str,
                     judge: Judge) -> str | None:
    """Why a rustup proxy among ``forms`` (of the line ``text``) may run a toolchain the
    directory or the line names by a path (None: none may, or no deny or ask Bash rule)."""
    runs = [f for f in forms if f and f[0].rsplit("/", 1)[-1] in PROXIES and (
        f[0].rsplit("/", 1)[-1] != "rustup" or not {"show", "run"}.isdisjoint(f[1:]))]
    if not runs or not judge([None]):
        return None
    if any(w[:1] == "+" and "/" in w for f in runs for w in f[1:]) or (
            "RUSTUP_TOOLCHAIN=" in text):
        return "it names a rust toolchain by a path, whose programs run in place of cargo's"
    if any(f[0] in MOVES for f in forms if f):
        return "after a cd, the rust-toolchain file rustup reads there is not known"
    found = _toolchain_file(cwd)
    if found is None:
        return None
    try:
        with open(found, "rb") as handle:
            data = handle.read(_LIMIT + 1)
    except OSError:
        data = b"/"
    if len(data) > _LIMIT or b"path" in data or b"/" in data or b"\\" in data:
        return (f"{found} (an earlier call may have written it) may name a toolchain by a "
                "path, whose programs run in place of cargo's")
    return None


def _toolchain_file(cwd: str) -> str | None:
    """The rust-toolchain file rustup reads for ``cwd`` (its own or a parent's)."""
    here = os.path.abspath(cwd)
    while True:
        for name in _FILES:
            path = os.path.join(here, name)
            if os.path.lexists(path):
                return path
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent
