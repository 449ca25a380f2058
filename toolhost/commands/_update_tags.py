"""Which tag ``toolhost update`` moves a pin to: the newest version tag that names a commit.

Tags are compared as versions (v1.10.0 is newer than v1.9.3); tags that are not versions are
ignored, and so are pre-releases unless asked for (as pip does). A tag of a tree or a blob
(``git tag v9 'HEAD^{tree}'``) cannot be pinned: it is skipped, and said.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from packaging.version import Version

__all__ = ["newer", "newest_tag", "tag_version", "usable_tag", "version_tags"]


def newest_tag(url: str, *, pre: bool = False) -> str | None:
    """The highest version-like tag of ``url`` (``v1.2.0`` and ``1.2.0`` both count).

    Pre-releases (``v2.0.0rc1``, ``v2.0.0.dev3``) count only with ``pre``, as in pip.
    """
    tags, _ = version_tags(url, pre=pre)
    return tags[0] if tags else None


def version_tags(url: str, *, pre: bool = False) -> tuple[list[str], str | None]:
    """``url``'s version tags, newest first (one ``git ls-remote``), and the newest
    pre-release left out (without ``pre``)."""
    from toolhost.config.gitrepos import list_tags

    found: list[tuple[Version, str]] = []
    later: tuple[Version, str] | None = None
    for tag in list_tags(url):
        version = tag_version(tag)
        if version is None:
            continue
        if version.is_prerelease and not pre:
            if later is None or version > later[0]:
                later = (version, tag)
            continue
        found.append((version, tag))
    found.sort(key=lambda item: item[0], reverse=True)
    return [tag for _, tag in found], later[1] if later else None


def newer(tag: str, than: str) -> bool:
    a, b = tag_version(tag), tag_version(than)
    return a is not None and b is not None and a > b


MAX_SKIPPED = 5  # tags of a tree or a blob tried before the update of one pin gives up


def usable_tag(url: str, tags: list[str], current: str) -> tuple[str | None, list[str]]:
    """The newest of ``tags`` that names a commit (``current``, the pin's rev, without
    fetching), and the newer ones skipped because they name a tree or a blob. A
    ``ConfigError`` when the repository cannot be fetched at a tag for another reason."""
    from toolhost.config.gitrepos import fetch_repo
    from toolhost.errors import ConfigError

    skipped: list[str] = []
    for tag in tags:
        if tag == current:
            return tag, skipped
        try:
            fetch_repo(url, tag)  # what the load does next: cached for it
        except ConfigError as exc:
            if "names no commit" not in exc.problems[0].message \
                    or len(skipped) >= MAX_SKIPPED:
                raise
            skipped.append(tag)
            continue
        return tag, skipped
    return None, skipped


def tag_version(tag: str) -> Version | None:
    """The version a tag names (``v1.2.0`` -> 1.2.0), or None for other tags."""
    from packaging.version import InvalidVersion, Version

    try:
        return Version(tag[1:] if tag[:1] in "vV" else tag)
    except (InvalidVersion, ValueError):  # ValueError: a part past Python's digit limit
        return None
