"""A value that writes a package manager's or CLI's own settings, which name commands it
runs later: ``npm config set script-shell PATH`` makes every later ``npm run`` start PATH
(tried for real: a fake shell wrote a file), ``node-options`` loads modules into every node
it starts, ``registry`` (and ``@scope:registry``) chooses where packages come from, pip's
``global.index-url`` too, and ``gh alias set NAME '!CMD'`` adds a command gh runs through a
shell. As with ``git config KEY VALUE``: a value as the key, or as the value of such a key,
is a slot ``code_opts`` refuses at load; a literal key with a harmless setting still loads.

Verbs: ``npm config set K V`` / ``npm config set K=V`` / ``npm set K V`` (pnpm and yarn
alike), ``pip config set K V``, ``gh config set K V``, ``gh alias set NAME EXPANSION``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from toolhost.backends.code_token import Token

__all__ = ["tool_config_slots"]

Slot = tuple[str, str, str]

_KEY = "option: the key of a setting it writes (commands or code it runs later)"
_VALUE = "option: a setting it writes that names a command or code it runs later"
_ALIAS = "option: an alias it writes ('!CMD' runs a shell command)"

_NPM_FAMILY = frozenset({"npm", "pnpm", "yarn"})
# settings that name a program, a shell, modules to load, more configuration or the
# registry packages come from (fail closed: any *path, *file, *dir, *command)
_NPM_CODE_KEY = re.compile(
    r"(?i)^(script-shell|shell|node-options|editor|browser|git|viewer|init-module"
    r"|init\.module|userconfig|globalconfig|prefix|global-dir|onload-script|ignore-scripts"
    r"|npm-path|yarn-path|node-gyp|.*registry|.*(path|file|dir|command|cmd|program|script"
    r"|hook|exec|proxy))$")
_PIP_CODE_KEY = re.compile(
    r"(?i)^.*\.(index-url|extra-index-url|index|find-links|trusted-host|proxy|cert"
    r"|client-cert|target|prefix|root|src|config-settings|.*(path|file|dir|command|cmd))$")
_GH_CODE_KEY = re.compile(r"(?i)^(editor|browser|pager|http_unix_socket|git_protocol"
                          r"|.*(path|command|cmd|program))$")


def _operands(tokens: Sequence[Token], start: int) -> list[Token]:
    """The operands from ``start`` on (an option and ``--`` are skipped)."""
    return [t for t in tokens[start:] if t.value or not t.text.startswith("-")]


def tool_config_slots(tokens: Sequence[Token], i: int, name: str,
                      family: str) -> list[Slot]:
    """The slots of the program at ``i`` where a value writes a setting that runs code."""
    ops = _operands(tokens, i + 1)
    words = [t.text if not t.value else "" for t in ops[:2]]
    if family in _NPM_FAMILY:
        if words[:2] == ["config", "set"]:
            rest = ops[2:]
        elif words[:1] == ["set"]:
            rest = ops[1:]
        else:
            return []
        return _pairs(rest, _NPM_CODE_KEY, name)
    if family == "pip" and words[:2] == ["config", "set"]:
        return _pairs(ops[2:], _PIP_CODE_KEY, name)
    if family == "gh" and words[:2] == ["config", "set"]:
        return _pairs(ops[2:], _GH_CODE_KEY, name)
    if family == "gh" and words[:2] == ["alias", "set"]:
        return [(t.key, name, _ALIAS) for t in ops[2:4] if t.value]
    return []


def _pairs(rest: Sequence[Token], code_key: re.Pattern[str], name: str) -> list[Slot]:
    """``KEY VALUE`` pairs and ``KEY=VALUE`` words: a value in a key, or in a code key's
    value."""
    slots: list[Slot] = []
    k = 0
    while k < len(rest):
        token = rest[k]
        key, eq, _ = token.text.partition("=")
        if eq and not token.value:  # KEY=VALUE written whole by the config
            k += 1
            continue
        if eq:  # KEY=VALUE with a value in it: in the key, or in a code key's value
            if "{" in key:
                slots.append((token.key, name, _KEY))
            elif code_key.match(key.strip()):
                slots.append((token.key, name, _VALUE))
            k += 1
            continue
        if token.value:
            slots.append((token.key, name, _KEY))
        elif k + 1 < len(rest) and rest[k + 1].value and code_key.match(key.strip()):
            slots.append((rest[k + 1].key, name, _VALUE))
        k += 2
    return slots
