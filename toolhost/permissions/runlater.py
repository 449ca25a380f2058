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

from toolhost.permissions.shell import ParsedCommand, Word

__all__ = ["content_lines", "quick", "run_later_content", "run_later_reason"]

# a cheap look at the raw command before parsing anything (most commands name none of these:
# a plain substring test of each is several times cheaper than one regex alternation)
_TOKENS = ("hooks", "pre-", "post-", "-msg", "-change", "-trans", "-checkout", "-watchman",
           "-validate", ".git", "profile", ".config/", ".cargo", "cron", "husky", "alias",
           ".zsh", ".bash", "envrc", "npmrc", "yarnrc", "kshrc", ".ssh/", "vimrc", "exrc",
           "tmux.conf")


@functools.lru_cache(maxsize=256)
def quick(command: str) -> bool:
    """Whether ``command`` may name a file a later command runs (worth parsing for)."""
    return any(map(command.lower().__contains__, _TOKENS))


RUN_LATER = re.compile(
    r"(?:^|[/=:])(?:"
    r"\.git/(?:.*/)?(?:hooks(?:/.*)?|config|config\.worktree)"  # hooks, aliases, core.*
    r"|\.husky/.*|\.githooks/.*|\.gitconfig|\.config/git/config"
    r"|\.config/gh/config\.yml|\.cargo/config(?:\.toml)?"  # gh and cargo aliases
    r"|\.(?:bashrc|bash_profile|bash_login|bash_logout|profile|zshrc|zshenv|zprofile"
    r"|zlogin|zlogout|kshrc|mkshrc|envrc|npmrc|yarnrc(?:\.yml)?|vimrc|exrc|tmux\.conf)"
    r"|\.ssh/(?:config|rc)|\.config/fish/.*|_vimrc"  # ssh's ProxyCommand, fish's config
    r"|etc/(?:profile(?:\.d/.*)?|bash\.bashrc|zsh/.*|cron[^/]*(?:/.*)?|crontab)"
    r"|var/spool/cron/.*"
    # a git hook by its name, wherever it is (`git config core.hooksPath DIR` points at DIR)
    r"|(?:pre|post)-(?:commit|checkout|merge|merge-commit|rewrite|push|receive|rebase"
    r"|applypatch|auto-gc|index-change)|commit-msg|prepare-commit-msg|applypatch-msg"
    r"|reference-transaction|push-to-checkout|fsmonitor-watchman|sendemail-validate"
    r"|p4-(?:changelist|prepare-changelist|post-changelist|pre-submit)"
    r")/?$", re.IGNORECASE)

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
    return next((w.value for w in words if RUN_LATER.search(w.value.replace("\\", "/"))),
                None)


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


def run_later_reason(parsed: ParsedCommand) -> str | None:
    """Why a command writing a file a later command runs cannot be proven (None: it writes
    none, or only content on the line)."""
    docs = _documents(parsed)
    for words, targets, doc in parsed.writes:
        for target in targets:
            if RUN_LATER.search(target.replace("\\", "/")) and not _seen(words, doc):
                return _reason(target)
    for words in parsed.words + parsed.nested_words:
        named = _names_one(words)
        if named is not None and _writer(words) and not (
                words[0].value in ("tee", "gh", "glab")
                and _seen(words, docs.get(id(words), False))):
            return _reason(named)
    return None


def run_later_content(parsed: ParsedCommand) -> bool:
    """Whether the command writes a file a later command runs (with content on the line:
    its literals are then tried as command lines)."""
    return any(RUN_LATER.search(t.replace("\\", "/")) for _w, targets, _d in parsed.writes
               for t in targets) or any(
        _names_one(words) is not None and _writer(words)
        for words in parsed.words + parsed.nested_words)


def _reason(target: str) -> str:
    return (f"it writes {target!r}, which a later command runs (a git hook or config, a shell "
            "startup file, an alias file, a cron file), with content the rules cannot see")


_VALUE = re.compile(r"""[=:]\s*["']?!?(.*?)["']?\s*$""")


def content_lines(texts: list[str], limit: int) -> list[str]:
    """What a run-later file's content may run, from its literals and document lines: each
    line; the value after its first ``=`` or ``:`` (an alias in git's, gh's or cargo's
    config: ``x = !rm y``, ``x: '!rm y'``); and every run of its words from each word on (a
    cron line's command after its five times, ``alias ls='rm -rf'``). Fail closed."""
    out: list[str] = []
    for text in texts:
        for line in text.replace("\\n", "\n").split("\n"):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            out.append(line)
            if (m := _VALUE.search(line)) is not None and m.group(1):  # `p = push`: git push
                out += [m.group(1), "git " + m.group(1), "gh " + m.group(1)]
            if "!" in line:  # vim's `:!rm x`, `silent !rm x`; an alias's `!rm x`
                out.append(line.partition("!")[2])
            words = line.split()
            out += [" ".join(words[k:]) for k in range(1, min(len(words), 16))]
            if len(out) >= limit:
                return out[:limit]
    return out
