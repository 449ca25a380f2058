"""A shared repository's URL credentials: git gets them, nothing else does.

A password (or token) written in an ``extends: [{repo: URL}]`` is a secret (docs/secrets.md):
git is given the URL without its userinfo, and the credentials through a ``url.insteadOf``
rule in its environment (never its command line, ``.git/config`` or the cache metadata);
git's own messages are cut of them; and the process hides them in everything it writes.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from pathlib import Path

from toolhost.config.removetree import remove_tree
from toolhost.config.url_secrets import redact_userinfo, shown_url, userinfo

__all__ = ["credentials_env", "forget_legacy", "remember_credentials", "without_credentials"]


def remember_credentials(repo: str) -> None:
    """Hide the password (or token) of ``repo``'s userinfo in everything this process writes
    from now on, as any secret of the config (docs/secrets.md): a second guard behind the
    messages, which show the URL without it."""
    from toolhost.config.interpolate import MIN_AUTO_SECRET
    from toolhost.config.url_secrets import url_credentials
    from toolhost.redaction import remember

    if "@" in repo:
        remember(url_credentials(repo, MIN_AUTO_SECRET))


def forget_legacy(url: str, rev: str, repos: Path) -> None:
    """Delete the checkout an older toolhost cached under the URL with its password: its
    metadata and ``.git/config`` hold the password."""
    if userinfo(url) is None:
        return
    old = repos / hashlib.sha256(f"{url}\0{rev}".encode()).hexdigest()[:24]
    if os.path.lexists(old):
        remove_tree(old)
        with contextlib.suppress(OSError):
            old.with_name(old.name + ".lock").unlink()


def credentials_env(remote: str) -> dict[str, str]:
    """``GIT_CONFIG_*`` variables that give git ``remote``'s userinfo back when it is asked
    for the URL without it (those of the caller's environment are kept)."""
    if not remote or userinfo(remote) is None:
        return {}
    try:
        count = int(os.environ.get("GIT_CONFIG_COUNT", "0"))
    except ValueError:
        count = 0
    return {"GIT_CONFIG_COUNT": str(count + 1),
            f"GIT_CONFIG_KEY_{count}": f"url.{remote}.insteadOf",
            f"GIT_CONFIG_VALUE_{count}": shown_url(remote)}


def without_credentials(text: str, remote: str) -> str:
    """git's message with every URL's userinfo, and ``remote``'s password in any form, cut
    out (git masks it in some messages, not all)."""
    from urllib.parse import unquote

    text = redact_userinfo(text)
    info = userinfo(remote) if remote else None
    if info:
        secret = info.partition(":")[2] or info
        for form in {info, secret, unquote(info), unquote(secret)}:
            if form:
                text = text.replace(form, "***")
    return text
