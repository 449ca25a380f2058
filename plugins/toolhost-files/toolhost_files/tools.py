"""The tools: plain functions; toolhost generates their schemas from these signatures.

Every path is relative to the root set in the config (``settings: {toolhost-files: {root:
DIR}}``, relative to the config file; default: the config's directory). A path that leaves the
root (``..``, an absolute path, a symlink pointing out) or names a secret is refused here, in
the tool itself, whatever the permission rules say.
"""

from __future__ import annotations

import fnmatch
import re
from pathlib import Path
from typing import Any

from toolhost.plugins import config_dir, settings, tool
from toolhost.results import ToolResult

PLUGIN = "toolhost-files"
SECRETS = (".env", ".env.*", "*.pem", "*.key", "id_rsa*", "id_ed25519*", ".netrc", "*.kdbx")
SKIP_DIRS = {".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv"}
MAX_FILE_BYTES = 2_000_000


class FileAccessError(ValueError):
    """A path the tools will not touch; the message tells the model why."""


def root() -> Path:
    """The configured root directory, resolved."""
    conf = settings(PLUGIN)
    base = Path(str(conf.get("root", "."))).expanduser()
    if not base.is_absolute():
        base = config_dir() / base
    return base.resolve()


def is_secret(rel: Path) -> bool:
    """True for files that hold credentials (.env, keys) and anything under .git."""
    if ".git" in rel.parts:
        return True
    extra = tuple(str(p) for p in settings(PLUGIN).get("deny_globs", ()))
    return any(fnmatch.fnmatch(rel.name, pat) for pat in SECRETS + extra)


def resolve(path: str) -> tuple[Path, Path]:
    """(absolute path, path relative to the root) for ``path``, or FileAccessError."""
    base = root()
    candidate = Path(path)
    if candidate.is_absolute():
        raise FileAccessError(f"{path!r} is absolute; paths are relative to the files root")
    full = (base / candidate).resolve()  # follows symlinks: a link out of the root is out
    if not full.is_relative_to(base):
        raise FileAccessError(f"{path!r} is outside the files root")
    rel = full.relative_to(base)
    if is_secret(rel):
        raise FileAccessError(f"{path!r} may hold secrets and is not readable")
    return full, rel


def _walk(glob: str) -> list[tuple[Path, Path]]:
    base = root()
    out = []
    for full in sorted(base.rglob("*")):
        rel = full.relative_to(base)
        if SKIP_DIRS.intersection(rel.parts[:-1]) or not full.is_file():
            continue
        if is_secret(rel) or not full.resolve().is_relative_to(base):
            continue
        if fnmatch.fnmatch(rel.as_posix(), glob) or fnmatch.fnmatch(rel.name, glob):
            out.append((full, rel))
    return out


@tool(name="list", annotations={"readOnlyHint": True, "title": "List files"})
def list_files(glob: str = "*", max_results: int = 200) -> dict[str, Any]:
    """List files under the root whose relative path or name matches a glob.

    Args:
        glob: fnmatch pattern such as "*.py" or "docs/*.md".
        max_results: stop after this many files.
    """
    found = _walk(glob)
    return {"files": [rel.as_posix() for _, rel in found[:max_results]],
            "truncated": len(found) > max_results}


@tool(annotations={"readOnlyHint": True, "title": "Search files"})
def search(pattern: str, glob: str = "*", ignore_case: bool = False,
           max_results: int = 50) -> dict[str, Any]:
    """Search the text of files under the root for a regular expression.

    Args:
        pattern: Python regular expression, matched against each line.
        glob: only search files whose path or name matches this fnmatch pattern.
        ignore_case: match regardless of case.
        max_results: stop after this many matching lines.
    """
    try:
        rx = re.compile(pattern, re.IGNORECASE if ignore_case else 0)
    except re.error as exc:
        raise FileAccessError(f"bad regular expression {pattern!r}: {exc}") from None
    matches: list[dict[str, Any]] = []
    for full, rel in _walk(glob):
        if full.stat().st_size > MAX_FILE_BYTES:
            continue
        try:
            lines = full.read_text(encoding="utf-8").splitlines()
        except (UnicodeDecodeError, OSError):
            continue  # binary or unreadable: not searchable text
        for number, line in enumerate(lines, 1):
            if rx.search(line):
                matches.append({"path": rel.as_posix(), "line": number, "text": line[:500]})
                if len(matches) >= max_results:
                    return {"matches": matches, "truncated": True}
    return {"matches": matches, "truncated": False}


@tool(annotations={"readOnlyHint": True, "title": "Read a file"})
def read(path: str, offset: int = 1, limit: int = 400) -> str | ToolResult:
    """Read lines of a text file under the root, numbered like `cat -n`.

    Args:
        path: file path relative to the root.
        offset: first line to return (1-based).
        limit: how many lines to return at most.
    """
    try:
        full, rel = resolve(path)
    except FileAccessError as exc:  # a refusal the model reads, not a crash
        return ToolResult.error(str(exc))
    shown = rel.as_posix()
    if not full.is_file():
        return ToolResult.error(f"{shown!r} is not a file under the root")
    if full.stat().st_size > MAX_FILE_BYTES:
        return ToolResult.error(f"{shown!r} is larger than {MAX_FILE_BYTES} bytes")
    try:
        lines = full.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError:
        return ToolResult.error(f"{shown!r} is not UTF-8 text")
    start = max(offset, 1)
    chosen = lines[start - 1:start - 1 + max(limit, 0)]
    return "\n".join(f"{n:6}\t{text}" for n, text in enumerate(chosen, start))
