"""A team repository naming another by a relative path: ``repo: ../other-config`` in one of
its fragments is relative to the repository's own URL, as git resolves a submodule's
relative URL (``https://git.example/team/config`` + ``../other`` ->
``https://git.example/team/other``). Resolved against the directory of the checkout in the
cache, it named a directory of the cache, which is never a repository."""

from __future__ import annotations

import json
import re
from pathlib import Path

from toolhost.config.model import UNKNOWN, Origin

__all__ = ["checkout_url", "relative_to_url"]

_SCP = re.compile(r"^([\w.-]+@[\w.-]+:)(.*)$", re.DOTALL)  # user@host:path


def checkout_url(directory: Path) -> str | None:
    """The URL (without its userinfo) of the cached checkout ``directory`` lies in, as its
    record says; None for a directory outside the repository cache."""
    from toolhost.config.repotree import META, checkout_root

    root = checkout_root(directory / META)
    if root is None:
        return None
    try:
        url = json.loads(root.joinpath(META).read_text(encoding="utf-8")).get("url")
    except (OSError, ValueError, RecursionError, AttributeError):
        return None
    return url if isinstance(url, str) and url else None


def relative_to_url(base: str, relative: str, where: Origin = UNKNOWN) -> str:
    """``relative`` (``../other``, ``./sub``, ``other``) resolved against the repository URL
    ``base``, as a directory. A ``ConfigError`` at ``where`` when it climbs above the URL's
    root (its host, or the file system's root)."""
    from toolhost.config.gitclone import error
    from toolhost.excerpt import cut

    scp = _SCP.match(base)
    if scp:
        head, path = scp.group(1), scp.group(2)
    else:
        scheme, _, rest = base.partition("://")
        host, slash, path = rest.partition("/")
        head, path = f"{scheme}://{host}", slash + path
    absolute = path.startswith("/")
    parts = [p for p in path.split("/") if p not in ("", ".")]
    for part in relative.split("/"):
        if part == "..":
            if not parts:
                raise error(where, f"`repo`: {cut(relative, 100)!r} climbs above the root "
                            f"of {cut(base, 100)}, the repository whose file names it",
                            hint="a relative `repo` in a shared repository's file is "
                            "relative to that repository's URL (as a git submodule's is): "
                            "`../other-config` is a repository beside it")
            parts.pop()
        elif part not in ("", "."):
            parts.append(part)
    joined = ("/" if absolute else "") + "/".join(parts)
    return head + joined
