"""Whether an imported tool is still what its upstream lists, at the moment a call is sent.

A call is decided on the tool it looked up: its schema, the defaults toolhost fills in, the
rules that judged them. An upstream may re-list its tools (``tools/list_changed``) while the
call waits (for a person answering an ``ask``, for its turn), and the tool the call then
runs is the one of the old listing: it would send what was judged to an upstream tool that is
now another one (a new default the upstream fills in itself, ``mode: wipe``, that no rule
saw), or that the lock withdrew (a changed definition nobody reviewed). So just before a
call is sent (``Current.stale``), its tool's definition is compared with the one served
now, and, when the upstream announced a change the host has not listed yet, with a listing
taken there and then; a call whose tool changed or went away is not sent (its caller calls
again, and that call is judged against the new tool).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from toolhost.permissions.sameness import same_json

__all__ = ["Current"]


class Current:
    """The definitions one upstream's tools are served with now, by upstream name, and
    how many of its tool-list announcements (``Channel.count``) the listing they came from
    had seen when it was taken."""

    def __init__(self, announced: Callable[[], int]) -> None:
        self._announced = announced
        self.at = announced()
        self.sources: Mapping[str, Mapping[str, Any]] = {}

    def serve(self, sources: Mapping[str, Mapping[str, Any]], at: int) -> None:
        """The tools of a listing taken after ``at`` announcements are served now
        (``sources``: none when its tools are withdrawn)."""
        self.sources, self.at = dict(sources), at

    def announced(self) -> int:
        """How many tool-list announcements the upstream has made so far."""
        return self._announced()

    def stale(self, name: str, source: Mapping[str, Any],
              listing: Callable[[], list[dict[str, Any]]]) -> bool:
        """Whether the upstream tool ``name``, built from the definition ``source``, is no
        longer served as that (in a worker thread: ``listing`` may be called, to list the
        upstream's tools when it announced a change not followed yet)."""
        if not _alike(self.sources.get(name), source):
            return True
        if self._announced() == self.at:
            return False
        # news not followed yet: the first definition of that name is the one served
        listed = next((tool for tool in listing() if tool.get("name") == name), None)
        return not _alike(listed, source)


def _alike(a: Mapping[str, Any] | None, b: Mapping[str, Any]) -> bool:
    # types included: a default of `true` is not one of `1`
    return a is b or (a is not None and same_json(dict(a), dict(b)))
