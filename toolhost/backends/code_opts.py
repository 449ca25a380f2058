"""Find option values that ordinary programs run as a command or as code.

Not only interpreters run code: ``git -c core.fsmonitor=CMD status`` runs ``CMD``, so do
``ssh -o ProxyCommand=CMD``, ``rsync -e CMD``, ``tar --to-command=CMD``, ``sort
--compress-program=CMD``, ``vim -c CMD`` (and ``vim +CMD``), ``gdb -ex CMD`` and ``zip -TT
CMD``. A value in such a place lets the model choose what runs, though it starts with no
``-``: ``code_args`` calls :func:`option_code_slots` for every program it scans.

Two shapes: an option whose whole argument is a command or a script (``rsync -e``), and an
option whose argument is ``KEY=VALUE`` where some keys are commands (``git -c``, ``ssh -o``):
there a value is refused in the key (the model would choose the key) and after a key that
runs something; ``git -c user.name={{ name }}`` stays allowed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from toolhost.backends.code_env import chooses_code
from toolhost.backends.code_ffmpeg import ffmpeg_slots
from toolhost.backends.code_opt_more import ALL_ALIASES, ALL_GIT_SHORT, ALL_OPTIONS, KV_KEYS
from toolhost.backends.code_opt_table import (
    BUNDLE,
    CLUSTERS,
    CMD,
    EXACT_PREFIXES,
    GIT_ARG_OPTIONS,
    GIT_CODE_KEY,
    GIT_CONFIG_ARG,
    GIT_CONFIG_VERBS,
    GIT_RUNS,
    GIT_SUB,
    OWN_OPTIONS_END,
    PHP_CODE_KEY,
    PLUS_COMMAND,
    SQL,
    SQLITE_ARG,
    SSH_CODE_KEY,
    SSH_EXPOSE_KEY,
    SSH_SENDS,
    TAR_ARG_LETTERS,
)
from toolhost.backends.code_redis import redis_slots
from toolhost.backends.code_token import Token
from toolhost.backends.code_tool_config import tool_config_slots

__all__ = ["OPTION", "PLUS", "SUBCOMMAND", "Token", "option_code_slots", "program_family"]




Slot = tuple[str, str, str]  # (key, program, what)
OPTION = "option: "  # what starts so: an option's argument (then what it is)
PLUS = "+command"  # vim's "+CMD"
SUBCOMMAND = OPTION + "its subcommand (git-NAME, any program of that name on PATH, or an alias)"
SCRIPTIN = "a file of keys it types (`:!CMD` runs a command)"
CONFIG_KEY = "the key of a setting it writes (core.pager, alias.x: commands git runs later)"

def program_family(name: str) -> str:
    """The program a name is a variant of (``gtar`` -> ``tar``, ``nvim`` -> ``vim``)."""
    return ALL_ALIASES.get(name, name)


def option_code_slots(tokens: Sequence[Token], i: int, name: str) -> list[Slot]:
    """The positions after the program at ``i`` (named ``name``) whose value an option runs."""
    family = program_family(name)
    written = tool_config_slots(tokens, i, name, family)  # npm config set, gh alias set
    table = ALL_OPTIONS.get(family)
    if table is None:
        return written
    sub, after = len(tokens), table
    if family == "git":
        sub, after = _git_subcommand(tokens, i)
    # sqlite3's and duckdb's operands after the database are statements
    slots: list[Slot] = written + (_sqlite_operands(tokens, i, name)
                                   if family in ("sqlite3", "duckdb") else [])
    if family == "git":
        slots.extend(_git_sub_slots(tokens, sub, name))
    if family == "redis-cli":  # its operands are a command the server runs
        slots.extend(redis_slots(tokens, i, name))
    if family == "ffmpeg":  # -filter:v:0, -/vf FILE, -f lavfi -i GRAPH
        slots.extend(ffmpeg_slots(tokens, i, name, frozenset(table)))
    j = i + 1
    if family == "tar" and j < len(tokens):
        j = _tar_old_style(tokens, j, name, table, slots)
    cluster = CLUSTERS.get(family, "")
    takes = OWN_OPTIONS_END.get(family)
    while j < len(tokens):
        token = tokens[j]
        text = token.text
        if text == "--" and not token.value:
            break
        if takes is not None and not token.value and not text.startswith("-") \
                and _operand(tokens[j - 1].text, j == i + 1, takes):
            break  # the script or main class: what follows is its own, not the program's
        if j == sub:
            table = after
            if j + 1 < len(tokens) and (text, tokens[j + 1].text) in GIT_RUNS:
                runs = tokens[j + 2:][:GIT_RUNS[text, tokens[j + 1].text]]
                slots.extend((t.key, name, OPTION + CMD) for t in runs if t.value)
                break
        if family in PLUS_COMMAND and token.value and text.startswith("+"):
            slots.append((token.key, name, PLUS))
        if family == "vim" and text == "-s" and j + 1 < len(tokens) \
                and tokens[j + 1].value and not _ex_mode(tokens, i, j, name):
            slots.append((tokens[j + 1].key, name, OPTION + SCRIPTIN))
        if family == "emacsclient" and text in ("-e", "--eval") and not token.value:
            # every operand after it is an expression, not only the next
            slots.extend((t.key, name, OPTION + CMD) for t in tokens[j + 1:] if t.value)
            break
        if name == "nvim" and text == "-l" and j + 1 < len(tokens) and tokens[j + 1].value:
            slots.append((tokens[j + 1].key, name, OPTION + "a Lua script it runs"))
        what, glued = _match(table, text, cluster, EXACT_PREFIXES.get(family, frozenset()))
        if what is not None:
            if glued is not None:
                chosen = _code_value(what, glued) if token.value else None
                if chosen is not None:
                    slots.append((token.key, name, OPTION + chosen))
            elif j + 1 < len(tokens) and tokens[j + 1].value \
                    and (chosen := _code_value(what, tokens[j + 1].text)) is not None:
                slots.append((tokens[j + 1].key, name, OPTION + chosen))
                j += 1
            elif takes is not None:
                j += 1  # its literal argument is no operand
            if family == "java" and text == "-jar":
                break  # java -jar APP.jar ARGS...: the rest is the application's
        j += 1
    return slots


def _ex_mode(tokens: Sequence[Token], i: int, j: int, name: str) -> bool:
    """Whether vim runs in Ex mode at ``j`` (``ex``, or ``-e``/``-E`` before: ``-es``),
    where ``-s`` is the silent flag; else ``-s FILE`` types FILE's keys (``:!CMD``)."""
    if name in ("ex", "exim"):
        return True
    return any(not t.value and t.text.startswith("-") and not t.text.startswith("--")
               and t.text[1:].isalpha() and ("e" in t.text[1:] or "E" in t.text[1:])
               for t in tokens[i + 1:j])


