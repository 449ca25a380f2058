"""Files a later command runs: a Bash command that writes one is judged by what it writes.

``echo 'rm -rf y' > .git/hooks/pre-commit`` runs nothing now, but the next ``git commit``
runs ``rm -rf y``; so do a line appended to ``~/.bashrc`` (the next shell), an alias in
``.git/config`` or ``~/.gitconfig`` (``git x``), in gh's ``config.yml`` (``gh x``) or cargo's
``.cargo/config.toml`` (``cargo x``), a husky hook, a cron file. The write is the last
point where the command is on a line the rules see (as ``git config alias.x '!rm x'`` is):

- written by ``echo``/``printf`` of plain words, or by ``cat``/``tee`` from a here-document
  or here-string: the content is on the line, and its literals (and each line of the
  document) are tried as command lines by the deny and ask rules (``command_strings``);
- written any other way (``cp``, ``mv``, ``ln``, ``install``, ``dd``, ``sed -i``, ``curl -o``,
  ``tee`` from a pipe, a redirection of another program's output): not provable.
"""

from __future__ import annotations

import functools
import re

from toolhost import regex
from toolhost.permissions.later.dirs import lands_on_one
from toolhost.permissions.later.glob import GLOBBY, may_name_any, may_name_one
from toolhost.permissions.shell.parse import ParsedCommand, Word

__all__ = ["PACKAGERS", "content_lines", "past_wrappers", "policy_file", "quick", "reader",
           "run_later_content", "run_later_path", "run_later_reason"]

# a cheap look at the raw command before parsing anything (most commands name none of these:
# a plain substring test of each is several times cheaper than one regex alternation)
_TOKENS = ("hooks", "pre-", "post-", "-msg", "-change", "-trans", "-checkout", "-watchman",
           "-validate", ".git", "profile", ".config/", ".cargo", "cron", "husky", "alias",
           ".zsh", ".bash", "envrc", "npmrc", "yarnrc", "kshrc", ".ssh/", "vimrc", "exrc",
           "tmux.conf", "toolhost", ".claude", ".local/bin", "systemd", "autostart", "~",
           "$home", "${home}", "/root", "/home/", "/users/", "/etc", "cshrc", "login",
           "logout", "xinitrc", "xsession", ".ipython", "-packages", "customize", "dotglob",
           "globignore")


@functools.lru_cache(maxsize=256)
def quick(command: str) -> bool:
    """Whether ``command`` may name a file a later command runs (worth parsing for)."""
    return any(map(command.lower().__contains__, _TOKENS)) or (
        GLOBBY.search(command) is not None and may_name_any(command, _plain_path))


# the files a toolhost policy is read from: its config, the local layer beside it,
# the user layer; what is written there changes what the next session allows
_POLICY = r"toolhost(?:\.local)?\.(?:ya?ml|toml)|\.config/toolhost/config\.(?:ya?ml|toml)"
_BODY = (
    _POLICY + r"|"
    r"\.git/(?:.*/)?(?:hooks(?:/.*)?|config|config\.worktree)"  # hooks, aliases, core.*
    r"|\.husky/.*|\.githooks/.*|\.gitconfig|\.config/git/config"
    r"|\.config/gh/config\.yml|\.cargo/config(?:\.toml)?"  # gh and cargo aliases
    r"|\.(?:bashrc|bash_profile|bash_login|bash_logout|profile|zshrc|zshenv|zprofile"
    r"|zlogin|zlogout|kshrc|mkshrc|envrc|npmrc|yarnrc(?:\.yml)?|vimrc|exrc|tmux\.conf)"
    r"|\.ssh/(?:config|rc)|\.config/fish/.*|_vimrc"  # ssh's ProxyCommand, fish's config
    r"|etc/(?:profile(?:\.d/.*)?|bash\.bashrc|zsh/.*|cron[^/]*(?:/.*)?|crontab)"
    r"|var/spool/cron/.*"
    # the CLI's own hooks (Claude Code runs a settings file's `hooks` commands on
    # its next tool use), pre-commit's local hooks, a program on PATH before the real one
    # (`~/.local/bin/git`), a user unit or autostart entry run at the next login
    r"|\.claude/settings(?:\.local)?\.json|\.pre-commit-config\.ya?ml|\.local/bin/.*"
    r"|\.config/(?:systemd/user|autostart)/.*"
    # review18: the same family's siblings: a file a shell, X session, editor, direnv or every
    # Python start runs (Ubuntu's .bashrc sources ~/.bash_aliases; a site-packages .pth line
    # starting with `import` runs at each `python`)
    r"|\.(?:bash_aliases|cshrc|tcshrc|login|logout|xprofile|xinitrc|xsession(?:rc)?|direnvrc)"
    r"|\.bashrc\.d/.*|\.config/direnv/direnvrc|\.config/nvim/init\.(?:vim|lua)"
    r"|\.ipython/profile_[^/]*/startup/.*|(?:site|dist)-packages/[^/]*\.pth"
    r"|(?:site|user)customize\.py"
    # a git hook by its name, wherever it is (`git config core.hooksPath DIR` points at DIR)
    r"|(?:pre|post)-(?:commit|checkout|merge|merge-commit|rewrite|push|receive|rebase"
    r"|applypatch|auto-gc|index-change)|commit-msg|prepare-commit-msg|applypatch-msg"
    r"|reference-transaction|push-to-checkout|fsmonitor-watchman|sendemail-validate"
    r"|p4-(?:changelist|prepare-changelist|post-changelist|pre-submit)")
