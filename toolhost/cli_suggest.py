"""Argument errors that say what was meant: ``toolhost validat`` -> "did you mean 'validate'?".

argparse names a wrong choice (a command, a subcommand, a client) or an unknown option but not
the near miss a person typed it for (Python 3.14 added that; toolhost runs on 3.10+).
``SuggestingParser`` is the parser class of every command line: its ``error`` adds the closest
known word, matched with ``difflib`` as the config's "did you mean" hints are.
"""

from __future__ import annotations

import argparse
import contextvars
import re
from collections.abc import Iterable
from typing import Any, NoReturn

__all__ = ["SuggestingParser", "is_config", "suggestion"]

_CHOICE = re.compile(r"invalid choice: '([^']*)' \(choose from (.*)\)$")
_UNKNOWN = "unrecognized arguments: "
_REQUIRED = "the following arguments are required: "
_CONFIG_ARGS = {"config", "CONFIG", "FILE"}

# the command line's deepest parser so far: argparse reports an option no subcommand took
# from the top parser, which cannot tell whose options to offer. A context variable, not a
# class attribute: two command lines parsed at once (threads, tasks) each keep their own
_DEEPEST: contextvars.ContextVar[argparse.ArgumentParser | None] = contextvars.ContextVar(
    "toolhost_deepest_parser", default=None)
# the words no parser took, as given: argparse's message joins them with spaces, so a JSON
# argument's words ('{"command": "python3 -I x"}') read back as options it never held
_EXTRAS: contextvars.ContextVar[tuple[str, ...]] = contextvars.ContextVar(
    "toolhost_extra_words", default=())


def suggestion(word: str, known: Iterable[str]) -> str | None:
    """The known word closest to ``word``, when one is close enough to be a typo."""
    from toolhost.typos import close_matches

    found = close_matches(word, list(known), n=1, cutoff=0.6)
    return found[0] if found else None


class SuggestingParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors name the closest choice or option; its subparsers
    are of the same class (argparse makes them with the parent's type)."""

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        _DEEPEST.set(self)  # a subcommand's parser is entered after its parent's
        return super().parse_known_args(args, namespace)

    def parse_args(self, args: Any = None, namespace: Any = None) -> Any:
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:  # as argparse's own, with the words kept whole for the hint
            token = _EXTRAS.set(tuple(extras))
            try:
                self.error(_UNKNOWN + " ".join(extras))
            finally:
                _EXTRAS.reset(token)
        return parsed

    def error(self, message: str) -> NoReturn:
        if message.startswith(_REQUIRED):
            message = self._only_required(message)
        super().error(message + self._hint(message))

    def _only_required(self, message: str) -> str:
        """argparse's list of missing arguments without the positionals that may be left
        out (``run``'s ``-- CLI_ARGS``, ``call``'s ``key=value``): named there, they read
        as required too."""
        optional = {str(a.metavar if a.metavar is not None else a.dest) for a in self._actions
                    if not a.option_strings and a.nargs in ("*", "?", argparse.REMAINDER)}
        names = message[len(_REQUIRED):].split(", ")
        kept = [name for name in names if name not in optional]
        return _REQUIRED + ", ".join(kept) if kept else message

    def _hint(self, message: str) -> str:
        choice = _CHOICE.search(message)
        if choice:
            known = re.findall(r"'([^']*)'", choice[2])
            near = suggestion(choice[1], known)
            return f" (did you mean '{near}'?)" if near else ""
        if message.startswith(_UNKNOWN):
            words = _EXTRAS.get() or tuple(message[len(_UNKNOWN):].split())
            # (JSON right after an unknown option is that option's value: its hint says it)
            hints = [hint for i, word in enumerate(words)
                     if (hint := self._unknown(word) if word.startswith("-")
                         else "" if i and words[i - 1].startswith("-")
                         and "=" not in words[i - 1] else self._json_word(word))]
            return f" ({'; '.join(hints)})" if hints else (
                " (see the command's --help for its options and examples)")
        if message.startswith(_REQUIRED):
            missing = [w.strip() for w in message[len(_REQUIRED):].split(",")]
            if missing and missing[0] in _CONFIG_ARGS:
                return _config_hint()
            picks = [f"{name}: one of {', '.join(sorted(map(str, a.choices)))}"
                     for a in self._actions if not a.option_strings and a.choices
                     and not isinstance(a, argparse._SubParsersAction)
                     and (name := str(a.metavar or a.dest)) in missing]
            if picks:  # `install` alone: which clients, then the config (as others say it)
                config = _config_hint()[2:-1] if set(missing) & set(_CONFIG_ARGS) else ""
                return f" ({'; '.join([*picks, *([config] if config else [])])})"
            choices = [sorted(a.choices) for a in self._actions
                       if isinstance(a, argparse._SubParsersAction) and a.choices
                       and str(a.metavar or a.dest) in missing]
            if choices:  # `toolhost permissions` alone: which subcommands there are
                return (f" (one of: {', '.join(choices[0])}; `{self.prog} SUBCOMMAND --help`"
                        " shows one)")
        return ""


    def _json_word(self, word: str) -> str:
        """A JSON object or array given where the command takes it only after an option
        (``permissions check CONFIG Bash '{"command": "ls"}'``): that option, with the word."""
        if not word.lstrip().startswith(("{", "[")):
            return ""
        command = _DEEPEST.get() or self
        takes = [a.option_strings[-1] for a in command._actions
                 if a.option_strings and a.help != argparse.SUPPRESS
                 and ("JSON" in str(a.metavar or "") or "{...}" in str(a.metavar or ""))]
        if not takes:
            return ""
        from toolhost.excerpt import cut

        shown = cut(word.strip(), 60)
        if "--input" in takes or len(takes) == 1:
            option = "--input" if "--input" in takes else takes[0]
            return f"JSON goes after an option: {option} '{shown}'"
        return f"JSON goes after an option ({', '.join(takes)}): e.g. {takes[0]} '{shown}'"

    def _unknown(self, word: str) -> str:
        """What an option no parser took was probably meant as: a near option of the command
        typed or of toolhost itself, an option of toolhost's written after the command, or
        one the command has not (``permissions check --config x`` said "did you mean
        '--config'?": it is another command's)."""
        key = word.split("=", 1)[0]
        command = _DEEPEST.get() or self
        if key == "--config" and any(str(a.dest).startswith("config") or a.metavar in
                                     _CONFIG_ARGS for a in command._actions
                                     if not a.option_strings):
            return (f"'{key}' is not an option of `{command.prog}`: the config file is its "
                    "first argument, with no option before it")
        own = _options(self, nested=command is self)
        near = suggestion(key, sorted(_options(command, nested=False) | own))
        if near and near != key:
            return f"'{word}': did you mean '{near}'?"
        if command is self:
            return ""
        if key in own:
            return (f"'{key}' is an option of toolhost itself: write it before the command "
                    f"(toolhost {key} {command.prog.partition(' ')[2]} ...)")
        owners = [sub.prog for sub in _commands() if sub.prog != command.prog
                  and key in _options(sub, nested=False)]
        if owners:  # another command's (install --entry-only is mcp-config's)
            named = [f"`{prog}`" for prog in owners[:3]]
            listed = named[0] if len(named) == 1 else ", ".join(named[:-1]) + f" and {named[-1]}"
            return (f"'{key}' is not an option of `{command.prog}`; {listed} "
                    f"{'has' if len(named) == 1 else 'have'} it")
        return f"'{key}' is not an option of `{command.prog}` (its --help lists them)"


def _config_hint() -> str:
    """A config argument left out: the config files here, as the command to run, or how to
    write one."""
    import os

    try:
        here = sorted(n for n in os.listdir(".")[:1000]
                      if n.endswith((".yaml", ".yml", ".toml")) and not n.startswith(".")
                      and os.path.isfile(n) and is_config(n))
    except OSError:
        return ""
    if not here:  # (a case file, a CI workflow, a docker-compose.yml: no config)
        return " (there is no config file here: `toolhost init` writes toolhost.yaml)"
    here.sort(key=lambda n: not n.startswith("toolhost."))  # the likely one first
    return (f" (name the config file; the ones here: {', '.join(here[:5])}"
            + (", ..." if len(here) > 5 else "") + ")")


_TOP_KEY = re.compile(rb"^toolhost[ \t]*[:=]", re.M)


def is_config(name: str) -> bool:
    """Whether the file ``name`` sets the top-level ``toolhost:`` key every config has,
    within its first 8 KiB (a case file, a CI workflow or a docker-compose.yml does not)."""
    import os

    try:
        fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO put there is not awaited
    except OSError:
        return False
    try:
        return bool(_TOP_KEY.search(os.read(fd, 8192)))
    except OSError:
        return False
    finally:
        os.close(fd)


def _options(parser: argparse.ArgumentParser, *, nested: bool = True) -> set[str]:
    """Every option string of ``parser`` and (``nested``) of the subcommand parsers it
    holds."""
    found: set[str] = set()
    for action in parser._actions:
        if action.help != argparse.SUPPRESS:
            found.update(s for s in action.option_strings if s.startswith("--"))
        if nested and isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                found |= _options(sub)
    return found


def _commands(parser: argparse.ArgumentParser | None = None) -> list[argparse.ArgumentParser]:
    """Every (sub)command parser under ``parser`` (toolhost's whole command line: a run
    builds only the command it names), each once."""
    if parser is None:
        from toolhost.cli import build_parser

        parser = build_parser()
    found: list[argparse.ArgumentParser] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):
                found.append(sub)
                found += _commands(sub)
    return found
