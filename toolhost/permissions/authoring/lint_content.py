"""Content rules an earlier deny or ask rule of another text always beats.

``lint_index`` finds a rule hidden by an earlier rule of the same text or of a name pattern
that covers it. A content rule can also be hidden by an earlier rule of another text:
``allow: Bash(git push origin main)`` or ``Bash(git push *)`` under ``deny: Bash(git push:*)``,
``allow: Read(//etc/passwd)`` under ``deny: Read(//etc/**)``, ``allow:
WebFetch(domain:docs.example.com)`` under ``deny: WebFetch(domain:*.example.com)``. Such an
allow is never reached: the author believes something is allowed that never is.

The test is by witnesses: the calls a literal rule (no wildcard but a final ``:*``, `` *`` or
``/**``) matches, spelled out (the command itself and with one more word; the path itself and
a name below it). An earlier deny or ask rule that matches every witness of the later rule, as
the engine decides it, hides it. A rule with a wildcard inside cannot be spelled out: it is
judged only against an earlier prefix rule (``Bash(git:*)``, ``Read(//etc/**)``,
``WebFetch(domain:*.example.com)``) covering its fixed start (no false report).
The comparisons are bounded (``MAX_PAIRS`` in one lint).
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from toolhost.permissions.builtin_inputs import BUILTIN_INPUTS
from toolhost.permissions.rules import CompiledRule

__all__ = ["MAX_PAIRS", "hidden_conditional_rules", "hidden_content_rules"]

MAX_PAIRS = 20_000  # (earlier rule, later rule) pairs compared in one lint
_FILLER = "zq9"  # a word or name no rule is expected to name
_PATH_KEY = {"Read": "file_path", "Edit": "file_path", "Write": "file_path",
             "MultiEdit": "file_path", "NotebookEdit": "notebook_path",
             "NotebookRead": "notebook_path", "LS": "path"}
_ORDER = {"deny": 0, "ask": 1, "allow": 2}


def _plain_content(rule: CompiledRule) -> bool:
    return (rule.content is not None and not rule.conditions and rule.expr is None
            and rule.callers is None)


def _written(rule: CompiledRule) -> str:
    return rule.config.tool if rule.config is not None else rule.text


def _spec(rule: CompiledRule) -> str | None:
    text = _written(rule).strip()
    if "(" not in text or not text.endswith(")"):
        return None
    return text[text.index("(") + 1:-1]


def _bash_witnesses(spec: str) -> list[str]:
    body = spec[:-2] if spec.endswith(":*") else spec[:-2] if spec.endswith(" *") else None
    if body is not None:
        return [] if "*" in body or not body.strip() else [body, f"{body} {_FILLER}"]
    return [] if "*" in spec else [spec]


def _path_witnesses(spec: str, rule: CompiledRule) -> list[str]:
    body, below = (spec[:-3], True) if spec.endswith("/**") else (spec, False)
    if not body or any(c in body for c in "*?[]{}\\$%"):
        return []
    if body.startswith("//"):
        path = body[1:]
    elif body.startswith("~/") or body == "~":
        path = os.path.expanduser(body)
    elif body.startswith("/"):
        path = os.path.join(os.path.dirname(os.path.abspath(str(rule.origin.file))), body[1:])
    else:
        path = os.path.join(str(getattr(rule.content, "cwd", os.getcwd())), body)
    return [f"{path}/{_FILLER}", f"{path}/{_FILLER}/{_FILLER}"] if below else [path]


def _witnesses(rule: CompiledRule, tool: str) -> list[dict[str, Any]]:
    spec = _spec(rule)
    if spec is None:
        return []
    if tool == "Bash":
        return [{"command": w} for w in _bash_witnesses(spec.strip())]
    if tool in _PATH_KEY:
        return [{_PATH_KEY[tool]: w} for w in _path_witnesses(spec.strip(), rule)]
    if tool == "WebFetch" and spec.startswith("domain:"):
        host = spec[len("domain:"):].strip()
        if not host or "*" in host:
            return []
        return [{"url": f"https://{host}/"}, {"url": f"https://{host}/{_FILLER}"}]
    return []


_WILD = "*?[]{}"


def _wild_witnesses(rule: CompiledRule, tool: str) -> list[dict[str, Any]]:
    """For a rule with a wildcard inside: calls standing for all it matches, to be
    compared with a PREFIX rule only (``_prefix_form``). Every command ``Bash(git * main)``
    matches starts with the words ``git `` (so ``Bash(git:*)`` matching ``git zq9`` matches
    them all); every path ``Read(//etc/*.conf)`` matches lies below ``/etc`` (so
    ``Read(//etc/**)`` matching ``/etc/zq9`` matches them all); every host
    ``domain:*.a.example.com`` matches ends in ``.a.example.com``."""
    spec = _spec(rule)
    if spec is None:
        return []
    spec = spec.strip()
    if tool == "Bash":
        body = spec[:-2] if spec.endswith(":*") else spec
        if "*" not in body or getattr(rule.content, "whole", True):
            return []
        lead = body.split("*", 1)[0]
        words = lead.strip()
        if not lead.endswith(" ") or not words or any(c in words for c in "*\\'\"$`"):
            return []
        return [{"command": f"{words} {_FILLER}"}, {"command": f"{words} {_FILLER} {_FILLER}"}]
    if tool in _PATH_KEY:
        cut = min((spec.index(c) for c in _WILD if c in spec), default=-1)
        lead = spec[:cut] if cut > 0 else ""
        if "/" not in lead.lstrip("/") and not lead.startswith(("~/", "./")):
            return []
        folder = lead.rsplit("/", 1)[0]
        if not folder or folder in ("/", "~", "."):
            return []
        return [{_PATH_KEY[tool]: w} for w in _path_witnesses(folder + "/**", rule)]
    if tool == "WebFetch" and spec.startswith("domain:*."):
        rest = spec[len("domain:*."):].strip()
        if not rest or "*" in rest:
            return []
        return [{"url": f"https://{_FILLER}.{rest}/"},
                {"url": f"https://{_FILLER}.{_FILLER}.{rest}/{_FILLER}"}]
    return []


def _prefix_form(rule: CompiledRule, tool: str) -> bool:
    """``Bash(git:*)``, ``Bash(git *)``, ``Read(//etc/**)``, ``WebFetch(domain:*.x.com)``:
    a rule matching everything that starts with its fixed part (no other wildcard)."""
    spec = _spec(rule)
    if spec is None or not _plain_content(rule):
        return False
    spec = spec.strip()
    if tool == "Bash":
        body = spec[:-2] if spec.endswith((":*", " *")) else None
        return body is not None and "*" not in body
    if tool in _PATH_KEY:
        return spec.endswith("/**") and not any(c in spec[:-3] for c in _WILD + "\\$%")
    return tool == "WebFetch" and spec.startswith("domain:*.") and "*" not in spec[9:]


def _matches(rule: CompiledRule, tool: str, call: Mapping[str, Any]) -> bool:
    content = rule.content
    assert content is not None
    return bool(content.matches(tool, call, strict=rule.effect == "allow"))


def _path_conditions_only(rule: CompiledRule) -> bool:
    """A deny/ask rule whose only parts are ``when`` tests of the path or URL by operators
    that compare normalised values (``path_under``, ``path_glob``, ``host``): judged on an
    exact witness, whose other arguments are absent. (A test of the text as written,
    ``glob``/``regex``/``equals``, misses other spellings the later rule allows.)"""
    when = rule.config.when if rule.config is not None else None
    if not rule.conditions or rule.expr is not None or rule.callers is not None or (
            not isinstance(when, Mapping)):
        return False
    return all(isinstance(spec, Mapping) and spec and set(spec) <= _NORMALISED.get(key, set())
               for key, spec in when.items())


def _under_only(rule: CompiledRule) -> bool:
    """Its ``when`` tests only paths, with ``path_under``: one that holds for
    ``DIR/zq9`` and ``DIR/zq9/zq9`` holds for everything below ``DIR``, so it may hide a
    later rule naming a whole directory (``Read(//etc/ssl/**)``, ``Read(//etc/*.conf)``)."""
    when = rule.config.when if rule.config is not None else None
    return _path_conditions_only(rule) and isinstance(when, Mapping) and all(
        set(spec) == {"path_under"} for spec in when.values())


_PATH_OPS = {"path_under", "path_glob"}
_NORMALISED = {"file_path": _PATH_OPS, "notebook_path": _PATH_OPS, "path": _PATH_OPS,
               "url": {"host"}}


def _tested_by_all(prior: CompiledRule, tools: frozenset[str]) -> bool:
    """Every built-in tool the later rule names has each argument the earlier rule's ``when``
    tests: ``when: {file_path: ...}`` never holds for a Grep, Glob or LS (theirs
    is ``path``), so it hides no ``Read(...)`` rule, which also allows those."""
    when = prior.config.when if prior.config is not None else None
    keys = [str(k) for k in when] if isinstance(when, Mapping) else []
    return all(key in BUILTIN_INPUTS[tool].get("properties", {}) for tool in tools
               if tool in BUILTIN_INPUTS for key in keys)


def _prior_matches(prior: CompiledRule, tool: str, call: Mapping[str, Any]) -> bool:
    if prior.conditions:
        return prior.matches(tool, call)
    return _matches(prior, tool, call)


def hidden_content_rules(rules: list[CompiledRule] | tuple[CompiledRule, ...]
                         ) -> Iterator[tuple[CompiledRule, CompiledRule]]:
    """(later, earlier) for each content rule an earlier deny/ask rule of another text
    matches on every call the later one's content matches (the first such earlier rule).
    The earlier rule is a content rule with no when, expr or callers; or, when
    the later rule names one exact call (``Bash(git push origin main)``,
    ``Read(//etc/hosts)``), also a rule testing only that call's command, path or URL
    (``when: {file_path: {path_under: /etc}}``)."""
    earlier: defaultdict[str, list[CompiledRule]] = defaultdict(list)
    budget = MAX_PAIRS
    for rule in rules:
        tool = _written(rule).partition("(")[0].strip()
        # (a later rule's when/expr/callers only narrow what it matches)
        named = rule.content is not None and tool in rule.names.exact
        calls = _witnesses(rule, tool) if named else []
        wild = False
        if named and not calls:  # a wildcard inside: only a prefix rule can be sure to hide it
            calls, wild = _wild_witnesses(rule, tool), True
        if calls and budget > 0 and (wild or all(_matches(rule, tool, c) for c in calls)):
            exact = len(calls) == 1
            for prior in (p for p in earlier[tool] if p.names.matches(tool)):
                budget -= 1
                if budget <= 0:
                    break
                if (prior.conditions and not exact and not _under_only(prior)) or (
                        prior.conditions and not _tested_by_all(prior, rule.names.exact)) or (
                        prior.text == rule.text) or (
                        _ORDER[prior.effect] >= _ORDER[rule.effect]) or (
                        wild and not _prefix_form(prior, tool) and not _under_only(prior)):
                    continue
                if all(_prior_matches(prior, tool, c) for c in calls):
                    yield rule, prior
                    break
        if rule.effect != "allow" and (_plain_content(rule) or _path_conditions_only(rule)):
            for name in rule.names.exact:
                earlier[name].append(rule)


def _parts(rule: CompiledRule) -> tuple[dict[str, str], str | None, str | None, str | None]:
    config = rule.config
    when = dict(config.when or {}) if config is not None else {}
    return ({str(k): json.dumps(v, sort_keys=True, default=str) for k, v in when.items()},
            config.expr if config is not None else None,
            json.dumps(config.callers, sort_keys=True, default=str)
            if config is not None and config.callers is not None else None,
            config.tool if rule.content is not None and config is not None else None)


def _anchored_apart(earlier: CompiledRule, later: CompiledRule) -> bool:
    """Whether the two rules are in different directories and a part of the earlier one is
    anchored at its file's (``path_glob: "x/**"``, ``Read(/docs/**)``): the same text then
    names other paths."""
    if os.path.dirname(str(earlier.origin.file)) == os.path.dirname(str(later.origin.file)):
        return False
    text = json.dumps(earlier.config.when if earlier.config else None, default=str)
    return "path_" in text or "(/" in earlier.text.replace("(//", "")


def hidden_conditional_rules(rules: list[CompiledRule] | tuple[CompiledRule, ...],
                             covers_names: Callable[[CompiledRule, CompiledRule], bool]
                             ) -> Iterator[tuple[CompiledRule, CompiledRule]]:
    """(later, earlier) for each rule an earlier conditional deny/ask rule hides: the
    earlier one names every tool the later one does (``covers_names``), and its ``when``
    entries, ``expr``, ``callers`` and content are among the later one's, written the same
    (``deny: {tool: t, when: {mode: fast}}`` hides ``allow: {tool: t, when: {mode: fast,
    path: ...}}``): every call the later rule matches, the earlier one matches first."""
    earlier: list[tuple[CompiledRule, tuple[dict[str, str], str | None, str | None,
                                             str | None]]] = []
    budget = MAX_PAIRS
    for rule in rules:
        if rule.config is None or (not earlier and rule.effect == "allow"):
            continue
        parts = _parts(rule)
        when, expr, callers, content = parts
        for prior, (p_when, p_expr, p_callers, p_content) in earlier:
            budget -= 1
            if budget <= 0:
                return
            if (_ORDER[prior.effect] < _ORDER[rule.effect] and p_expr in (None, expr)
                    and (p_callers in (None, callers) or _callers_within(rule, prior))
                    and p_content in (None, content)
                    and p_when.items() <= when.items() and covers_names(prior, rule)
                    and not _anchored_apart(prior, rule)):
                yield rule, prior
                break
        if rule.effect != "allow" and not rule.unconditional and (when or expr or callers):
            earlier.append((rule, parts))


def _callers_within(later: CompiledRule, earlier: CompiledRule) -> bool:
    """Every caller the later rule names, the earlier one names (``deny: {tool:
    t, callers: {groups: [a, b]}}`` hides ``allow: {tool: t, callers: {groups: [a]}}``)."""
    return (later.callers is not None and earlier.callers is not None
            and earlier.callers.covers(later.callers))
