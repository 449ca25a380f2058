"""Files of the home folder that choose the code a program runs (besides the
ones a line names: ``ssh -F``, ``less -k``, ``wget --config``). ``~/.ssh/config``'s
``ProxyCommand``, ``LocalCommand``, ``KnownHostsCommand``, ``Match exec`` (and an
``Include`` or a provider library) run for ``ssh h``, ``scp``, ``sftp``, an rsync or a git
that reaches a host; ``~/.wgetrc``'s ``use_askpass`` runs for ``wget``; a lesskey file's
``#env`` section sets ``LESSOPEN=|CMD`` for ``less f`` (also when its output is a pipe) and
``git -p``; go's env file (``go env -w``) sets ``GOFLAGS=-toolexec=CMD`` or ``CC`` for every
later go build. Checked with less 590 and wget 1.21. Each file is read bounded (never a FIFO
opened blocking); an unreadable one fails closed. ssh reads the home of the user's passwd
entry, not ``$HOME``: both are read. ssh's ``Include`` is followed as ssh follows it (globs
in lexical order, a relative path under ``~/.ssh`` or ``/etc/ssh``; checked with OpenSSH
9.2's ``ssh -G``, which runs a ``Match exec`` of an included file): a file it names that
runs a command, or cannot be read, or a chain past ``MAX_INCLUDED`` files, is not provable;
one that is not there is nothing. The system files (``/etc/ssh/ssh_config`` and what it
includes, ``/etc/wgetrc``, less's ``/etc/syslesskey``) are the administrator's, read only
where this process could have written them (as root, in a container): an earlier call could
have put a command there."""

from __future__ import annotations

import fnmatch
import functools
import glob
import os
import pwd
import re
import shlex
from collections.abc import Callable

from toolhost.permissions.bash.fresh_files import may_write
from toolhost.permissions.bash.interpreters import base
from toolhost.permissions.fileread import writable_here
from toolhost.permissions.git.commands import CONTACTS, git_subcommand
from toolhost.permissions.later.makefile import read_text
from toolhost.permissions.shell.parse import ParsedCommand

__all__ = ["home_config_reason", "writes_go_env"]

_SSH = re.compile(r"(?im)^[ \t]*(?:proxycommand|localcommand|knownhostscommand|xauthlocation|"
                  r"pkcs11provider|securitykeyprovider|match\b.*\bexec)\b")
_INCLUDE = re.compile(r"(?im)^[ \t]*include(?:[ \t]*=[ \t]*|[ \t]+)(.*)$")
MAX_INCLUDED = 32  # files of one ssh config's Include chain looked at (fail closed past them)
_LISTED = 4096  # entries of a folder an Include's glob lists (fail closed past them)
_SYSTEM = {"ssh": ["/etc/ssh/ssh_config"], "wget": ["/etc/wgetrc"],
           "less": ["/etc/syslesskey", "/etc/sysless"]}
_WGET = re.compile(r"(?im)^[ \t]*use[_-]?askpass[ \t]*=")
_LESS = re.compile(r"(?i)#env|LESSOPEN|LESSCLOSE")
_GO = re.compile(r"(?m)^(?:GOFLAGS|CC|CXX|FC|AR|GCCGO|PKG_CONFIG|CGO_\w+|GOTOOLCHAIN|GOROOT|"
                 r"GOENV|GOTOOLDIR)=")
_CURLRC = re.compile(r"(?im)^[ \t]*(?:-[A-Za-z]*[oOJK]|(?:--?)?(?:output|remote-name|"
                     r"remote-header-name|config|create-dirs|output-dir|etag-save|dump-header|trace|"
                     r"cookie-jar|hsts|alt-svc|libcurl|stderr)\b)")
_SSH_PROGRAMS = frozenset({"ssh", "scp", "sftp", "slogin", "sshfs", "ssh-copy-id"})
_READERS = _SSH_PROGRAMS | {"rsync", "git", "wget", "less", "go"}


def _passwd_home() -> str | None:
    """The home of the user's passwd entry (where ssh looks, whatever ``$HOME`` says)."""
    return _pw_dir(os.getuid())


