"""Which plugins are installed: entry points in the ``toolhost`` group, read without importing.

Only package metadata is read here. Importing a plugin's code happens in ``activate`` and only
for the plugins a config enables.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import importlib.metadata as md

__all__ = ["GROUP", "SELF", "InstalledPlugin", "canonical_name", "installed_plugins",
           "installed_version", "pip_install"]

GROUP = "toolhost"
SELF = "toolhost"  # toolhost's own distribution; its entry point registers the built-in kinds
# the example plugins in plugins/ of toolhost's repository: installed from a clone, not the
# package index (their hints say so)
EXAMPLES = frozenset({"toolhost-files", "toolhost-sqlite"})


@dataclass(frozen=True)
class InstalledPlugin:
    """One installed distribution with entry points in the ``toolhost`` group."""

    name: str  # distribution name as published, e.g. "toolhost-files"
    version: str
    entry_points: tuple[md.EntryPoint, ...]
    summary: str = ""

    @property
    def key(self) -> str:
        """The canonical (PEP 503) name used to match ``plugins:`` entries."""
        return canonical_name(self.name)


def canonical_name(name: str) -> str:
    """PEP 503's normalized name, as ``packaging.utils.canonicalize_name`` writes it (which
    imports ``packaging.tags`` and ``packaging.version``: ~10 ms a config without plugins
    would wait for)."""
    value = name.lower().replace("_", "-").replace(".", "-")
    while "--" in value:
        value = value.replace("--", "-")
    return value


def installed_plugins() -> dict[str, InstalledPlugin]:
    """Canonical name -> installed plugin, toolhost itself included, sorted by name."""
    import importlib.metadata as md  # ~20 ms of imports: only when plugins are looked for

    found: dict[str, list[md.EntryPoint]] = {}
    dists: dict[str, md.Distribution] = {}
    for ep in md.entry_points(group=GROUP):
        dist = ep.dist
        if dist is None:  # pragma: no cover - only for hand-made EntryPoint objects
            continue
        key = canonical_name(dist.name)
        # entry_points() already keeps only the first copy of a distribution on sys.path.
        dists.setdefault(key, dist)
        if all(e.name != ep.name for e in found.get(key, [])):
            found.setdefault(key, []).append(ep)
    return {
        key: InstalledPlugin(name=dists[key].name, version=_version(dists[key].version),
                             entry_points=tuple(eps),
                             summary=_cut((dists[key].metadata.get_all("Summary") or [""])[0],
                                          300))
        for key, eps in sorted(found.items())
    }


def _version(version: str | None) -> str:
    """The version a package's metadata declares, as shown and compared: one longer than any
    real version (200,000 digits) is cut, which no requirement is met by (whole, it took
    packaging past Python's digit limit: an internal error) and no line is filled with."""
    return _cut(version or "", 100)


def _cut(text: str, limit: int) -> str:
    # (not excerpt.cut: metadata is no secret, and redaction's imports would come with it)
    return text if len(text) <= limit else f"{text[:limit]}…{len(text) - limit:,} more characters"


def installed_version(name: str) -> str | None:
    """The installed version of distribution ``name``, or None if it is not installed."""
    import importlib.metadata as md

    try:
        return md.version(name)
    except md.PackageNotFoundError:
        return None


def pip_install(requirement: str) -> str:
    """``pip install REQ`` quoted for a shell: a hint is pasted, and a fragment of a team's
    repository wrote the requirement (``===1'|sh|'`` is a valid version specifier)."""
    import shlex

    quoted = shlex.quote(requirement)
    if quoted == requirement and not requirement.replace("-", "").replace("_", "").replace(
            ".", "").isalnum():  # `name==1.0` as the docs write it: 'name==1.0'
        quoted = f"'{requirement}'"
    return f"pip install {quoted}"
