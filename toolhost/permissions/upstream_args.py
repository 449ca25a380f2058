"""What ``validate --connect`` says about a rule's ``when`` on an imported tool's arguments.

An upstream's inputSchema is open (the MCP SDKs write no ``additionalProperties``), so the
generic argument check (``toolhost.permissions.authoring.rulecheck``) cannot call a key it
does not name missing: any key may be sent. Two ways a rule on such a tool guards nothing
its author sees:

* ``undeclared``: the condition names an argument the tool does not declare (``q`` where it
  takes ``query``). The model does not send it and the upstream would ignore it: a deny or
  ask on it never holds for a call the upstream acts on, an allow on it never matches.
* ``unseen_default``: a deny or ask condition that holds for the argument's default. The
  rules judge what the model sent; a call leaving the argument out is sent the default
  (toolhost fills in the schema's defaults after the decision), so ``deny when {recursive:
  true}`` never meets a call that leaves ``recursive`` out where its default is true.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from toolhost.config.model import RuleConfig
from toolhost.excerpt import cut
from toolhost.permissions.conditions import compile_when, parse_key_path
from toolhost.permissions.guards import GUARDS
from toolhost.typos import close_matches

__all__ = ["review_when", "undeclared", "unseen_default"]

# keywords that may let a key through by another route: its absence cannot be proven
_INTRICATE = ("$ref", "$dynamicRef", "allOf", "anyOf", "oneOf", "if", "then", "else", "not",
              "patternProperties", "additionalProperties", "unevaluatedProperties",
              "dependentSchemas", "dependencies", "propertyNames")


def review_when(rule: RuleConfig, schemas: Mapping[str, Mapping[str, Any]], *, others: bool,
                cwd: str, rule_dir: str, renames: Callable[[str], tuple[str, str]]
                ) -> Iterator[tuple[str, str, str]]:
    """(the ``when`` key, message, hint) for each warning about ``rule``'s conditions on the
    imported tools ``schemas`` (wire name -> inputSchema) it names. ``others``: it also names
    tools whose schemas are checked elsewhere (no undeclared warning then). ``renames``:
    a wire name -> (its server, the upstream's name of the tool)."""
    when = rule.when if isinstance(rule.when, Mapping) else {}
    for raw, spec in when.items():
        if isinstance(spec, Mapping) and "present" in spec:
            continue  # the author said what an absent argument means
        try:
            path = parse_key_path(str(raw))
            condition = compile_when({raw: spec}, cwd=cwd, rule_dir=rule_dir)[0]
        except (ValueError, IndexError):
            continue  # said where the rule is compiled
        key = cut(str(raw), 60)
        misses = {tool: undeclared(schema, path) for tool, schema in schemas.items()}
        if not others and all(misses.values()):
            tool, (where, known, close) = next((t, m) for t, m in misses.items() if m)
            named = tool if len(misses) == 1 else f"{len(misses)} tools it matches"
            yield (str(raw), f"when.{key}: {named} does not declare {key!r} ({where} it "
                   f"declares: {cut(known, 200)}), so the model does not send it and the "
                   "upstream ignores it: " + ("the condition never holds for a call the "
                                              "upstream acts on" if rule.effect in GUARDS
                                              else "the rule never matches"),
                   f"did you mean {close!r}?" if close else
                   "name the argument as the tool's inputSchema does (`toolhost tools CONFIG`)")
            continue
        if rule.effect not in GUARDS or len(path) != 1 or not isinstance(path[0], str):
            continue
        for tool, schema in schemas.items():
            default = unseen_default(schema, path[0], functools.partial(
                condition.holds, strict=False))
            if default is None:
                continue
            server, upstream = renames(tool)
            yield (str(raw), f"when.{key} holds for the default of {key!r} of {tool} "
                   f"({default}), but the rules judge what the model sent: a call that leaves "
                   f"{key!r} out is sent {default}, and this {rule.effect} rule does not meet "
                   "it", f"add a second {rule.effect} rule on {tool} with `{key}: {{present: "
                   f"false}}`, or set a default it allows in servers.{server}.tools."
                   f"{upstream}.defaults")
            break


def undeclared(schema: Mapping[str, Any], path: Sequence[str | int]
               ) -> tuple[str, str, str] | None:
    """When the object holding ``path``'s last key declares its ``properties``, says nothing
    else about other keys, and does not name that key: (where, the keys it names, the
    nearest of them or ""); else None (declared, or its absence cannot be proven)."""
    node: Any = schema
    shown = "the arguments"
    for depth, part in enumerate(path):
        if not isinstance(node, Mapping) or not isinstance(part, str):
            return None
        props = node.get("properties")
        if not isinstance(props, Mapping) or not props or any(k in node for k in _INTRICATE):
            return None
        if part not in props:
            names = sorted(map(str, props))
            lowered = {n.lower(): n for n in names}
            close = lowered.get(part.lower()) or next(iter(
                close_matches(part, names, n=1, cutoff=0.6)), "") or next(
                (n for n in names if n.startswith(part) or part.startswith(n)), "")
            return shown, ", ".join(names), close
        node = props[part]
        shown = f"argument {'.'.join(map(str, path[:depth + 1]))!r}"
    return None


def unseen_default(schema: Mapping[str, Any], key: str,
                   holds: Callable[[Mapping[str, Any]], bool]) -> str | None:
    """The default of top-level argument ``key`` (as text) when a condition on it, tested by
    ``holds(arguments)``, holds for the default but not for the argument left out; else
    None."""
    props = schema.get("properties")
    prop = props.get(key) if isinstance(props, Mapping) else None
    if not isinstance(prop, Mapping) or "default" not in prop:
        return None
    default = prop["default"]
    try:
        if holds({}) or not holds({key: default}):
            return None
    except Exception:  # a test that cannot judge the value: nothing to say
        return None
    try:
        return cut(json.dumps(default, ensure_ascii=False), 80)
    except (TypeError, ValueError):
        return cut(repr(default), 80)