@functools.lru_cache(maxsize=4)
def _pw_dir(uid: int) -> str | None:
    try:
        return pwd.getpwuid(uid).pw_dir
    except (KeyError, OSError):
        return None


def _homes() -> list[str]:
    homes = [os.path.expanduser("~"), _passwd_home()]
    return list(dict.fromkeys(h for h in homes if h))


def _found(paths: list[str], pattern: re.Pattern[str]) -> str | None:
    """The first of ``paths`` that is there and matches ``pattern`` or cannot be read."""
    for path in paths:
        text, there = read_text(path)
        if there and (text is None or pattern.search(text)):
            return path
    return None


def _ssh_found(paths: list[str]) -> str | None:
    """``_found`` for ssh's files: the first of them, or of the files they include, that
    runs a command or cannot be read."""
    # (a file and the folder a relative Include of it is under: ~/.ssh for the user's,
    # the system file's own, /etc/ssh, for the administrator's)
    system = _SYSTEM["ssh"]
    todo = [(path, os.path.dirname(path) if path in system else None) for path in paths]
    seen: set[str] = set()
    while todo:
        path, under = todo.pop(0)
        if path in seen:
            continue  # (ssh itself stops a loop at its depth limit)
        seen.add(path)
        if len(seen) > MAX_INCLUDED:
            return path
        text, there = read_text(path)
        if not there:
            continue
        if text is None or _SSH.search(text):
            return path
        for found in _INCLUDE.finditer(text):
            named = _included(found[1], under)
            if named is None:
                return path  # (a token or variable: what it names is not known here)
            todo += [(name, under) for name in named]
    return None


def _included(words: str, under: str | None) -> list[str] | None:
    """The files an ``Include`` line names, as ssh expands them (None: not knowable here);
    ``under``: the system folder a relative name is in, None for the user's files."""
    try:
        names = shlex.split(words, comments=True)
    except ValueError:
        return None
    out: list[str] = []
    for name in names:
        if "%" in name or "$" in name:
            return None
        if name.startswith("~") and under is None:
            name = os.path.expanduser(name)
        if not os.path.isabs(name):
            name = os.path.join(under or os.path.join(_homes()[0], ".ssh"), name)
        matched = _matching(name)
        if matched is None:
            return None
        out += matched
    return out


def _matching(name: str) -> list[str] | None:
    """The files a name with a glob in its last part matches, in lexical order, as ssh reads
    them (None: a glob in a folder's part, or a folder of more than ``_LISTED`` entries:
    either could make every decision walk the disk)."""
    head, tail = os.path.split(name)
    if glob.has_magic(head):
        return None
    if not glob.has_magic(tail):
        return [name]
    found: list[str] = []
    try:
        with os.scandir(head) as entries:
            for k, entry in enumerate(entries):
                if k >= _LISTED:
                    return None
                # (glob(3), as ssh uses it: a leading dot is matched only by a dot)
                if (entry.name[:1] != "." or tail[:1] == ".") \
                        and fnmatch.fnmatchcase(entry.name, tail):
                    found.append(entry.path)
    except OSError:
        return []  # (no such folder: nothing is included)
    return sorted(found)


# reads the files a program would read, and names the first that chooses code (or None)
Finder = Callable[[list[str]], str | None]


def _which(form: tuple[str, ...]) -> tuple[list[str], Finder, str] | None:
    """The home files ``form``'s program reads that may choose code, with what to look for."""
    name = base(form[0])
    if name not in _READERS:
        return None  # (the common case: no home folder looked up)
    kind = name
    if name == "rsync":
        kind = "ssh" if any(":" in w for w in form[1:] if not w.startswith("-")) else ""
    elif name == "git":
        found = git_subcommand(form[1:])
        kind = "ssh" if found is not None and found[0] in CONTACTS else ""
        if not kind and any(w in ("-p", "--paginate")
                            for w in form[1:found[1] + 1 if found else None]):
            kind = "less"
    elif name in _SSH_PROGRAMS:
        kind = "ssh"
    if not kind:
        return None
    homes = _homes()
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(homes[0], ".config")
    name = kind
    system = writable_here(_SYSTEM.get(name, []))
    if name == "ssh":
        return ([os.path.join(h, ".ssh", "config") for h in homes] + system, _ssh_found,
                "runs a command (ProxyCommand, LocalCommand, Match exec ...)")
    if name == "wget":
        return ([os.path.join(homes[0], ".wgetrc"), *system],
                functools.partial(_found, pattern=_WGET), "runs use_askpass")
    if name == "less":
        return ([os.path.join(homes[0], n) for n in (".lesskey", ".less")]
                + [os.path.join(xdg, "lesskey"), *system],
                functools.partial(_found, pattern=_LESS), "sets LESSOPEN, a command less runs")
    if name == "go" and len(form) > 1 and form[1] not in ("version", "help", "env", "fmt"):
        env = os.path.join(xdg, "go", "env")
        return ([env], functools.partial(_found, pattern=_GO),
                "sets GOFLAGS, CC or the toolchain a go build runs")
    return None