def _operand(before: str, first: bool, takes: frozenset[str]) -> bool:
    """Whether a literal word is the interpreter's first operand (its script), going by the
    word before it: the program, a flag, or a complete ``--opt=x``. After an option it does
    not know, the word may be that option's argument: read on (fail closed)."""
    if first or not before.startswith("-"):
        return True
    if before in takes:
        return False  # that option's argument
    return "=" in before or len(before) == 2  # a complete --opt=x, or a short flag


def _sqlite_operands(tokens: Sequence[Token], i: int, name: str) -> list[Slot]:
    """sqlite3's operands after the database are statements (``.shell CMD`` runs CMD)."""
    slots: list[Slot] = []
    operands, j = 0, i + 1
    while j < len(tokens):
        token = tokens[j]
        if not token.value and token.text.startswith("-") and operands == 0:
            j += 2 if (token.text.lstrip("-") and "-" + token.text.lstrip("-") in SQLITE_ARG) \
                or (name == "duckdb" and token.text in ("-c", "-s")) else 1
            continue
        if operands >= 1 and token.value:
            slots.append((token.key, name, OPTION + SQL))
        operands += 1
        j += 1
    return slots


def _git_subcommand(tokens: Sequence[Token], i: int) -> tuple[int, dict[str, str]]:
    """The subcommand's index (the first operand, past ``-C DIR`` / ``-c KEY=V`` and long
    options) and the options that run something after it."""
    j = i + 1
    while j < len(tokens) and tokens[j].text.startswith("-"):
        j += 2 if tokens[j].text in GIT_ARG_OPTIONS else 1
    short = ALL_GIT_SHORT.get(tokens[j].text, {}) if j < len(tokens) and not tokens[j].value \
        else {}
    return j, GIT_SUB | short


def _git_sub_slots(tokens: Sequence[Token], sub: int, name: str) -> list[Slot]:
    """A value as git's subcommand (``git {{ v }}``: any ``git-NAME`` program on PATH, an
    alias of the repository's config); and ``git config KEY VALUE`` that writes a setting
    git runs later (``core.pager``, ``alias.x``, ``core.fsmonitor``)."""
    if sub >= len(tokens):
        return []
    if tokens[sub].value:
        return [(tokens[sub].key, name, SUBCOMMAND)]
    if tokens[sub].text != "config":
        return []
    operands: list[Token] = []
    j = sub + 1
    while j < len(tokens):
        token = tokens[j]
        if not token.value and token.text.startswith("-"):
            j += 2 if token.text in GIT_CONFIG_ARG else 1
        elif not operands and not token.value and token.text in GIT_CONFIG_VERBS:
            j += 1  # git config set KEY VALUE (git 2.46)
        else:
            operands.append(token)
            j += 1
    if len(operands) < 2:
        return []  # a read (git config KEY), or a key alone
    key, value = operands[0], operands[1]
    if key.value:
        return [(key.key, name, OPTION + CONFIG_KEY)]
    if value.value and re.match(GIT_CODE_KEY, key.text.strip()):
        return [(value.key, name, OPTION + CMD)]
    return []