# matched by RE2 (linear time: `(?:.*/)?` after each of 19,000 `.git/` in one word took
# Python's re minutes)
_RUN_LATER = rf"(?i)(?:^|[/=:])(?:{_BODY})/?$"
# one named inside a longer word: a program's own code (``python -c "open('.bashrc','a')"``,
# awk's ``print > ".git/hooks/pre-commit"``), a script for ``sh -c`` (not crossing a blank
# or a quote)
_INSIDE_BODY = _BODY.replace(".*", r"[^\s'\"]*")
_INSIDE = (r"""(?i)(?:^|[/=:\s'"(,;<>{])(?:""" + _INSIDE_BODY
           + r""")(?:$|[/\s'"),;}\]])""")


def run_later_path(text: str) -> bool:
    """Whether ``text`` (a word) names a file a later command runs, or may expand to one
    (a glob or braces: ``~/.bash?c``, ``~/.{bashrc,zshrc}``)."""
    text = text.replace("\\", "/")
    return _plain_path(text) or may_name_one(text, _plain_path)


def policy_file(text: str) -> bool:
    """Whether ``text`` (a word or path) names a file a toolhost policy is read from
    (``toolhost.yaml``, ``toolhost.local.yaml``, ``~/.config/toolhost/config.yaml``)."""
    return regex.compile(rf"(?i)(?:^|[/=:])(?:{_POLICY})$").search(text.replace("\\", "/"))


def _plain_path(text: str) -> bool:
    return regex.compile(_RUN_LATER).search(text)


def _inside(text: str) -> str | None:
    return regex.compile(_INSIDE).first(text)

# programs that write a file named among their words (fail closed: any word naming one)
_WRITERS = frozenset({"gh", "glab", "tee", "cp", "mv", "ln", "install", "dd", "rsync",
                      "truncate", "curl", "wget", "patch", "unzip", "tar", "gcp", "gmv",
                      "gln", "ginstall", "gtee", "scp"})
_IN_PLACE = frozenset({"sed", "gsed", "perl", "ruby"})  # with -i


def _names_one(words: tuple[Word, ...]) -> str | None:
    values = [w.value for w in words]
    if "alias" in values and values[values.index("alias") + 1:][:1] == ["import"] and any(
            v.rsplit("/", 1)[-1] in ("gh", "glab") for v in values):
        return "gh alias import"  # gh alias import FILE|- : aliases `gh NAME` runs later
    package = words[0].value.rsplit("/", 1)[-1] in PACKAGERS  # `pip install pre-commit`
    return next((w.value for w in words if run_later_path(w.value)
                 and not (package and _HOOK_NAME.fullmatch(w.value))), None)


# package managers and task runners: a bare hook name among their words is a package's or
# a task's name (`pip install pre-commit`, `make pre-commit`, `tox -e pre-commit`)
PACKAGERS = frozenset({"pip", "pip3", "pipx", "uv", "uvx", "brew", "npm", "npx", "pnpm",
                        "pnpx", "yarn", "bun", "bunx", "apt", "apt-get", "conda", "mamba",
                        "gem", "cargo", "poetry", "dnf", "yum", "make", "gmake", "just",
                        "task", "tox", "nox", "invoke", "poe", "hatch", "pdm", "rake"})