def writes_go_env(form: tuple[str, ...]) -> str | None:
    """Why ``form`` is ``go env -w``: it writes go's env file, which later go commands read."""
    if form and base(form[0]) == "go" and form[1:2] == ("env",) and any(
            w == "-w" or w.startswith("-w=") for w in form[2:]):
        return ("go env -w writes go's env file, whose GOFLAGS or CC every later go "
                "command runs: not provable")
    return None


def _curl(form: tuple[str, ...]) -> str | None:
    """``curl -K FILE`` (a config naming ``output``: a file written that the line does not
    name, a hook or a ``~/.bashrc``), ``CURL_HOME=``; else the home ``.curlrc`` read."""
    if form[0].startswith("CURL_HOME="):
        return "CURL_HOME= names another .curlrc"
    if base(form[0]) != "curl":
        return None
    for word in form[1:]:
        if word == "--config" or (word[:1] == "-" and word[1:2] != "-" and "K" in word):
            return f"curl {word} reads a config file that may name the file it writes"
    homes = _homes()
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(homes[0], ".config")
    rcs = [os.path.join(p, ".curlrc") for p in (os.environ.get("CURL_HOME"), homes[0], xdg)
           if p]
    path = _found(list(dict.fromkeys(rcs)), _CURLRC)
    return None if path is None else f"{path!r} may name the file curl writes"


def _npm_exec(form: tuple[str, ...], cwd: str) -> str | None:
    """``npx X``, ``npm exec``/``x``/``explore``/``init X``/``create X`` run their command
    through the ``script-shell`` an ``.npmrc`` names (npm 11 ran a project's for ``npm exec
    -- ls``): the rc files are read as for ``npm run`` (``package_files.rc_reason``)."""
    if _npm_execs(form):
        from toolhost.permissions.later.package_files import rc_reason

        return rc_reason(cwd)
    return None


def _npm_execs(form: tuple[str, ...]) -> bool:
    name = base(form[0])
    if name not in ("npm", "npx"):
        return False
    words = [w for w in form[1:] if not w.startswith("-")]
    return name == "npx" or (name == "npm" and bool(words) and (
        words[0] in ("exec", "x", "explore") or (words[0] in ("init", "create", "innit")
                                                   and len(words) > 1)))


def home_config_reason(forms: list[tuple[str, ...]], cwd: str | None = None,
                       parsed: ParsedCommand | None = None) -> str | None:
    """Why a form among ``forms`` runs code a home config file chooses (None: none does).
    Call only where a deny or ask Bash rule exists. With ``parsed`` (the whole line), a
    line that may write a file before the program reads its own is not provable either."""
    for form in forms:
        if not form:
            continue
        if (why := writes_go_env(form) or (_curl(form) if "curl" in "".join(form).lower()
                                           else None)) is not None:
            return why
        if cwd is not None and (why := _npm_exec(form, cwd)) is not None:
            return why
        which = _which(form)
        name = base(form[0])
        reads = which is not None or name == "curl" or _npm_execs(form)
        if parsed is not None and reads and may_write(parsed, name, home=not _npm_execs(form)):
            return (f"the line may write a file before {name} reads its configuration "
                    "(the files it reads are looked at before the line runs)")
        if which is not None and (path := which[1](which[0])) is not None:
            return f"{path!r} {which[2]}, which the rules cannot see"
    return None
