"""``validate``'s notes on the tools of a config: facts about how they will run and how the
model will see them, which do not fail the check.

- each command argv position where a value may be read as an option, and each ``{each}``
  group whose items may be lists or objects (``toolhost.backends.command_checks``);
- each command or http tool with no ``description``: the model is shown its name alone (a
  python tool's docstring gives one; these kinds have nothing else to say what they do);
  a python tool with neither (``python_description_notes``, once its function is read).

and its warnings (``--strict`` fails on them): a config secret written into a command's argv,
which every local user can read while the program runs (``ps``, ``/proc/PID/cmdline``); a
server, tool or param whose name holds a secret's value (``secret_name_warnings``); a secret
shorter than 4 characters, which is hidden wherever its text appears (``short_secret_warnings``).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from toolhost.backends.command_checks import option_notes
from toolhost.config.template_values import as_set

if TYPE_CHECKING:
    from toolhost.config.model import HostConfig
    from toolhost.errors import Problem

__all__ = ["bidi_warnings", "description_notes", "python_description_notes",
           "secret_argv_warnings", "secret_name_warnings", "short_secret_warnings",
           "validate_notes"]

_UNDESCRIBED_KINDS = ("command", "http")


def description_notes(config: HostConfig) -> list[Problem]:
    """A note for each command or http tool whose description is missing or blank."""
    notes: list[Problem] = []
    for server in config.servers.values():
        for tool in server.tools.values():
            if tool.backend.kind not in _UNDESCRIBED_KINDS or (tool.description or "").strip():
                continue
            notes.append(tool.origin.problem(
                f"note: {tool.backend.kind} tool '{tool.name}' has no description: the model "
                f"is shown its name alone ({tool.wire_name}) to decide when to call it",
                hint="add description: one sentence on what it does and when to use it"))
    return notes


def python_description_notes(config: HostConfig, compiled: Any) -> list[Problem]:
    """A note for each python tool with no ``description`` whose function has no docstring
    either (``compiled``: the tools as compiled, where the docstring was read; a tool that
    did not compile is not there, and has its error)."""
    notes: list[Problem] = []
    servers = getattr(compiled, "servers", None) or {}
    for name, server in config.servers.items():
        shown = {tool.name: tool.description for tool in servers.get(name, ())}
        for tool in server.tools.values():
            # with neither, the compiler falls back to the tool's name
            if (tool.backend.kind != "python" or (tool.description or "").strip()
                    or (shown.get(tool.name) or "").strip() not in ("", tool.name)):
                continue
            notes.append(tool.origin.problem(
                f"note: python tool '{tool.name}' has no description and its function no "
                f"docstring: the model is shown its name alone ({tool.wire_name})",
                hint="add a docstring to the function (its first paragraph is the "
                     "description), or description: in the config"))
    return notes


def validate_notes(config: HostConfig) -> list[Problem]:
    """Every note ``validate`` prints after its verdict."""
    from toolhost.config.wirenames import case_notes

    return [*option_notes(config), *description_notes(config), *case_notes(config.servers),
            *config.notes]


def _strings(argv: Sequence[Any], key: str) -> Iterator[tuple[str, str]]:
    """Each literal text of an argv template (groups' items included), with its key path."""
    for i, item in enumerate(argv):
        if isinstance(item, str):
            yield item, f"{key}[{i}]"
        elif isinstance(item, Mapping) and isinstance(item.get("argv"), Sequence):
            yield from _strings(item["argv"], f"{key}[{i}].argv")


_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069]")


def bidi_warnings(config: HostConfig) -> list[Problem]:
    """A warning for each tool description or command argv text holding a bidi control
    (U+202A-202E, U+2066-2069): it shows the text after it in another order than it is
    read, so whoever reviews the config (an editor, a diff, a terminal) sees other text than
    the model reads or the program runs ("Trojan Source")."""
    warnings: list[Problem] = []
    for server in config.servers.values():
        for tool in server.tools.values():
            texts = [(tool.description or "", tool.origin, ".description", "description")]
            argv = tool.backend.options.get("argv") if tool.backend.kind == "command" else None
            if isinstance(argv, Sequence) and not isinstance(argv, str):
                texts += [(as_set(t), tool.backend.origin, w, "command")
                          for t, w in _strings(argv, ".argv")]
            for text, origin, key, what in texts:
                found = _BIDI.search(text)
                if found is not None:
                    reader = "the model reads" if what == "description" else "the program gets"
                    warnings.append(origin.problem(
                        f"tool '{tool.name}': its {what} holds U+{ord(found.group()):04X} "
                        f"({unicodedata.name(found.group()).lower()}), which shows the text "
                        "after it in another order than it is read: a reviewer sees other "
                        f"text than {reader}",
                        key=key, hint="remove the control character"))
    return warnings


def secret_argv_warnings(config: HostConfig) -> list[Problem]:
    """A warning for each command argv element holding one of the config's secrets: the
    arguments of a running program are public on the machine, unlike its environment. An
    imported MCP server's ``mcp: {command: [...]}`` is such a program too."""
    if not config.secrets:
        return []
    warnings: list[Problem] = []
    for server in config.servers.values():
        upstream = server.upstream
        command = getattr(upstream, "command", None)
        if command:
            warnings += _argv_secrets(config, upstream.origin, command, ".command",
                                      "pass it in env: (the program's environment is "
                                      "private to its user)")
        for tool in server.tools.values():
            argv = tool.backend.options.get("argv") if tool.backend.kind == "command" else None
            if isinstance(argv, Sequence) and not isinstance(argv, str):
                warnings += _argv_secrets(config, tool.backend.origin, argv, ".argv",
                                          _ENV_OR_STDIN)
    return warnings


