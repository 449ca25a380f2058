"""What lands in a file a later command runs (a git hook, ``.bashrc``): judged by the deny and
ask Bash rules, as ``echo TEXT > FILE`` would be (``later.edits``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from toolhost.permissions.decision import Decision
from toolhost.permissions.expr.core import ExprError
from toolhost.permissions.rule_plan import is_bash
from toolhost.permissions.rules import CompiledRule

__all__ = ["LaterGuards"]

_MET_LIMIT = 65536


class LaterGuards:
    """The deny and ask ``Bash(...)`` rules a file a later command runs meets, and which
    lines met which rule (remembered: an Edit judges the file's whole text)."""

    def __init__(self, rules: Iterable[CompiledRule]) -> None:
        self.rules = tuple(r for r in rules if r.effect != "allow"
                           and is_bash(r.content) and r.names.matches("Bash"))
        self._met: dict[tuple[int, str], bool] = {}  # (guard, line): whether it meets

    def written_later(self, tool_name: str, tool_input: Mapping[str, Any], cwd: str,
                      files: frozenset[str],
                      decide: Callable[[str, Mapping[str, Any]], Decision]) -> Decision | None:
        """A Write/Edit of a file a later command runs (a git hook, ``.bashrc``) whose text
        after the call (an Edit's applied to the file's current text: ``edited_text``)
        meets a deny or ask Bash rule, as ``echo TEXT > FILE`` would (``later.edits``):
        that rule's decision (an ask only where no rule of the tool denies the call, as
        ``decide`` says). A write of one of the policy's own ``files`` is asked."""
        from toolhost.permissions.edited_text import texts_after
        from toolhost.permissions.later.edits import (
            command_lines,
            later_path,
            new_texts,
            own_file,
        )

        own = own_file(tool_name, tool_input, cwd, files)
        if own is not None:  # its next session would obey what the agent wrote
            decided = decide(tool_name, tool_input)
            if decided.behavior == "deny":
                return decided
            return Decision("ask", f"{tool_name} writes {own!r}, a file toolhost's permissions "
                            "are read from (the next session would obey what it says), so no "
                            "rule and no default can allow it; a person must approve it.",
                            answered_by="default")
        if not self.rules:
            return None
        path = later_path(tool_name, tool_input, cwd)
        if path is None:
            return None
        # an Edit is judged by the whole text the file holds after it (the file's
        # current text read now: an edit removing the `#` of `# rm -rf y` arms that line)
        texts = texts_after(tool_name, tool_input, path, cwd,
                            new_texts(tool_name, tool_input))
        hit = self.text_meets(texts)
        if hit is None:
            return None
        what = ("text too long or odd to judge" if not isinstance(command_lines(texts), list)
                else "text that meets this rule")
        why = (f"{tool_name} writes {path!r}, which a later command runs (a git hook or config, "
               f"a shell startup file, an alias file), with {what}")
        if hit.effect == "deny":
            return Decision("deny", hit.message or f"Denied by permission rule {hit.text!r} "
                            f"({hit.origin}): {why}.", rule=hit.text, origin=hit.origin)
        decided = decide(tool_name, tool_input)
        if decided.behavior == "deny":
            return decided
        return Decision("ask", hit.message or f"Permission rule {hit.text!r} ({hit.origin}) "
                        f"asks: {why}.", rule=hit.text, origin=hit.origin)

    def text_meets(self, texts: list[str] | None) -> CompiledRule | None:
        """The first deny or ask Bash rule the text of a run-later file meets (None: none
        does; text that cannot be judged, ``None``, meets every one)."""
        from toolhost.permissions.later.edits import UNJUDGED, command_lines

        lines = UNJUDGED if texts is None else command_lines(texts)
        return next((r for k, r in enumerate(self.rules) if not isinstance(lines, list)
                     or any(self._meets(k, r, line) for line in dict.fromkeys(lines))), None)

    def brought_meets(self, texts: list[str | None]) -> bool:
        """Whether a deny or ask Bash rule meets one of the texts a git command brings into a
        run-later file (later.git; None, a text not readable, meets them all)."""
        return any(self.text_meets(None if t is None else [t]) is not None for t in texts)

    def _meets(self, k: int, rule: CompiledRule, line: str) -> bool:
        """Whether the ``k``-th guard matches ``line`` as a command, remembered: an Edit of a
        run-later file judges the file's whole text, and the next edit of it the
        same lines. One that cannot be evaluated counts as matching: fail closed."""
        key = (k, line)
        met = self._met.get(key)
        if met is None:
            if len(self._met) >= _MET_LIMIT:
                self._met.clear()
            try:
                met = rule.matches("Bash", {"command": line})
            except ExprError:
                met = True
            self._met[key] = met
        return met
