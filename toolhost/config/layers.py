"""Steps 1-3 of a load: the layers found (the user's file, the project's, the git-ignored
``toolhost.local.*``), read with their extends, merged in order (later wins key by key), then
``${VAR}`` interpolated in the merged values and the secrets collected and bounded."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from toolhost.config.interpolate import collect_declared_secrets, interpolate
from toolhost.config.load_budget import values_budget
from toolhost.config.merge import merge_docs
from toolhost.config.reader import Reader
from toolhost.config.secret_budget import secret_budget_problem, too_long_problems
from toolhost.config.tree import Doc
from toolhost.errors import ConfigError, Problem
from toolhost.lockfile import LockGuard
from toolhost.redaction import MAX_SECRET, own_secrets, remember

__all__ = ["load_merged", "user_config_path"]


def load_merged(path: str | os.PathLike[str], *, environ: Mapping[str, str],
                layers: bool = True, problems: list[Problem] | None = None,
                guard: LockGuard | None = None, fragment: bool = False
                ) -> tuple[Doc, set[str], list[str]]:
    """Steps 1-3: the merged, interpolated data with its marks, the secrets, the files read.

    Raises ``ConfigError`` for unreadable files, syntax, versions and extends; ``${...}``
    problems go to ``problems`` when given (else they raise too). ``guard`` sees every file
    pulled in by ``extends`` before it is read.
    """
    main = str(path)
    reader = Reader(environ, guard)
    files: list[tuple[str, str, bool]] = []  # (path, layer, is_main)
    if layers:
        user = user_config_path(environ)
        if user is not None:
            files.append((str(user), "user", False))
    files.append((main, "project", not fragment))
    if layers:
        local = _sibling(Path(main), "toolhost.local")
        if local is not None:
            files.append((str(local), "local", False))
    with values_budget():  # one budget for every file of the load, not one per file
        for file, layer, is_main in files:
            reader.read(file, layer, is_main=is_main, chain=())
    if reader.version_problems:
        raise ConfigError(reader.version_problems)
    if reader.problems:
        raise ConfigError(reader.problems)
    merged = merge_docs(reader.docs)
    found: list[Problem] = []
    secrets = interpolate(merged, environ, found)
    secrets |= collect_declared_secrets(merged.data, found, merged)
    too_long = [secret for secret in secrets if len(secret) > MAX_SECRET]
    if too_long:  # refused before anything is built or shown: see ``too_long_problems``
        remember(secret for secret in secrets if len(secret) <= MAX_SECRET)
        raise ConfigError(too_long_problems(merged, too_long, MAX_SECRET))
    too_many = secret_budget_problem(merged, secrets)
    if too_many is not None:  # before the redactor sets them all up
        raise ConfigError([too_many])
    secrets |= own_secrets()  # serve's own credentials, read before the config
    remember(secrets)  # from now on nothing this process writes shows them
    if found and problems is None:
        raise ConfigError(found)
    if problems is not None:
        problems.extend(found)
    return merged, secrets, [main, *(f for f in reader.files if f != main)]


def user_config_path(environ: Mapping[str, str]) -> Path | None:
    """``$XDG_CONFIG_HOME/toolhost/config.{yaml,toml}`` (default ``~/.config``), if present."""
    base = environ.get("XDG_CONFIG_HOME") or os.path.join(
        environ.get("HOME") or os.path.expanduser("~"), ".config")
    return _sibling(Path(base) / "toolhost" / "config.yaml", "config")


def _sibling(beside: Path, stem: str) -> Path | None:
    for suffix in (".yaml", ".yml", ".toml"):
        candidate = beside.parent / (stem + suffix)
        if candidate.is_file():
            return candidate
    return None
