"""Several servers' resources served as one, each URI answered by one owner.

A declared resource (``resources:`` in the config) owns its URIs; an imported server's
upstream offers whatever it lists, and may list a URI a declared resource (or another
upstream) already answers to, even in toolhost's own ``toolhost://<server>/`` namespace. Its
content would then be served under a URI the team's rules and clients trust for the declared
one. So upstream resources come after declared ones, and an upstream's resource or template
that claims a URI already owned (or any ``toolhost:`` URI) is left out, with a warning naming
the upstream.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from toolhost.compile.resource_uri import normalize
from toolhost.excerpt import cut

if TYPE_CHECKING:
    from toolhost.compile.content_kinds import Resource

__all__ = ["OWN_SCHEME", "arrange", "is_upstream"]

log = logging.getLogger("toolhost.gateway")

OWN_SCHEME = "toolhost:"  # declared resources' default URIs: toolhost://<server>/<name>


def is_upstream(resource: Any) -> bool:
    """Whether ``resource`` is an upstream's (it carries the connection it is read through)."""
    return getattr(resource, "connection", None) is not None


def arrange(contents: Mapping[str, Sequence[Resource]]
            ) -> tuple[tuple[Resource, ...], tuple[str, ...], bool]:
    """The resources of ``contents`` (server -> its resources) side by side, declared ones first,
    the servers that own them (same order), and whether an upstream's claim was left out."""
    declared = [(server, r) for server, resources in contents.items()
                for r in resources if not is_upstream(r)]
    kept: list[tuple[str, Resource]] = list(declared)
    taken: dict[str, str] = {}  # URI -> the server whose upstream lists it first
    dropped = False
    for server, resources in contents.items():
        for resource in resources:
            if not is_upstream(resource):
                continue
            if resource.is_template:
                template = str(resource.descriptor().get("uriTemplate", ""))
                if template.lower().startswith(OWN_SCHEME):
                    _warn(server, "resource template", template, "toolhost:// names the "
                          "config's declared resources")
                    dropped = True
                    continue
                kept.append((server, resource))
                continue
            entries: Sequence[dict[str, Any]] = getattr(resource, "entries", ())
            keep = []
            for entry in entries:
                why = _claimed(entry.get("uri"), server, declared, taken)
                if why is None:
                    keep.append(entry)
                else:
                    _warn(server, "resource", str(entry.get("uri")), why)
            if len(keep) != len(entries):
                dropped = True
                if not keep:
                    continue
                resource = replace(resource, entries=tuple(keep))  # type: ignore[type-var]
            kept.append((server, resource))
    return tuple(r for _, r in kept), tuple(s for s, _ in kept), dropped


def _claimed(uri: Any, server: str, declared: Sequence[tuple[str, Resource]],
             taken: dict[str, str]) -> str | None:
    """Why the upstream of ``server`` may not offer ``uri``, or None."""
    if not isinstance(uri, str):
        return None  # not listed anyway
    canonical = normalize(uri)
    if canonical.lower().startswith(OWN_SCHEME):
        return "toolhost:// names the config's declared resources"
    for owner, resource in declared:
        if resource.matches(canonical) is not None:
            return f"it is a URI of server '{owner}''s declared resources"
    first = taken.setdefault(canonical, server)
    if first != server:
        return f"server '{first}' offers it already"
    return None


def _warn(server: str, what: str, uri: str, why: str) -> None:
    log.warning("upstream server '%s': its %s %s is left out: %s", server, what,
                cut(uri, 200), why)
