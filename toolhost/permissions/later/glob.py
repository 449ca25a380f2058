"""A word whose globs or braces may expand to a file a later command runs.

``later.files`` reads each word as the path it names, so ``cp x ~/.bash?c``, ``cp x ~/.bash*``,
``cp x ~/.[b]ashrc`` and ``echo 'rm -rf y' > ~/.{bashrc,zshrc}`` named no such file, while
bash writes ``~/.bashrc`` (a glob expands to the files that exist; braces always expand).
Here a word with ``*``, ``?``, ``[`` or ``{`` is expanded (braces, up to ``MAX_WORDS``) and
each expansion's last segments are compared with the names of such files: a glob that may
name one names one (fail closed). As in bash, a leading ``*`` or ``?`` does not match a
leading dot, and a last segment of wildcards only (``out/*``) is not read as a bare hook
name (``pre-commit`` anywhere), which every such word would be.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from toolhost import regex

__all__ = ["GLOBBY", "MAX_WORDS", "may_name_any", "may_name_one"]

MAX_WORDS = 64  # brace expansions looked at; a word with more may name one (fail closed)
GLOBBY = re.compile(r"[*?\[{]")
_WILD = re.compile(r"\[[^\]]*\]|[*?\[]")  # what a literal run of a glob ends at
_LONGEST = 64  # a segment past this many characters (besides `*`) names none of them
_HOOKS = ("pre-commit", "post-commit", "pre-push", "pre-merge-commit", "post-merge",
          "pre-rebase", "post-checkout", "post-rewrite", "pre-applypatch", "post-applypatch",
          "applypatch-msg", "commit-msg", "prepare-commit-msg", "pre-receive",
          "post-receive", "reference-transaction", "push-to-checkout", "pre-auto-gc",
          "fsmonitor-watchman", "sendemail-validate", "post-index-change",
          "p4-pre-submit", "p4-changelist", "p4-prepare-changelist", "p4-post-changelist")
_DOTFILES = ("bashrc", "bash_profile", "bash_login", "bash_logout", "profile", "zshrc",
             "zshenv", "zprofile", "zlogin", "zlogout", "kshrc", "mkshrc", "envrc", "npmrc",
             "yarnrc", "yarnrc.yml", "vimrc", "exrc", "tmux.conf", "gitconfig", "bash_aliases",
             "cshrc", "tcshrc", "login", "logout", "xprofile", "xinitrc", "xsession",
             "xsessionrc", "direnvrc")
# the names ``later.files._BODY`` reads, one spelling each (its `.*` as one file name); not
# sitecustomize.py/usercustomize.py: every `*.py` of a `find` would name one
_NAMED = (
    *(f".{name}" for name in _DOTFILES), "_vimrc", ".git/config", ".git/config.worktree",
    *(f"{d}/{h}" for d in (".git/hooks", ".husky", ".githooks") for h in _HOOKS),
    ".husky/_/h", ".config/git/config", ".config/gh/config.yml", ".cargo/config",
    ".cargo/config.toml", ".ssh/config", ".ssh/rc", ".config/fish/config.fish",
    "etc/profile", "etc/profile.d/x.sh", "etc/bash.bashrc", "etc/zsh/zshrc", "etc/crontab",
    "etc/cron.d/x", "etc/cron.daily/x", "var/spool/cron/x", ".claude/settings.json",
    ".claude/settings.local.json", ".pre-commit-config.yaml", ".local/bin/x",
    ".config/autostart/x", ".bashrc.d/x", ".config/direnv/direnvrc", ".config/nvim/init.lua",
    ".config/nvim/init.vim", "site-packages/x.pth", "dist-packages/x.pth", "toolhost.yaml",
    "toolhost.local.yaml", ".config/toolhost/config.yaml")


# the names above (and a bare hook name) by their number of segments, in lower case
_BY_DEPTH = {k: tuple(n.lower() for n in (*_NAMED, *(_HOOKS if k == 1 else ()))
                      if n.count("/") == k - 1) for k in (1, 2, 3)}


def may_name_one(word: str, plain: Callable[[str], bool]) -> bool:
    """Whether ``word``, a glob or brace pattern, may expand to a file a later command
    runs (False for a word without ``*?[{``: ``later.files`` reads it as it is). ``plain``
    tells whether a word without wildcards names one (a brace's expansion)."""
    if not GLOBBY.search(word):
        return False
    words = _braces(word)
    return words is None or any(plain(w) or _tail_matches(w.rstrip("/")) for w in words)


def may_name_any(command: str, plain: Callable[[str], bool]) -> bool:
    """Whether a word of ``command`` (split at blanks, quotes and operators: a cheap look
    before parsing) may expand to such a file."""
    return any(may_name_one(w, plain) for w in re.split(r"[\s'\"<>|;&()=]+", command)
               if GLOBBY.search(w))


def _tail_matches(word: str) -> bool:
    segments = word.split("/")
    for k in range(1, min(len(segments), 3) + 1):
        tail = segments[-k:]
        if not any(GLOBBY.search(s) for s in tail):
            continue  # (read as written by later.files's own pattern)
        if k == 1 and not re.search(r"[A-Za-z0-9._-]", tail[0]):
            continue  # `out/*`: not a bare hook name or `_vimrc`, which any name may be
        tail = [re.sub(r"\*+", "*", s) for s in tail]  # (`**` is `*` in bash)
        if any(len(s) - s.count("*") > _LONGEST for s in tail):
            continue  # more characters than any such name has (no regex of them: linear)
        joined = "/".join(tail)
        runs = [r for r in _WILD.split(joined.lower()) if r]
        names = [n for n in _BY_DEPTH[k] if all(r in n for r in runs)]  # (cheap first)
        try:
            pattern = _compiled("/".join(_segment(s) for s in tail)) if names else None
        except regex.RegexError:  # `[?--]`, `[[:nope:]]`: a bracket RE2 refuses (it
            return True  # raised out of the decision once); it may name one, fail closed
        if pattern is not None and any(map(pattern.fullmatch, names)):
            return True  # (k == 1: a bare hook name, `/tmp/h/pre-*`: core.hooksPath DIR)
    return False


@functools.lru_cache(maxsize=256)
def _compiled(source: str) -> regex.Pattern:
    return regex.compile("(?i)" + source)  # RE2: linear, whatever the word's stars


def _segment(glob: str) -> str:
    """One path segment of a bash glob as a regex. As in bash, a ``*`` or ``?`` does not
    match a name's leading dot (``src/*`` is not ``src/.bashrc``); a bracket may (fail
    closed)."""
    out, k = [], 0
    while k < len(glob):
        c = glob[k]
        if c == "*":
            out.append("(?:[^./][^/]*)?" if k == 0 else "[^/]*")
        elif c == "?":
            out.append("[^./]" if k == 0 else "[^/]")
        elif c == "[" and (end := glob.find("]", k + 2)) != -1:
            body = glob[k + 1:end]
            negate = body[:1] in ("!", "^")
            body = body[1:] if negate else body
            out.append(("[^/" if negate else "[") + "".join(
                "\\" + ch if ch in "\\]^[" else ch for ch in body) + "]")
            k = end
        else:
            out.append(re.escape(c))
        k += 1
    return "".join(out)


def _braces(word: str) -> list[str] | None:
    """``a{b,c}d`` as bash expands it (``{x..y}`` as ``*``); None past ``MAX_WORDS``."""
    words, done = [word], []
    while words:
        w = words.pop()
        group = _innermost(w)
        if group is None:
            if "{" in w and "," in w:  # nested in a way not read here: fail closed
                return None
            done.append(w)
        else:
            start, end = group
            body = w[start + 1:end]
            parts = ["*"] if ".." in body and "," not in body else body.split(",")
            words += [w[:start] + p + w[end + 1:] for p in parts]
        if len(words) + len(done) > MAX_WORDS:
            return None
    return done


def _innermost(word: str) -> tuple[int, int] | None:
    """The first ``{...}`` holding a ``,`` or ``..`` and no other brace."""
    for m in re.finditer(r"\{([^{}]*)\}", word):
        if "," in m.group(1) or ".." in m.group(1):
            return m.start(), m.end() - 1
    return None
