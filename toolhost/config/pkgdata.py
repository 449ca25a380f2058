"""``extends: [pkg:NAME/PATH]``: a config fragment shipped inside an installed package.

``NAME`` is a distribution (``toolhost-files``) or a top-level module (``toolhost_files``);
``PATH`` is relative to that package's directory::

    extends:
      - pkg:toolhost-files/presets/readonly.yaml   # toolhost_files/presets/readonly.yaml

The file is found without importing the package: a fragment from a plugin the config does not
enable must not run that plugin's code.
"""

from __future__ import annotations

import importlib.metadata as md
import importlib.util
import os
import re
from pathlib import Path, PurePosixPath
from typing import Any

from packaging.utils import canonicalize_name

from toolhost.config.model import UNKNOWN, Origin
from toolhost.errors import ConfigError, Problem
from toolhost.excerpt import cut
from toolhost.typos import close_matches

__all__ = ["PREFIX", "is_pkg_ref", "resolve_pkg", "resolve_pkg_entry"]

PREFIX = "pkg:"
# a distribution or top-level module name: nothing a shell would read in `pip install NAME`
_NAME = re.compile(r"[A-Za-z0-9_](?:[A-Za-z0-9._-]*[A-Za-z0-9_])?")


def is_pkg_ref(ref: object) -> bool:
    return isinstance(ref, str) and ref.startswith(PREFIX)


def resolve_pkg_entry(entry: Any, *, base_dir: Path, origin: Origin) -> Path:
    """``extends`` resolver for ``pkg:NAME/PATH`` (``base_dir`` is not used)."""
    return resolve_pkg(str(entry), where=origin)


def resolve_pkg(ref: str, *, where: Origin = UNKNOWN) -> Path:
    """The file ``pkg:NAME/PATH`` names. ConfigError naming ``where`` if there is none."""
    body = ref[len(PREFIX):] if ref.startswith(PREFIX) else ref
    name, _, rel = body.partition("/")
    parts = PurePosixPath(rel).parts
    if not _NAME.fullmatch(name) or not rel or rel.startswith("/") or ".." in parts:
        raise _error(where, f"{ref!r} is not of the form 'pkg:NAME/PATH'",
                     hint="e.g. pkg:toolhost-files/presets/readonly.yaml")
    dirs = _package_dirs(name)
    if not dirs:
        near = _near_package(name)
        raise _error(where, f"no installed package or module named {name!r} (from {ref!r})",
                     hint=f"did you mean pkg:{near}/{cut(rel, 120)}? If not: pip install {name}"
                     if near else f"pip install {name}")  # (a checked name)
    for base in dirs:
        candidate = base.joinpath(*parts)
        try:
            found = candidate.is_file()
        except OSError as exc:  # a name too long for the file system, a symlink loop
            raise _error(where, f"cannot read {cut(ref, 120)!r}: {exc.strerror or exc}") from None
        if found:
            return candidate
    shown = ", ".join(str(d) for d in dirs)
    files = _config_files(dirs)
    close = close_matches(rel, files, n=1, cutoff=0.7)
    hint = f"did you mean pkg:{name}/{close[0]}?" if close else (
        f"its config files: {', '.join(files[:5])}{', ...' if len(files) > 5 else ''}"
        if files else "")
    raise _error(where, f"package {name!r} has no file {cut(rel, 120)!r} (looked in {shown})",
                 hint=hint)


def _config_files(dirs: list[Path]) -> list[str]:
    """The YAML and TOML files under a package's directories, relative to them, for a hint:
    at most 2,000 entries are looked at (a package may be huge)."""
    found: list[str] = []
    seen = 0
    for base in dirs:
        for folder, subdirs, names in os.walk(base):
            subdirs[:] = sorted(d for d in subdirs if d != "__pycache__")
            seen += len(names) + len(subdirs)
            found += sorted(Path(folder, n).relative_to(base).as_posix() for n in names
                            if n.endswith((".yaml", ".yml", ".toml")))
            if seen > 2000:
                return found
    return found


def _near_package(name: str) -> str | None:
    """An installed distribution with a close name (``toolhost-file`` for toolhost-files)."""
    names = {canonicalize_name(d.metadata["Name"] or "") for d in md.distributions()}
    found = close_matches(canonicalize_name(name), sorted(names - {""}), n=1, cutoff=0.8)
    return found[0] if found else None


def _package_dirs(name: str) -> list[Path]:
    """Directories of the top-level packages ``name`` stands for, found without importing."""
    modules = [name] if name.isidentifier() else []
    try:
        dist = md.distribution(name)
    except md.PackageNotFoundError:
        dist = None
    if dist is not None:
        # top-level names only: find_spec("a.b") imports a, which runs its code (a
        # top_level.txt can say anything); "a.b" is looked for as a
        tops = (m.partition(".")[0] for m in _top_level(dist))
        modules += [m for m in dict.fromkeys(tops) if m.isidentifier() and m not in modules]
    dirs: list[Path] = []
    for module in modules:
        dirs += _dirs_of(module)
    return dirs


def _top_level(dist: md.Distribution) -> list[str]:
    text = dist.read_text("top_level.txt")
    if text:
        return [line.strip() for line in text.splitlines() if line.strip()]
    # No top_level.txt (non-setuptools builds): packages_distributions maps it back.
    key = canonicalize_name(dist.name)
    found = sorted(mod for mod, dists in md.packages_distributions().items()
                   if any(canonicalize_name(d) == key for d in dists) and mod.isidentifier())
    return found or [key.replace("-", "_")]  # the usual naming: toolhost-files -> toolhost_files


def _dirs_of(module: str) -> list[Path]:
    try:
        spec = importlib.util.find_spec(module)  # top-level: finds, does not import
    except (ImportError, ValueError):
        return []
    if spec is None:
        return []
    # Packages only: a plain module's directory is all of site-packages.
    return [Path(p) for p in spec.submodule_search_locations or ()]


def _error(where: Origin, message: str, hint: str = "") -> ConfigError:
    return ConfigError([Problem(message, file=where.file, line=where.line,
                                column=where.column, key_path=where.key_path, hint=hint)])