# programs that write no file they name (or change no content: chmod, touch, rm): naming a
# run-later file is a read (``cat .git/config``, ``grep alias ~/.gitconfig``). Any other
# program naming one in any word (its own code too) may write it: not provable
_READERS = frozenset({
    "cat", "bat", "batcat", "less", "more", "most", "head", "tail", "grep", "egrep", "fgrep",
    "rg", "ag", "ack", "ls", "exa", "eza", "tree", "stat", "file", "wc", "diff", "colordiff",
    "cmp", "comm", "test", "[", "[[", "echo", "printf", "readlink", "realpath", "basename",
    "dirname", "du", "nl", "od", "hexdump", "strings", "md5sum", "sha1sum", "sha256sum",
    "sha512sum", "b2sum", "cksum", "jq", "cut", "column", "which", "type", "source", ".",
    "chmod", "chown", "touch", "rm", "rmdir", "mkdir", "shellcheck", "pre-commit", "cd",
    "pushd", "lsattr", "getfacl", "xdg-open", "open", "toolhost"})
# git subcommands that write no working file (``git checkout X -- .bashrc`` writes one)
_GIT_READS = frozenset({
    "status", "log", "diff", "show", "blame", "ls-files", "grep", "add", "rm", "commit",
    "check-ignore", "check-attr", "config", "hook", "rev-parse", "cat-file", "hash-object",
    "shortlog", "whatchanged", "ls-tree", "annotate", "help", "var", "version"})
# read the files they name as whole words (their own code may write one: ``sort -o``,
# awk's ``print > ARGV[1]``, an unseen ``-f`` script)
_OPERAND_READERS = {"sed": ("-i", "--in-place", "-f", "--file"),
                    "sort": ("-o", "--output"),
                    **dict.fromkeys(("awk", "gawk", "mawk", "nawk"),
                                    ("-f", "--file", "-i", "--include", "-E", "--exec"))}
_AWK_WRITES = (">", "|", "system", "inplace")


def _reads_only(words: tuple[Word, ...]) -> str | None:
    """The run-later file a program that may write it names anywhere in its words (``None``:
    none, or the program only reads what it names)."""
    if reader(words):
        return None
    start = past_wrappers(words)
    name = words[start].value.rsplit("/", 1)[-1].lower()
    values = [w.value for w in words[start + 1:]]
    whole = name in _OPERAND_READERS and not any(
        v.startswith(_OPERAND_READERS[name]) for v in values) and not (
        name.endswith("awk") and any(m in v for v in values for m in _AWK_WRITES))
    for value in values:
        value = value.replace("\\", "/")
        if run_later_path(value):
            if whole or (name in PACKAGERS and _HOOK_NAME.fullmatch(value)):
                continue  # an operand it reads; `pip install pre-commit` (a package)
            return value
        if (found := _inside(value)) is not None:
            return found.strip(_STRIP)
    return None


_STRIP = "/=:'\"(),;<>{}[] \t\n"


def reader(words: tuple[Word, ...]) -> bool:
    """A program that writes no file it names (``_READERS``, find without its writing
    options, git's reading subcommands), past plain wrappers."""
    start = past_wrappers(words)
    name = words[start].value.rsplit("/", 1)[-1].lower()
    values = [w.value for w in words[start + 1:]]
    if name in _READER_OUTPUTS and any(_names_output(v, _READER_OUTPUTS[name]) for v in values):
        return False  # (less -o ~/.bashrc f: its log file; tree -o x: its listing)
    return name in _READERS or (name == "find" and not any(
        v.startswith(("-fprint", "-fls", "-exec", "-ok")) for v in values)) or (
        name == "git" and _git_subcommand(values) in _GIT_READS and not any(
            v == "--output" or v.startswith("--output=") for v in values))  # (diff, log, show)


# readers that write a file one of their options names (the option, glued or bundled)
_READER_OUTPUTS = {"less": ("-o", "-O", "--log-file", "--LOG-FILE"), "tree": ("-o",)}


