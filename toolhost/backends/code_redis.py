"""redis-cli's operands are a command the server runs: find where a value chooses code.

``redis-cli [OPTIONS] CMD ARGS...`` sends ``CMD ARGS`` to the server. Some commands run or
load code: ``EVAL SCRIPT`` runs Lua, ``SCRIPT LOAD``/``FUNCTION LOAD`` store it, ``EVALSHA``
and ``FCALL`` pick a stored script or function, ``MODULE LOAD`` loads a shared library into
the server, ``CONFIG SET dir``/``dbfilename`` make the next save write a file anywhere (the
well-known way to plant an ssh key or a cron job), ``REPLICAOF HOST`` copies another
server's data (and its modules' tricks). A value as the command word chooses any of these.
:func:`redis_slots` reads the operands past redis-cli's own options (``--cluster call HOST``
sends a command too) and returns the places where a value chooses code; the data
arguments (``GET {{ key }}``, ``SET k {{ v }}``, ``EVAL <literal> 1 {{ key }}``) stay allowed.
"""

from __future__ import annotations

from collections.abc import Sequence

from toolhost.backends.code_token import Token

__all__ = ["REDIS", "redis_slots", "stdin_is_code"]

REDIS = frozenset({"redis-cli", "valkey-cli", "keydb-cli"})
_OPTION = "option: "  # code_opts.OPTION (imported there: no cycle here)
WORD = "its command word (any Redis command: EVAL runs Lua, CONFIG SET dir writes files)"
LUA = "a Lua script or function the server runs or stores"
LOAD = "a shared library the server loads (MODULE LOAD)"
CONFIG = "a server setting (dir/dbfilename make a save write any file; module and ACL files)"
DEBUG = "a debugging action of the server (DEBUG: reload, crash, set any internal state)"
PEER = "the server it copies data and commands from (REPLICAOF)"
# redis-cli's options that take the next word (from redis-cli.c's parseOptions)
_ARG = frozenset({
    "-h", "-p", "-s", "-a", "--user", "--pass", "-u", "-r", "-i", "-n", "-d", "-D", "-t", "-X",
    "--eval", "--sni", "--cacert", "--cacertdir", "--cert", "--key", "--tls-ciphers",
    "--tls-ciphersuites", "--rdb", "--functions-rdb", "--pipe-timeout", "--pattern",
    "--quoted-pattern", "--count", "--memkeys-samples", "--intrinsic-latency", "--lru-test",
    "--show-pushes"})
# command word -> (its subcommand words that run code, or None: every form does) and how many
# operands after the word(s) are code (None: all of them)
_CODE: dict[str, tuple[frozenset[str] | None, int | None, str]] = {
    "eval": (None, 1, LUA), "eval_ro": (None, 1, LUA), "evalsha": (None, 1, LUA),
    "evalsha_ro": (None, 1, LUA), "fcall": (None, 1, LUA), "fcall_ro": (None, 1, LUA),
    "script": (frozenset({"load"}), None, LUA),
    "function": (frozenset({"load", "restore"}), None, LUA),
    "module": (frozenset({"load", "loadex"}), None, LOAD),
    "config": (frozenset({"set"}), None, CONFIG),
    "replicaof": (None, None, PEER), "slaveof": (None, None, PEER),
    "debug": (None, None, DEBUG), "acl": (frozenset({"setuser", "load"}), None, CONFIG),
    "migrate": (None, 2, PEER),
}




def redis_slots(tokens: Sequence[Token], i: int, name: str) -> list[tuple[str, str, str]]:
    """(key, program, what) of each value after redis-cli at ``i`` that chooses code."""
    j = i + 1
    while j < len(tokens) and tokens[j].text.startswith("-") and not tokens[j].value:
        if tokens[j].text == "--cluster":
            return _cluster(tokens, j + 1, name)
        j += 2 if tokens[j].text in _ARG else 1
    return _command(tokens[j:], name)


def _cluster(tokens: Sequence[Token], j: int, name: str) -> list[tuple[str, str, str]]:
    """``--cluster SUB ...``: a value as SUB chooses the action; ``call HOST CMD ...`` sends
    a command to every node."""
    if j >= len(tokens):
        return []
    if tokens[j].value:
        return [(tokens[j].key, name, _OPTION + WORD)]
    if tokens[j].text.lower() != "call":
        return []
    return _command(tokens[j + 2:], name)


def _command(words: Sequence[Token], name: str) -> list[tuple[str, str, str]]:
    if not words:
        return []
    head = words[0]
    if head.value:
        return [(head.key, name, _OPTION + WORD)]
    found = _CODE.get(head.text.strip().lower())
    if found is None:
        return []
    subs, count, what = found
    rest = list(words[1:])
    if subs is not None:
        if not rest:
            return []
        if rest[0].value:
            return [(rest[0].key, name, _OPTION + what)]  # the model picks the subcommand
        if rest[0].text.strip().lower() not in subs:
            return []
        rest = rest[1:]
    code = rest if count is None else rest[:count]
    return [(t.key, name, _OPTION + what) for t in code if t.value]


def stdin_is_code(tokens: Sequence[Token]) -> bool:
    """Whether redis-cli (``tokens[0]``) reads commands or code from its stdin: with no
    command word it reads one command a line, ``--pipe`` sends stdin as raw protocol, and
    ``-x`` makes stdin the last argument (the script of ``-x EVAL``, ``-x SCRIPT LOAD``),
    ``-X TAG`` the argument written TAG."""
    j, stdin_arg = 1, False
    while j < len(tokens) and tokens[j].text.startswith("-") and not tokens[j].value:
        text = tokens[j].text
        if text in ("--pipe", "--cluster"):
            return True  # raw protocol; cluster subcommands read what they need
        stdin_arg = stdin_arg or text in ("-x", "-X")  # -X TAG: the TAG argument
        j += 2 if text in _ARG else 1
    if j >= len(tokens):
        return True
    return stdin_arg and (tokens[j].value or tokens[j].text.strip().lower() in _CODE)