def _tar_old_style(tokens: Sequence[Token], j: int, name: str, table: dict[str, str],
                   slots: list[Slot]) -> int:
    """tar's old-style first argument (``tar xIf CMD a.tar``): letters with no dash, each
    letter that takes an argument taking the next word in turn. Returns where options go on."""
    text = tokens[j].text
    if tokens[j].value or not text.isascii() or not text.isalpha():
        return j
    nxt = j + 1
    for letter in text:
        if letter not in TAR_ARG_LETTERS:
            continue
        what = table.get("-" + letter)
        if what is not None and nxt < len(tokens) and tokens[nxt].value:
            slots.append((tokens[nxt].key, name, _label(what)))
        nxt += 1
    return min(nxt, len(tokens))


def _match(table: dict[str, str], text: str, cluster: str = "",
           exact: frozenset[str] = frozenset()) -> tuple[str | None, str | None]:
    """(what, the text after the option when glued to it, or None when the value is the
    next argument); (None, None) when ``text`` is no such option. ``cluster``: the program
    reads bundled short options (getopt), so ``-xvI CMD`` and ``-xI{{ v }}`` are ``-I``; it
    holds the letters that take an argument (the rest of the bundle is theirs). ``exact``:
    the program's own long options that are a prefix of one of the table's."""
    if text in table:
        return table[text], None
    abbreviated = _abbreviation(table, text, exact)
    if abbreviated is not None:
        return abbreviated
    # the longest first: gdb's -ex before a -e, zip's -TT glued (-TTCMD)
    for option, what in sorted(table.items(), key=lambda item: -len(item[0])):
        if option.startswith("--") and text.startswith(option + "="):
            return what, text[len(option) + 1:]
        if not option.startswith("--") and text.startswith(option) \
                and not text.startswith("--"):
            return what, text[len(option):]
    if cluster and text.startswith("-") and not text.startswith("--"):
        for at in range(1, len(text)):
            letter = text[at]
            if text.startswith("{", at) and at > 1:
                # a value right after flags (`rsync -a{{ v }}`) adds letters to the bundle:
                # `etouch x` makes it `-a -e 'touch x'`
                return BUNDLE, text[at:]
            if not (letter.isascii() and letter.isalnum()):
                break  # '=', ...: no more option letters
            bundled = table.get("-" + letter)
            if bundled is not None:
                return bundled, text[at + 1:] or None
            if letter in cluster:
                break  # the rest of the bundle is this option's argument
    return None, None


def _abbreviation(table: dict[str, str], text: str, exact: frozenset[str]
                  ) -> tuple[str, str | None] | None:
    """A long option written shorter: getopt_long, git's parse-options, curl, argparse and
    the like take any unambiguous start of a long option (``tar --to-com=CMD`` is
    ``--to-command``, ``git clone --upload-pa=CMD``, ``curl --conf FILE``). Fail closed: a
    start shared by two options (an error for the program) counts too; a real option of
    the program that is itself such a start (``tar --checkpoint``) is not one."""
    name, sep, rest = text.partition("=")
    if not name.startswith("--") or len(name) < 3 or name in exact or name in table:
        return None
    found = [what for option, what in table.items()
             if option.startswith("--") and option.startswith(name)]
    if not found:
        return None
    # a command before a KEY=VALUE reading: the stricter of two readings
    what = next((w for w in found if not w.startswith("kv-")), found[0])
    return what, (rest if sep else None)


def _code_value(what: str, text: str) -> str | None:
    """What the value printed in ``text`` (the option's argument, a template that prints
    one) chooses, or None: always the option's ``what`` for a command; for KEY=VALUE, a
    command when the key is printed or is a key that runs something (an ssh key that opens a
    port or sends your environment: that)."""
    if not what.startswith("kv-"):
        return what
    key, sep = _ssh_key(text) if what == "kv-ssh" else text.partition("=")[:2]
    if not sep or "{" in key:
        return CMD  # the model would choose the key (or the whole setting)
    if what == "kv-env":
        return CMD if chooses_code(key.strip()) else None
    pattern = {"kv-git": GIT_CODE_KEY, "kv-php": PHP_CODE_KEY, **KV_KEYS}.get(what,
                                                                            SSH_CODE_KEY)
    if re.match(pattern, key.strip()):
        return CMD
    return SSH_SENDS if what == "kv-ssh" and re.match(SSH_EXPOSE_KEY, key) else None


def _ssh_key(text: str) -> tuple[str, str]:
    """ssh_config's keyword of ``-o TEXT`` as ssh reads it (readconf's strdelim): past
    leading blanks, up to the first blank or '=', a double-quoted word unquoted
    (``"ProxyCommand"=CMD`` is ProxyCommand); and '=' or ' ' when a value follows, else ''."""
    text = text.lstrip(" \t\r\n")
    if text.startswith('"'):
        end = text.find('"', 1)
        if end < 0:
            return text, ""
        key, rest = text[1:end], text[end + 1:]
    else:
        cut = min((at for at in map(text.find, " \t\r\n=") if at >= 0), default=len(text))
        key, rest = text[:cut], text[cut:]
    return key, ("=" if rest[:1] in (" ", "\t", "\r", "\n", "=") else "")


def _label(what: str) -> str:
    return OPTION + ("a command" if what.startswith("kv-") else what)