def _names_output(value: str, options: tuple[str, ...]) -> bool:
    """Whether ``value`` is one of ``options`` (``-o x``, ``-ox``, ``--log-file=x``), or a
    bundle of short options holding one of their letters (``-Ro x``)."""
    if value.startswith(options):
        return True
    return value[:1] == "-" and value[1:2] != "-" and any(
        o[1] in value[1:] for o in options if len(o) == 2)


_HOOK_NAME = re.compile(r"[a-z0-9-]+")
# wrappers seen through when no option or assignment follows (`sudo cat ~/.bashrc`,
# `timeout 5 grep x .git/config`): with one, the program is not known (fail closed)
_WRAPPERS = frozenset({"sudo", "doas", "env", "time", "nice", "nohup", "command", "exec",
                       "builtin", "stdbuf", "xargs", "timeout",
                       "noglob", "nocorrect", "-", "repeat"})  # (zsh's: bash.programs)


def past_wrappers(words: tuple[Word, ...]) -> int:
    """Where the program starts past plain wrappers (``sudo``, ``timeout 5``): 0 when one
    has an option or assignment after it (the program is not known)."""
    at = 0
    while at + 1 < len(words) and words[at].value.rsplit("/", 1)[-1] in _WRAPPERS:
        at += 1
        if words[at - 1].value.endswith(("timeout", "repeat")) and words[at].value.isdigit():
            at += 1
        if at >= len(words) or words[at].value.startswith("-") or "=" in words[at].value:
            return 0
    return at if at < len(words) else 0


def _git_subcommand(values: list[str]) -> str:
    skip = False
    for value in values:
        if skip:
            skip = False
        elif value in ("-C", "-c", "--git-dir", "--work-tree", "--namespace"):
            skip = True
        elif not value.startswith("-"):
            return value
    return ""


def _writer(words: tuple[Word, ...]) -> bool:
    names = [w.value.rsplit("/", 1)[-1].lower() for w in words]
    return any(n in _WRITERS for n in names) or (
        any(n in _IN_PLACE for n in names) and any(
            n.startswith(("-i", "--in-place")) or (n.startswith("-") and "i" in n[1:3]
                                                   and not n.startswith("--"))
            for n in names))


def _seen(words: tuple[Word, ...], doc: bool) -> bool:
    """Its content is on the line: echo/printf of plain words, cat/tee of a document."""
    if not words or not all(w.plain for w in words):
        return False
    name = words[0].value
    if name in ("gh", "glab"):  # gh alias import - <<EOF: the aliases are the document
        return doc and words[-1].value == "-"
    return name in ("echo", "printf") or (name in ("cat", "tee") and doc)


def _documents(parsed: ParsedCommand) -> dict[int, bool]:
    return {id(words): doc for words, _targets, doc in parsed.writes}


def run_later_reason(parsed: ParsedCommand, command: str = "") -> str | None:
    """Why a command writing a file a later command runs cannot be proven (None: it writes
    none, or only content on the line)."""
    if _DOTGLOB.search(command) and (found := _dotglob_word(parsed)) is not None:
        return (f"it turns on dotglob, so the glob {found!r} may name a dotfile a later command "
                "runs (.bashrc, .git), which the rules cannot see")
    docs = _documents(parsed)
    for words, targets, doc in parsed.writes:
        for target in targets:
            if run_later_path(target) and (not _seen(words, doc) or policy_file(target)):
                return _reason(target)
    everything = parsed.words + parsed.nested_words
    for k, words in enumerate(everything):
        if not words:
            continue
        made = lands_on_one([w.value for w in words[past_wrappers(words):]], _plain_path)
        if made is not None:  # `cp -r hooks .git/`, `cp -r dot/. ~` (later.dirs)
            return _reason(made)
        named = _names_one(words)
        if named is not None and _writer(words):
            if policy_file(named) or not (words[0].value in ("tee", "gh", "glab") and (
                    _seen(words, docs.get(id(words), False))
                    or _piped_seen(parsed, everything, k, docs))):
                return _reason(named)
        elif (named := _reads_only(words)) is not None:
            return _reason(named)
        elif command and (docs.get(id(words)) or (
                k < len(parsed.fed) and parsed.fed[k] == "|")) and not reader(words) and (
                found := _inside(command)):
            # a program that is no reader fed a document or a pipe, the line naming such a
            # file (`python3 <<EOF open('.bashrc','a') ...`, `echo "..." | node`): its code
            return _reason(found.strip(_STRIP) or found)
    if len(command) > LONG_LINE and run_later_content(parsed) and (
            len(command) > LONG_CONTENT or any(
                len(line) > LONG_LINE for line in command.replace("\\n", "\n").split("\n"))):
        return (f"it writes a file a later command runs with a line longer than {LONG_LINE} "
                f"characters or {LONG_CONTENT} in all, too long to judge")
    return None