_ENV_OR_STDIN = ("pass it in env: (the program's environment is private to its user) or on "
                 "stdin:, if the program can read it there")


def _argv_secrets(config: HostConfig, origin: Any, argv: Sequence[Any], key: str, hint: str
                  ) -> list[Problem]:
    redactor = config.redactor
    return [origin.problem(
        f"{redactor.redact(text)!r} puts a secret in the program's arguments, which every "
        "user of this machine can read while it runs (ps, /proc/PID/cmdline)", key=where,
        hint=hint)
        for text, where in ((as_set(t), w) for t, w in _strings(argv, key))
        if redactor.spans(text)]


def secret_name_warnings(config: HostConfig) -> list[Problem]:
    """A warning for each server, tool or param whose name holds one of the config's secrets
    (a header value ``X-Client: search`` is a secret, and so is the tool ``search``): every
    name is shown with the secret as ``***``, so a client lists a tool it cannot call by the
    name it was given, and the model sees a param called ``***``."""
    redactor = config.redactor
    if not redactor:
        return []
    warnings: list[Problem] = []

    def check(what: str, name: str, origin: Any, key: str = "") -> None:
        if redactor.spans(name):
            warnings.append(origin.problem(
                f"the {what} name {name!r} holds the value of a secret: toolhost shows it as "
                f"{redactor.redact(name)!r} everywhere (tool lists included), so clients and "
                "the model see that name instead of the one written here",
                key=key, hint="rename it, or take the secret from a value toolhost does not "
                              "hide (see docs/secrets.md, which values are secrets)"))

    for server in config.servers.values():
        for tool in server.tools.values():
            if tool is next(iter(server.tools.values())):
                check("server", server.name, tool.origin)
            check("tool", tool.name, tool.origin)
            for param in sorted(set(map(str, tool.params)) | _placeholder_params(tool)):
                check("param", param, tool.origin, f".params.{param}")
    return warnings


def short_secret_warnings(config: HostConfig,
                          environ: Mapping[str, str] | None = None) -> list[Problem]:
    """A warning for each secret shorter than 4 characters (a secret-named variable such as
    ``MY_TOKEN=a``, a declared or ``auth`` value such as ``pw``), or a plain word shorter than
    8 (``MY_TOKEN=issues``): it is still hidden, wherever
    its text appears, so every message, name and result showing that text shows ``***``
    (``t.y***ml``). Located at the first ``${NAME}`` of the variable that holds it, else at
    the config's first file; the value itself is never shown."""
    import os

    from toolhost.config.interpolate import MIN_AUTO_SECRET, SECRET_VAR
    from toolhost.errors import Problem
    from toolhost.redaction.spell import FOLD_MIN

    # a short plain word (``issues``) is hidden inside every name holding it too
    # (``search_issues`` shows ``search_***``): said, as a value shorter than 4 is
    short = sorted(s for s in config.redactor.secrets
                   if len(s) < MIN_AUTO_SECRET or (len(s) < FOLD_MIN and s.isalpha()))
    if not short:
        return []
    env = os.environ if environ is None else environ
    texts = {}
    for name in config.files:
        try:
            with open(name, encoding="utf-8", errors="replace") as f:
                texts[name] = f.read()
        except OSError:
            continue
    warnings: list[Problem] = []
    for secret in short:
        names = sorted(n for n, v in env.items() if v == secret and SECRET_VAR.search(n))
        where = next(((file, text.find("${" + n), n) for n in names
                      for file, text in texts.items() if "${" + n in text), None)
        what = f"the value of {where[2]}" if where else "a secret of this config"
        if len(secret) < MIN_AUTO_SECRET:
            message = (f"{what} is only {len(secret)} character{'s' * (len(secret) > 1)} "
                       "long: it is hidden wherever that text appears, so every message, "
                       "name and result holding it shows *** in its place")
        else:
            message = (f"{what} is a word of only {len(secret)} letters: it is hidden "
                       "wherever that word appears, inside longer words and names too, so "
                       "every message, name and result holding it shows *** in its place")
        hint = "set the real value (see docs/secrets.md, which values are secrets)"
        if where is None:
            warnings.append(Problem(message, config.files[0] if config.files else "<config>",
                                    hint=hint))
            continue
        file, at, _ = where
        text = texts[file]
        line = text.count("\n", 0, at) + 1
        warnings.append(Problem(message, file, line, at - text.rfind("\n", 0, at), hint=hint))
    return warnings


def _placeholder_params(tool: Any) -> set[str]:
    """The params a command or http tool's templates declare by using them."""
    from toolhost.backends import templating

    kind, opts = tool.backend.kind, tool.backend.options
    try:
        if kind == "command":
            argv = opts.get("argv") or ()
            texts = [t for t, _ in _strings(argv, "")] if isinstance(argv, Sequence) else []
            texts += templating.template_strings([opts.get("stdin"), opts.get("env")])
            return templating.placeholders(texts) - {"item"}
        if kind == "http":
            return (templating.placeholders([str(opts.get("url", ""))], url=True)
                    | templating.placeholders(templating.template_strings(
                        [opts.get(k) for k in ("query", "headers", "form", "json")])))
    except Exception:  # a template that does not parse: its own error says so
        return set()
    return set()
