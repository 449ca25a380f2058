"""What a new lock changes against the old one, one line per difference, as a reviewer reads it.

A repository whose pin moved (``toolhost update`` of one repository of three, a rev edited by
hand) is one ``~`` line naming the old and new rev and commit, then each file used that
changed, with its diff when it can be had: not a "no longer used" line beside a new one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from toolhost.lockfile.model import Lock, LockedFile

__all__ = ["changes"]

Diff = Callable[[str, str, str], str]  # (new key, old commit, file) -> diff text, or ""
Brought = Callable[[str], list[str]]  # new key -> what its files bring (contents.brought_by)
# (new key, old pin, new pin) -> the rules, settings, ... the move changes (rulediff)
Policy = Callable[[str, LockedFile, LockedFile], list[str]]


def changes(old: Lock | None, new: Lock, *, diff: Diff | None = None,
            brought: Brought | None = None, policy: Policy | None = None) -> list[str]:
    """One line per difference between two locks (``old`` None: everything is new).
    ``diff``: the diff of a file of a repository whose commit changed; ``brought``: the
    rules, settings, servers and tools a newly pinned source brings, listed under it;
    ``policy``: what a moved repository's commit adds, removes or changes of them, listed
    under its ``~`` line."""
    lines: list[str] = []
    before = old.sources if old else {}
    moved = _moved_revs(before, new.sources)
    for key in sorted(set(before) | set(new.sources)):
        was, now = before.get(key), new.sources.get(key)
        if key in moved.values():
            continue  # said with the key it came from
        if was is not None and key in moved:
            now = new.sources[moved[key]]
            lines.append(f"~ {_repo(key)}: rev {_rev(key)} -> {_rev(moved[key])}, commit "
                         f"{was.pin[:12]} -> {now.pin[:12]}"
                         + _under(policy(moved[key], was, now) if policy else []))
            lines.extend(_files(moved[key], was, now, diff))
        elif was is None and now is not None:
            under = brought(key) if brought is not None else []
            lines.append(f"+ {key} {now.pin[:12]} ({len(now.files):,} file(s))"
                         + "".join(f"\n    {part}" for part in under))
        elif now is None and was is not None:
            lines.append(f"- {key} (no longer used)")
        elif was is not None and now is not None:
            if was.pin != now.pin:
                lines.append(f"~ {key}: {was.pin[:12]} -> {now.pin[:12]}"
                             + _under(policy(key, was, now) if policy else []))
            lines.extend(_files(key, was, now, diff))
    ups_before = old.upstreams if old else {}
    for server in sorted(set(ups_before) | set(new.upstreams)):
        a_tools, b_tools = ups_before.get(server, {}), new.upstreams.get(server, {})
        for tool in sorted(set(a_tools) | set(b_tools)):
            was_def, now_def = a_tools.get(tool), b_tools.get(tool)
            if was_def is None:
                lines.append(f"+ upstream {server}: {tool}")
            elif now_def is None:
                lines.append(f"- upstream {server}: {tool} (no longer imported)")
            elif dict(was_def) != dict(now_def):
                keys = sorted(k for k in set(was_def) | set(now_def)
                              if was_def.get(k) != now_def.get(k))
                lines.append(f"~ upstream {server}: {tool}: {', '.join(keys)}"
                             + _definition_diff(was_def, now_def))
    plugins_before = old.plugins if old else {}
    for name in sorted(set(plugins_before) | set(new.plugins)):
        a, b = plugins_before.get(name), new.plugins.get(name)
        if a != b:
            lines.append(f"{'+' if a is None else '-' if b is None else '~'} plugin {name}: "
                         f"{a or 'absent'} -> {b or 'absent'}")
    return lines


def _moved_revs(before: Mapping[str, LockedFile], after: Mapping[str, LockedFile]
                ) -> dict[str, str]:
    """Old key -> new key of each repository that is pinned at another rev now: the only
    key of that repository gone, and the only one new."""
    gone: dict[str, list[str]] = {}
    came: dict[str, list[str]] = {}
    for key in set(before) - set(after):
        if key.startswith("repo:") and "@" in key:
            gone.setdefault(_repo(key), []).append(key)
    for key in set(after) - set(before):
        if key.startswith("repo:") and "@" in key:
            came.setdefault(_repo(key), []).append(key)
    return {keys[0]: came[repo][0] for repo, keys in gone.items()
            if len(keys) == 1 and len(came.get(repo, ())) == 1}


def _under(parts: list[str]) -> str:
    return "".join(f"\n    {part}" for part in parts)


def _repo(key: str) -> str:
    return key.rpartition("@")[0]


def _rev(key: str) -> str:
    return key.rpartition("@")[2]


def _files(key: str, was: LockedFile, now: LockedFile, diff: Diff | None) -> list[str]:
    """A line per file whose hash changed, with its diff under it when the commit moved."""
    lines = []
    for rel in sorted(set(was.files) | set(now.files)):
        a, b = was.files.get(rel), now.files.get(rel)
        if a == b:
            continue
        line = f"~ {key} {rel}: {(a or 'absent')[:19]} -> {(b or 'absent')[:19]}"
        text = diff(key, was.pin, rel) if diff is not None and was.pin != now.pin else ""
        lines.append(line + "".join(f"\n    {part}" for part in text.splitlines()))
    return lines


def _definition_diff(was: Any, now: Any) -> str:
    """A locked tool definition against the upstream's now, as a unified diff of their JSON,
    indented under the change's line (cut like the load's)."""
    import difflib
    import json

    from toolhost.lockfile.drift import cut_lines

    old, new = (json.dumps(d, indent=2, sort_keys=True, ensure_ascii=False).splitlines()
                for d in (was, now))
    text = cut_lines("\n".join(difflib.unified_diff(old, new, "locked", "upstream now",
                                                    lineterm="")))
    return "".join(f"\n    {line}" for line in text.splitlines())