# `shopt -s dotglob` (or a GLOBIGNORE, which turns it on) earlier in the command lets
# a leading `*` match a dotfile: `cp -r dot/* ~` then copies dot/.bashrc too
_DOTGLOB = re.compile(r"(?i)\bdotglob\b|\bGLOBIGNORE\s*=")


def _dotglob_word(parsed: ParsedCommand) -> str | None:
    """A glob word of a program that may write what it names (not a reader), or a glob
    written to by a redirection: with dotglob on it may name a dotfile."""
    for _words, targets, _doc in parsed.writes:
        if (found := next((t for t in targets if GLOBBY.search(t)), None)) is not None:
            return found
    for words in parsed.words + parsed.nested_words:
        if words and not reader(words) and words[0].value not in ("shopt", "set") and (
                found := next((w.value for w in words[1:] if GLOBBY.search(w.value)),
                              None)) is not None:
            return found
    return None


# the content of a run-later file judged by the rules (each line's forms are
# tried as command lines; ~20 lines of 4,000 characters took seconds)
LONG_LINE = 1024
LONG_CONTENT = 16384


def _piped_seen(parsed: ParsedCommand, everything: list[tuple[Word, ...]], k: int,
                docs: dict[int, bool]) -> bool:
    """``echo 'npm test' | tee .git/hooks/pre-commit``: tee (of plain words) fed by a pipe
    from a producer whose output is on the line (echo/printf of plain words, cat of a
    here-document)."""
    if not (0 < k < len(parsed.fed) and parsed.fed[k] == "|"
            and words_plain(everything[k])):
        return False
    producer = everything[k - 1]
    return bool(producer) and producer[0].value in ("echo", "printf", "cat") and _seen(
        producer, docs.get(id(producer), False))


def words_plain(words: tuple[Word, ...]) -> bool:
    return all(w.plain for w in words)


def run_later_content(parsed: ParsedCommand) -> bool:
    """Whether the command writes a file a later command runs (with content on the line:
    its literals are then tried as command lines)."""
    return any(run_later_path(t) for _w, targets, _d in parsed.writes
               for t in targets) or any(
        _names_one(words) is not None and _writer(words)
        for words in parsed.words + parsed.nested_words)


def _reason(target: str) -> str:
    if policy_file(target):
        return (f"it writes {target!r}, a file toolhost's permissions are read from (the next "
                "session would obey what it says)")
    return (f"it writes {target!r}, which a later command runs (a git hook or config, a shell "
            "startup file, an alias file, a cron file), with content the rules cannot see")


_VALUE = re.compile(r"""[=:]\s*["']?!?(.*?)["']?\s*$""")


def content_lines(texts: list[str], limit: int) -> list[str]:
    """What a run-later file's content may run, from its literals and document lines: each
    line; the value after its first ``=`` or ``:`` (an alias in git's, gh's or cargo's
    config: ``x = !rm y``, ``x: '!rm y'``); and every run of its words from each word on (a
    cron line's command after its five times, ``alias ls='rm -rf'``). Fail closed."""
    out: list[str] = []
    if sum(map(len, texts)) > 4 * LONG_CONTENT:  # not provable (run_later_reason)
        return out
    for text in texts:
        for line in text.replace("\\n", "\n").split("\n"):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            out.append(line)
            if len(line) > LONG_LINE:  # not provable (run_later_reason): no more forms
                continue
            if (m := _VALUE.search(line)) is not None and m.group(1):  # `p = push`: git push
                out += [m.group(1), "git " + m.group(1), "gh " + m.group(1)]
            if "!" in line:  # vim's `:!rm x`, `silent !rm x`; an alias's `!rm x`
                out.append(line.partition("!")[2])
            words = line.split()
            out += [" ".join(words[k:]) for k in range(1, min(len(words), 16))]
            if len(out) >= limit:
                return out[:limit]
    return out
