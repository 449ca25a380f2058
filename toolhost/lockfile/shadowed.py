"""A plugin release the lock pins that is installed, but behind another copy of the same
distribution earlier on ``sys.path`` (a user site, a second virtualenv on ``PYTHONPATH``, an
upgrade that left the old copy): Python imports the first, so the lock refuses it, and the
hint says where the pinned copy is and which one is in its way. "pip install NAME==X" alone
read as if the pinned release were missing."""

from __future__ import annotations

__all__ = ["shadowed_hint"]

MAX_COPIES = 20  # copies of one distribution looked at: a hint, not a scan


def shadowed_hint(name: str, first: str, locked: str) -> str:
    """The hint for ``name`` whose first copy on ``sys.path`` is ``first`` while the lock
    pins ``locked``, when a later copy is ``locked``; "" otherwise."""
    import importlib.metadata as md

    copies: list[tuple[str, str]] = []  # (version, directory), in sys.path order
    try:
        for dist in md.distributions(name=name):
            copies.append((str(dist.version), str(dist.locate_file(""))))
            if len(copies) >= MAX_COPIES:
                break
    except Exception:  # broken metadata elsewhere: no hint, the refusal stands
        return ""
    ahead = next((where for version, where in copies if version == first), None)
    pinned = next((where for version, where in copies if version == locked), None)
    if ahead is None or pinned is None or ahead == pinned:
        return ""
    from toolhost.errors import shown

    return (f"{name} {locked} is installed too, in {shown(pinned)}, but the {first} in "
            f"{shown(ahead)} comes first on sys.path: remove that copy (or take its directory "
            "off PYTHONPATH), or accept it with `toolhost lock CONFIG`")
