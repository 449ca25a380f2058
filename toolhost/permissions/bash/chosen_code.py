"""Options that choose the code a program runs, outside the line (as the
command backends refuse them): ``env -C DIR make`` and ``sudo -D DIR make``
run DIR's Makefile (as ``make -C DIR`` does, which is read) and any relative script there;
``git clone evil::x`` runs the program ``git-remote-evil`` from PATH (``ext::CMD`` a command);
``vim -s KEYS`` and ``--remote-send``/``--remote-expr`` type keys into vim (``:!CMD``);
``less -k FILE``/``--lesskey-src``/``LESSKEY=FILE`` load key bindings that may set
``LESSOPEN=|CMD``; ``ssh -F FILE`` reads a config whose ``ProxyCommand``, ``LocalCommand``
or ``Match exec`` run here. What they run is not on the line, so where a deny or ask Bash
rule exists they are not provable (fail closed)."""

from __future__ import annotations

import re
import shlex

from toolhost.permissions.bash.interpreters import _SSH_VALUE_FLAGS, _VIMS, base

__all__ = ["HELPER", "chosen_code_reason", "chosen_code_spec"]

# a git remote of the form NAME::ADDRESS (gitremote-helpers(7)): git runs git-remote-NAME
HELPER = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*::")
_LESSKEY_VARS = frozenset({"LESSKEY", "LESSKEYIN", "LESSKEY_SRC", "LESSKEY_CONTENT",
                           "LESSKEYIN_SYSTEM", "LESSKEY_SYSTEM"})


def _dir_option(name: str, form: tuple[str, ...]) -> str | None:
    """``env -C DIR``/``--chdir``, ``sudo -D DIR``/``--chdir``/``-R``/``--chroot``."""
    letters = "C" if name == "env" else "DR"
    longs = ("--chdir",) if name == "env" else ("--chdir", "--chroot")
    for word in form[1:]:
        if word == "--" or not word.startswith("-"):
            break  # (env's NAME=value words, then the command)
        key = word.partition("=")[0]
        if key[:2] == "--":
            if len(key) > 3 and any(o.startswith(key) for o in longs):
                return key
        elif any(c in letters for c in key[1:]):
            return word
    return None


def _vim_keys(name: str, form: tuple[str, ...]) -> str | None:
    ex = name == "ex"
    for word in form[1:]:
        if word in ("--remote-send", "--remote-expr") or word.startswith(
                ("--remote-send=", "--remote-expr=")):
            return word.partition("=")[0]
        if word[:1] == "-" and word[1:2] != "-" and ("e" in word or "E" in word):
            ex = True  # Ex mode: -s is its silent flag
        if word == "-s" and not ex:
            return "-s"
    return None


def _lesskey(form: tuple[str, ...]) -> str | None:
    for word in form[1:]:
        key = word.partition("=")[0]
        if key[:2] == "--" and len(key) > 5 and (
                key.startswith("--lesskey") or "--lesskey-src".startswith(key)
                or "--lesskey-file".startswith(key)):
            return key
        if word[:1] == "-" and word[1:2] != "-" and "k" in word:
            return "-k"
    return None


def _ssh_config(form: tuple[str, ...]) -> bool:
    for word in form[1:]:
        if not word.startswith("-") or word == "--":
            return False
        for letter in word[1:]:
            if letter == "F":
                return True
            if letter in _SSH_VALUE_FLAGS:
                break
    return False


def _wget(form: tuple[str, ...]) -> str | None:
    """``wget --config=FILE`` (a wgetrc), ``-e use_askpass=CMD`` (a wgetrc command run as
    ``--use-askpass``: wget runs CMD); other ``-e`` commands (``robots=off``) are data."""
    for k, word in enumerate(form[1:], 1):
        key, eq, value = word.partition("=")
        nxt = form[k + 1] if k + 1 < len(form) else ""
        if key[:2] == "--":
            if len(key) > 5 and "--config".startswith(key):
                return "--config"
            if len(key) > 4 and "--execute".startswith(key):
                command = value if eq else nxt
            else:
                continue
        elif key[:1] == "-" and "e" in key[1:]:
            rest = word[word.index("e", 1) + 1:]
            command = rest or nxt
        else:
            continue
        if command.partition("=")[0].replace("_", "").replace("-", "").strip().lower() \
                == "useaskpass":
            return "-e use_askpass"
    return None


def chosen_code_reason(forms: list[tuple[str, ...]]) -> str | None:
    """Why a form among ``forms`` runs code an option chooses off the line (None: none)."""
    for form in forms:
        if not form:
            continue
        first = form[0]
        if first.startswith("WGETRC="):
            return "WGETRC= gives wget a config file, whose use_askpass runs a command"
        if "=" in first and first.partition("=")[0] in _LESSKEY_VARS:
            return (f"{first.partition('=')[0]}= gives less a key file, which may set "
                    "LESSOPEN to a command the rules cannot see")
        name = base(first)
        if name in ("env", "sudo") and len(form) > 1:
            opt = _dir_option(name, form)
            if opt is not None:
                return (f"{name} {opt} runs its command in another directory, whose "
                        "Makefile or scripts the rules do not read there")
        elif name == "git":
            helper = next((w for w in form[2:] if HELPER.match(w)), None)
            if helper is not None:
                return (f"git is given the remote {helper[:60]!r} of the form NAME::ADDRESS, "
                        "so it runs the program git-remote-NAME (or ext::'s command), which "
                        "the rules cannot see")
        elif name in _VIMS:
            opt = _vim_keys(name, form)
            if opt is not None:
                return (f"{name} {opt} types keys into vim, whose `:!` runs a command the "
                        "rules cannot see")
        elif name in ("less", "more"):
            if any(w[:1] == "+" and "|" in w for w in form[1:]):  # +|m CMD: pipes to CMD
                return "less's `|` command pipes to a shell command the rules cannot see"
            opt = _lesskey(form)
            if opt is not None:
                return (f"less {opt} loads a key file, which may set LESSOPEN to a command "
                        "the rules cannot see")
        elif name == "wget" and (opt := _wget(form)) is not None:
            return (f"wget {opt} names a command (a wgetrc's use_askpass) the rules cannot "
                    "see")
        elif name in ("ssh", "scp", "sftp") and _ssh_config(form):
            return (f"{name} -F reads a config file whose ProxyCommand, LocalCommand or "
                    "Match exec run a command the rules cannot see")
    return None


def chosen_code_spec(spec: str) -> str | None:
    """Why every command an allow rule ``Bash(spec)`` names chooses code off the line
    (``git clone evil::*``, ``env -C d make``, ``vim -s:*``; lint's ``never-allows``)."""
    body = spec[:-2] if spec.endswith((":*", " *")) else spec
    try:
        words = tuple(shlex.split(body))
    except ValueError:
        return None
    if not words:
        return None
    from toolhost.permissions.bash.home_config import writes_go_env
    from toolhost.permissions.bash.loader_env import assigned_loader
    from toolhost.permissions.bash.shell_builtins import builtin_reason
    from toolhost.permissions.shell.parse import Word

    name = base(words[0])  # compgen/complete -C/-F/-W '$(...)', bind -x, fc, PERL5OPT=, go env -w
    reruns = builtin_reason(name, tuple(Word(w, w, True) for w in words[1:])) if name in (
        "compgen", "complete", "bind", "fc") else None
    return (chosen_code_reason([words]) or reruns or assigned_loader([words])
            or writes_go_env(words))
