"""A team repository naming another by a relative path: ``repo: ../other-config`` in one of
its fragments is relative to the repository's own URL, as git resolves a submodule's
relative URL (``https://git.example/team/config`` + ``../other`` ->
``https://git.example/team/other``). Resolved against the directory of the checkout in the
cache, it named a directory of the cache, which is never a repository."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path

from toolhost.config.model import UNKNOWN, Origin
from toolhost.errors import Problem

__all__ = ["checkout_url", "name_checkouts", "relative_to_url"]

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


def shown_file(path: str) -> str:
    """``path`` as a reader knows it: ``base.yaml of URL at REV`` for a file of a cached
    checkout (its cache path names no repository), else ``path`` itself."""
    from toolhost.config.repotree import META, checkout_root
    from toolhost.config.url_secrets import shown_url

    root = checkout_root(path)
    if root is None:
        return path
    try:
        meta = json.loads(root.joinpath(META).read_text(encoding="utf-8"))
        url, rev = str(meta["url"]), str(meta["rev"])
        rel = Path(path).resolve().relative_to(root).as_posix()
    except (OSError, ValueError, RecursionError, KeyError, TypeError):
        return path
    return f"{rel} of {shown_url(url)} at {rev}"


def name_checkouts(problems: Sequence[Problem]) -> list[Problem]:
    """``problems`` with each one located in a cached checkout saying which repository and
    rev that file is of: its path (``~/.cache/toolhost/repos/3f2a.../base.yaml:4:11``, kept
    for an editor to open) names neither."""
    from dataclasses import replace

    from toolhost.config.repotree import META, checkout_root
    from toolhost.config.url_secrets import shown_url

    named: dict[Path, str] = {}
    out: list[Problem] = []
    for problem in problems:
        root = checkout_root(problem.file) if problem.file else None
        if root is None:
            out.append(problem)
            continue
        if root not in named:
            try:
                meta = json.loads(root.joinpath(META).read_text(encoding="utf-8"))
                url, rev = str(meta["url"]), str(meta["rev"])
            except (OSError, ValueError, RecursionError, KeyError, TypeError):
                named[root] = ""
            else:
                named[root] = f" of {shown_url(url)} at {rev}"
        try:
            rel = Path(problem.file).resolve().relative_to(root).as_posix()
        except (OSError, ValueError):
            rel = Path(problem.file).name
        said = f"{rel}{named[root]}" if named[root] else ""
        if said and said in problem.hint:  # named already (by the loader, then a check)
            said = ""
        out.append(replace(problem, hint=f"{problem.hint}; {said}" if problem.hint and said
                           else problem.hint or said))
    return out
