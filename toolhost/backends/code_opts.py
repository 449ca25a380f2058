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
from collections.abc import Callable, Sequence
from typing import Protocol

__all__ = ["OPTION", "PLUS", "Token", "option_code_slots", "program_family"]


class Token(Protocol):
    """A word of a command template as the code scans read it (``code_args``'s token)."""

    @property
    def key(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def value(self) -> bool: ...


Slot = tuple[str, str, str]  # (key, program, what)
OPTION = "option: "  # what starts so: an option's argument (then what it is)
PLUS = "+command"  # vim's "+CMD"

# git config keys that name a program, a shell command, a hook or a file of more config
_GIT_CODE_KEY = re.compile(
    r"^(alias\.|include\.|includeif\.|url\.|pager\.|filter\.|diff\..*\.(textconv|command)$"
    r"|merge\..*\.driver$|difftool\.|mergetool\.|sequence\.editor$|gpg\.|credential"
    r"|remote\..*\.(uploadpack|receivepack|proxy|vcs)$|protocol\.|uploadpack\.|receive\."
    r"|http\.|core\.(pager|editor|sshcommand|fsmonitor|hookspath|askpass|gitproxy|attributesfile"
    r"|excludesfile|worktree)$|.*(command|cmd|program|helper|hook|exec|path|proxy|editor"
    r"|pager|driver|tool|askpass)$)", re.IGNORECASE)
# ssh_config keywords that run a command, load a library or read more config
_SSH_CODE_KEY = re.compile(
    r"^(proxycommand|localcommand|permitlocalcommand|knownhostscommand|remotecommand|match"
    r"|include|pkcs11provider|securitykeyprovider|identityagent|controlpath|controlmaster"
    r"|sshaskpass|proxyjump|proxyusefdpass|.*command)$", re.IGNORECASE)

_CMD = "a command"
_SQL = "statements and its own commands (which run programs)"
# a directory whose own configuration runs code: a repository's .git/config (core.fsmonitor,
# hooks), a Makefile, a Cargo.toml's build.rs, a package.json's scripts
_DIR = "a directory whose configuration, hooks or build scripts it runs"
_OUT = "an output file, or '|COMMAND' (a shell command it pipes to)"
_MOD = "a module, library or archive of code it loads"
_LIBDIR = "a directory it loads code from"
_TPL = "a template it evaluates (which runs commands)"
# a value glued after a bundle of flags: it can add an option that runs code
_BUNDLE = "a bundle of short options (the value can add one that runs code)"
# php.ini settings that name code to run or load (php -d KEY=VALUE)
_PHP_CODE_KEY = re.compile(r"^(auto_prepend_file|auto_append_file|include_path|extension"
                           r"|zend_extension|extension_dir|sendmail_path|opcache\.preload"
                           r"|user_ini\.filename|.*(path|file|dir|command|cmd))$",
                           re.IGNORECASE)
# program -> option -> what its argument is ("kv-git"/"kv-ssh": KEY=VALUE, else a command)
_OPTIONS: dict[str, dict[str, str]] = {
    # git's own options, before the subcommand (after it, -c is commit's or grep's)
    "git": {"-c": "kv-git", "--config-env": "kv-git", "--exec-path": _CMD, "-C": _DIR,
            "--git-dir": _DIR, "--work-tree": _DIR},
    "ssh": {"-o": "kv-ssh", "-F": "a configuration file", "-I": "a library"},
    "scp": {"-o": "kv-ssh", "-F": "a configuration file", "-S": _CMD},
    "sftp": {"-o": "kv-ssh", "-F": "a configuration file", "-S": _CMD, "-D": _CMD},
    "rsync": {"-e": _CMD, "--rsh": _CMD, "--rsync-path": _CMD},
    "tar": {"--to-command": _CMD, "-I": _CMD, "--use-compress-program": _CMD,
            "--checkpoint-action": _CMD, "--info-script": _CMD, "--new-volume-script": _CMD,
            "-F": _CMD, "--rsh-command": _CMD, "--rmt-command": _CMD},
    "sort": {"--compress-program": _CMD},
    "vim": {"-c": _CMD, "--cmd": _CMD, "-S": "a script file", "-u": "a script file"},
    "gdb": {"-ex": _CMD, "-iex": _CMD, "--eval-command": _CMD, "-x": "a script file",
            "-ix": "a script file", "--command": "a script file"},
    "zip": {"-TT": _CMD, "--unzip-command": _CMD},
    "man": {"-P": _CMD, "--pager": _CMD, "-H": _CMD, "--html": _CMD,
            "-C": "a configuration file", "--config-file": "a configuration file"},
    "wget": {"-e": _CMD, "--execute": _CMD, "--use-askpass": _CMD,
             "--config": "a configuration file"},
    # su USER -c CMD: the command comes after the user (code_args stops at the operand)
    "su": {"-c": _CMD, "--command": _CMD, "--session-command": _CMD, "-s": _CMD,
           "--shell": _CMD},
    "curl": {"-K": "a configuration file", "--config": "a configuration file"},
    "make": {"-f": "a script file", "--file": "a script file", "--makefile": "a script file",
             "-E": _CMD, "--eval": _CMD, "-C": _DIR, "--directory": _DIR},
    "cargo": {"--manifest-path": _DIR, "-C": _DIR, "--config": "a configuration file"},
    "npm": {"--prefix": _DIR, "-C": _DIR, "--script-shell": _CMD,
            "--userconfig": "a configuration file", "--globalconfig": "a configuration file"},
    "pnpm": {"--dir": _DIR, "-C": _DIR, "--script-shell": _CMD},
    "yarn": {"--cwd": _DIR},
    "awk": {"-f": "a script file", "--file": "a script file"},
    "sed": {"-f": "a script file", "--file": "a script file"},
    "script": {"-c": _CMD, "--command": _CMD},
    "runuser": {"-c": _CMD, "--command": _CMD},
    "npx": {"-c": _CMD, "--call": _CMD},
    "emacs": {"--eval": _CMD, "-eval": _CMD, "-f": _CMD, "--funcall": _CMD,
              "-l": "a script file", "--load": "a script file", "--script": "a script file",
              "-x": "a script file"},
    # (backends24) a file, module or directory the program loads as code or as its own
    # configuration: the model would choose what runs as surely as with -e
    "node": {"-r": _MOD, "--require": _MOD, "--import": _MOD, "--loader": _MOD,
             "--experimental-loader": _MOD, "--env-file": "a configuration file"},
    "perl": {"-M": _MOD, "-m": _MOD, "-I": _LIBDIR},
    "ruby": {"-r": _MOD, "--require": _MOD, "-I": _LIBDIR},
    "php": {"-c": "a configuration file", "-d": "kv-php", "-z": _MOD},
    "lua": {"-l": _MOD},
    "bash": {"--rcfile": "a script file", "--init-file": "a script file"},
    "java": {"-jar": _MOD, "-cp": _LIBDIR, "-classpath": _LIBDIR, "--class-path": _LIBDIR,
             "-p": _LIBDIR, "--module-path": _LIBDIR, "-javaagent:": _MOD,
             "-agentpath:": _MOD, "-agentlib:": _MOD},
    "gcc": {"-specs": "a configuration file", "--specs": "a configuration file",
            "-B": _LIBDIR, "-wrapper": _CMD, "-fplugin": _MOD},
    "at": {"-f": "a script file"},
    "cmake": {"-C": "a script file", "-P": "a script file", "-S": _DIR,
              "--toolchain": "a script file"},
    "ninja": {"-C": _DIR}, "terraform": {"-chdir": _DIR},
    "mvn": {"-f": _DIR, "--file": _DIR}, "gradle": {"-p": _DIR, "--project-dir": _DIR,
                                                    "-b": _DIR, "--build-file": _DIR,
                                                    "-I": "a script file",
                                                    "--init-script": "a script file"},
    "pytest": {"-p": _MOD, "-c": "a configuration file", "--rootdir": _DIR},
    "tox": {"-c": "a configuration file", "--conf": "a configuration file"},
    "gpg": {"--options": "a configuration file", "--homedir": _DIR},
    # ansible templates its extra vars (`{{ lookup('pipe', CMD) }}` runs CMD)
    "ansible-playbook": {"-e": _TPL, "--extra-vars": _TPL},
    "ansible": {"-e": _TPL, "--extra-vars": _TPL, "-a": _CMD, "--args": _CMD, "-m": _MOD,
                "--module-name": _MOD},
    # SQL shells: their statements reach the shell's own commands (psql \\!, mysql system,
    # sqlite3 .shell), as their stdin does (command_checks)
    # psql -o '|CMD' pipes its output to a shell command
    "psql": {"-c": _SQL, "--command": _SQL, "-f": "a script file", "--file": "a script file",
             "-o": _OUT, "--output": _OUT},
    "mysql": {"-e": _SQL, "--execute": _SQL, "--init-command": _SQL, "--pager": _CMD,
              "--defaults-file": "a configuration file",
              "--defaults-extra-file": "a configuration file"},
    "duckdb": {"-c": _SQL, "-cmd": _SQL, "-init": "a script file", "-s": _SQL},
    "sqlite3": {"-cmd": _SQL, "-init": "a script file"},
}
# sqlite3's options that take an argument (its operands: the database, then statements)
_SQLITE_ARG = frozenset({"-cmd", "-separator", "-newline", "-nullvalue", "-init", "-vfs",
                         "-maxsize", "-mmap", "-pagecache", "-lookaside", "-heap", "-escape"})
# the subcommands' options that run something; the short ones only under some subcommands
# (cherry-pick -x, grep -c and commit -c are no commands)
_GIT_SUB = {"--config": "kv-git", "--upload-pack": _CMD, "--receive-pack": _CMD,
            "--exec": _CMD, "--extcmd": _CMD, "--open-files-in-pager": _CMD,
            **{f"--{f}-filter": _CMD for f in ("tree", "index", "msg", "env", "commit",
                                               "parent", "tag-name")}}
# git SUBCOMMAND WORD runs what follows: foreach's arguments as a shell command, bisect
# run's first as the program (its others are that program's arguments)
_GIT_RUNS = {("submodule", "foreach"): None, ("bisect", "run"): 1}
_GIT_SHORT = {"rebase": {"-x": _CMD}, "difftool": {"-x": _CMD}, "grep": {"-O": _CMD},
              "clone": {"-u": _CMD, "-c": "kv-git"}, "ls-remote": {"-u": _CMD},
              "archive": {}, "fetch": {}, "push": {}}
_ALIASES = {"gtar": "tar", "bsdtar": "tar", "vi": "vim", "nvim": "vim", "ex": "vim",
            "view": "vim", "gvim": "vim", "vimdiff": "vim", "rvim": "vim", "gmake": "make",
            "gawk": "awk", "mawk": "awk", "nawk": "awk", "gsed": "sed", "gsort": "sort",
            "slogin": "ssh", "mariadb": "mysql", "sqlite": "sqlite3", "nodejs": "node",
            "luajit": "lua", "cc": "gcc", "g++": "gcc", "c++": "gcc", "clang": "gcc",
            "clang++": "gcc", "batch": "at", "py.test": "pytest", "gpg2": "gpg",
            "gradlew": "gradle", "mvnw": "mvn"}
_PLUS_COMMAND = frozenset({"vim"})
# programs that read bundled short options (getopt and the like): `-xvI CMD`, `-sK{{ f }}`,
# and their short options that take an argument (what follows one in a bundle is that
# argument: `curl -HKey:{{ v }}` is a header, not -K)
_CLUSTERS: dict[str, str] = {
    "tar": "bCfFgHIKLNTVX", "ssh": "bcDEeFIiJLlmOopQRSWw", "scp": "cDFiJloPSX",
    "sftp": "BbcDFiJloPRS", "rsync": "efBTM", "make": "CfIjloWE", "man": "CMPHLmSepRrEX",
    "wget": "eoaiBOTtwQPUDXIRAl", "curl": "AbcCdDeEFHKmoPQrTtuUwxXyYz", "awk": "fvFeilEW",
    "sed": "efli", "psql": "cdfvhpUoLTFPR", "mysql": "eDhPuSpO", "script": "cEIOTtBm",
    "runuser": "cugGsw", "su": "cgGsw", "vim": "cSuUTiwWtqr", "cargo": "CZjpF"}
# interpreters whose own options end at their first operand (the script, java's main
# class or -jar's archive): what follows is the script's (`node app.js -r x`); with the
# options of theirs that take a separate argument, besides the table's
_OWN_OPTIONS_END: dict[str, frozenset[str]] = {
    "node": frozenset({"-e", "--eval", "-p", "--print", "--title", "-C", "--conditions",
                       "--input-type", "--inspect-port", "--max-http-header-size"}),
    "perl": frozenset({"-e", "-E", "-x", "-i", "-0", "-l", "-C", "-d", "-D"}),
    "ruby": frozenset({"-e", "-E", "-C", "-x", "-F", "-i", "-K", "-T", "-W", "-0", "-l",
                       "--encoding", "--external-encoding", "--internal-encoding"}),
    "php": frozenset({"-r", "-B", "-R", "-E", "-F", "-f", "-t"}),
    "lua": frozenset({"-e", "-W"}),
    "bash": frozenset({"-c", "-o", "+o", "-O", "+O"}),
    "java": frozenset({"--add-modules", "--add-opens", "--add-exports", "--add-reads",
                       "--limit-modules", "--upgrade-module-path", "--patch-module",
                       "--source", "--enable-native-access", "-m", "--module", "-splash",
                       "--describe-module", "-d"}),
}
# GNU tar's short options that take an argument (its old style hands them the next words)
_TAR_ARG_LETTERS = frozenset("bCfFgHIKLNTVX")  # "+CMD" is an Ex command, "+N" a line number


def program_family(name: str) -> str:
    """The program a name is a variant of (``gtar`` -> ``tar``, ``nvim`` -> ``vim``)."""
    return _ALIASES.get(name, name)


def option_code_slots(tokens: Sequence[Token], i: int, name: str) -> list[Slot]:
    """The positions after the program at ``i`` (named ``name``) whose value an option runs."""
    family = program_family(name)
    table = _OPTIONS.get(family)
    if table is None:
        return []
    sub, after = len(tokens), table
    if family == "git":
        sub, after = _git_subcommand(tokens, i)
    slots: list[Slot] = _sqlite_operands(tokens, i, name) if family == "sqlite3" else []
    j = i + 1
    if family == "tar" and j < len(tokens):
        j = _tar_old_style(tokens, j, name, table, slots)
    cluster = _CLUSTERS.get(family, "")
    takes = _OWN_OPTIONS_END.get(family)
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
            if j + 1 < len(tokens) and (text, tokens[j + 1].text) in _GIT_RUNS:
                runs = tokens[j + 2:][:_GIT_RUNS[text, tokens[j + 1].text]]
                slots.extend((t.key, name, OPTION + _CMD) for t in runs if t.value)
                break
        if family in _PLUS_COMMAND and token.value and text.startswith("+"):
            slots.append((token.key, name, PLUS))
        what, glued = _match(table, text, cluster)
        if what is not None:
            if glued is not None:
                if token.value and _code_value(what, glued):
                    slots.append((token.key, name, _label(what)))
            elif j + 1 < len(tokens) and tokens[j + 1].value \
                    and _code_value(what, tokens[j + 1].text):
                slots.append((tokens[j + 1].key, name, _label(what)))
                j += 1
            elif takes is not None:
                j += 1  # its literal argument is no operand
            if family == "java" and text == "-jar":
                break  # java -jar APP.jar ARGS...: the rest is the application's
        j += 1
    return slots


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
            j += 2 if token.text.lstrip("-") and "-" + token.text.lstrip("-") in _SQLITE_ARG \
                else 1
            continue
        if operands >= 1 and token.value:
            slots.append((token.key, name, OPTION + _SQL))
        operands += 1
        j += 1
    return slots


def _git_subcommand(tokens: Sequence[Token], i: int) -> tuple[int, dict[str, str]]:
    """The subcommand's index (the first operand, past ``-C DIR`` / ``-c KEY=V`` and long
    options) and the options that run something after it."""
    j = i + 1
    while j < len(tokens) and tokens[j].text.startswith("-"):
        j += 2 if tokens[j].text in ("-C", "-c", "--config-env") else 1
    short = _GIT_SHORT.get(tokens[j].text, {}) if j < len(tokens) and not tokens[j].value \
        else {}
    return j, _GIT_SUB | short


def _tar_old_style(tokens: Sequence[Token], j: int, name: str, table: dict[str, str],
                   slots: list[Slot]) -> int:
    """tar's old-style first argument (``tar xIf CMD a.tar``): letters with no dash, each
    letter that takes an argument taking the next word in turn. Returns where options go on."""
    text = tokens[j].text
    if tokens[j].value or not text.isascii() or not text.isalpha():
        return j
    nxt = j + 1
    for letter in text:
        if letter not in _TAR_ARG_LETTERS:
            continue
        what = table.get("-" + letter)
        if what is not None and nxt < len(tokens) and tokens[nxt].value:
            slots.append((tokens[nxt].key, name, _label(what)))
        nxt += 1
    return min(nxt, len(tokens))


def _match(table: dict[str, str], text: str, cluster: str = ""
           ) -> tuple[str | None, str | None]:
    """(what, the text after the option when glued to it, or None when the value is the
    next argument); (None, None) when ``text`` is no such option. ``cluster``: the program
    reads bundled short options (getopt), so ``-xvI CMD`` and ``-xI{{ v }}`` are ``-I``; it
    holds the letters that take an argument (the rest of the bundle is theirs)."""
    if text in table:
        return table[text], None
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
                return _BUNDLE, text[at:]
            if not (letter.isascii() and letter.isalnum()):
                break  # '=', ...: no more option letters
            bundled = table.get("-" + letter)
            if bundled is not None:
                return bundled, text[at + 1:] or None
            if letter in cluster:
                break  # the rest of the bundle is this option's argument
    return None, None


def _code_value(what: str, text: str) -> bool:
    """Whether the value printed in ``text`` (the option's argument, a template that prints
    one) chooses code: always for a command, for KEY=VALUE when the key is printed or is a
    key that runs something."""
    if not what.startswith("kv-"):
        return True
    key, sep, _ = text.partition("=")
    if not sep or "{" in key:
        return True  # the model would choose the key (or the whole setting)
    pattern = {"kv-git": _GIT_CODE_KEY, "kv-php": _PHP_CODE_KEY}.get(what, _SSH_CODE_KEY)
    check: Callable[[str], object] = pattern.match
    return bool(check(key.strip()))


def _label(what: str) -> str:
    return OPTION + ("a command" if what.startswith("kv-") else what)
