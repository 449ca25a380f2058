"""Rules copied from somewhere else, for ``validate`` through
``toolhost.permissions.authoring.spec_hints``: each a (level, message, hint).

* typographic characters a shell never sees in a typed command or path: a no-break space,
  an en or em dash for ``--`` (``Bash(git push —force:*)``), curly quotes, full-width letters
  (``Bash(ｒｍ:*)``), a full-width slash (``Read(／／etc/passwd)``): the rule names other text;
* a shell prompt pasted with the command (``Bash($ rm -rf:*)``, ``Bash(% rm:*)``), Markdown
  backticks (``Bash(`rm`:*)``), a ``!`` meant as "not" (``Bash(!rm:*)``, ``Read(!.env)``);
* ``:`` between command words (``Bash(npm:publish:*)``, ``Bash(git:push)``, ``Bash(rm::*)``,
  ``Bash(rm: *)``): only a final ``:*`` is the prefix marker;
* a path pattern starting with ``#`` (a comment in ``.gitignore``, a file name here), holding a
  template placeholder (``Read(<home>/.ssh/**)``, ``Read({HOME}/.ssh)``, ``{{cwd}}``) or a
  line break;
* ``WebFetch(domain:"example.com")``: quotes are part of the host there.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["bash_paste_hints", "domain_paste_hints", "path_paste_hints"]

Hint = tuple[str, str, str]
# characters that formatted text (a web page, a chat, a word processor) puts where a shell
# command or path has ASCII, with what was meant
_MEANT = {"\u00a0": " ", "\u2007": " ", "\u202f": " ", "\u3000": " ", "\u2010": "-",
          "\u2011": "-", "\u2012": "-", "\u2013": "--", "\u2014": "--", "\u2015": "--",
          "\u2212": "-", "\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"',
          "\u200b": "", "\u200c": "", "\u200d": "", "\u2060": "", "\ufeff": "",
          "\u2026": "*"}


# invisible characters that are no format character (Cf): a combining grapheme joiner,
# Hangul fillers (blank letters), variation selectors
_BLANK_LETTERS = frozenset("\u034f\u115f\u1160\u3164\uffa0")


def _invisible(ch: str) -> bool:
    """A character that shows as nothing (a bidi control, a mark, a soft hyphen, a tag or
    variation selector, a blank letter): a rule holding one names text nobody sees."""
    return ch > "\x7f" and (unicodedata.category(ch) == "Cf" or ch in _BLANK_LETTERS
                             or "\ufe00" <= ch <= "\ufe0f"
                             or "\U000e0100" <= ch <= "\U000e01ef")


def _pasted(spec: str) -> tuple[str, str] | None:
    """(the first typographic or invisible character's description, the ASCII text meant)
    or None."""
    for ch in spec:
        if ch in _MEANT or "\uff01" <= ch <= "\uff5e" or _invisible(ch):
            meant = "".join(_MEANT.get(c, unicodedata.normalize("NFKC", c)
                                       if "\uff01" <= c <= "\uff5e" else
                                       "" if _invisible(c) else c) for c in spec)
            name = unicodedata.name(ch, "a format character").lower()
            return f"U+{ord(ch):04X} ({name})", meant.replace('"', "")
    return None


def _typographic(name: str, spec: str, what: str) -> list[Hint]:
    found = _pasted(spec)
    if found is None:
        return []
    char, meant = found
    return [("warning", f"{name}({spec}) holds {char}, which no {what} typed in a shell holds "
             "(text pasted from a formatted page): the rule names other text and matches "
             f"nothing meant", f"write {name}({meant})")]


_PROMPT = re.compile(r"(\$|%|❯|➜|λ|»)\s+(?=\S)")
_COLON_WORD = re.compile(r"[A-Za-z0-9_./-]+:[A-Za-z0-9_./:-]*")


def bash_paste_hints(spec: str) -> list[Hint]:
    """A Bash rule pasted with what is no part of the command."""
    out = _typographic("Bash", spec, "command")
    if (prompt := _PROMPT.match(spec)) is not None:
        out.append(("warning", f"Bash({spec}) starts with the shell prompt "
                    f"{prompt.group(1)!r}: the rule names a command of that name",
                    f"write Bash({spec[prompt.end():]})"))
    if spec.startswith("`") and spec.count("`") == 2 and not spec.endswith("`)"):
        bare = spec.replace("`", "")
        out.append(("warning", f"Bash({spec}) holds Markdown backticks: in a command they "
                    "are a command substitution, so the rule matches nothing meant",
                    f"write Bash({bare})"))
    if spec.startswith("!") and len(spec) > 1 and not spec[1].isspace():
        out.append(("warning", f"'!' does not negate a rule: Bash({spec}) names a command "
                    f"called {spec.split()[0].removesuffix(':*')!r}",
                    "for an exception write a rule of the other effect (deny beats ask "
                    "beats allow)"))
    if (ph := _BASH_PLACEHOLDER.search(spec)) is not None:
        head = spec[:ph.start()].rstrip(" '\"")
        out.append(("warning", f"{ph.group(0)!r} in Bash({spec}) is a placeholder from a "
                    "usage line, which rules do not fill in: the rule matches only a command "
                    "holding that text", f"write the words meant, or end the rule at the "
                    f"placeholder: Bash({head}:*)"))
    first = spec.removesuffix(":*").split(" ", 1)[0]
    if _COLON_WORD.fullmatch(first) and not first.startswith(("http:", "https:")):
        meant = " ".join(p for p in first.split(":") if p)
        rest = spec.removesuffix(":*")[len(first):].strip().removeprefix("*").strip()
        fix = f"{meant} {rest}".strip()
        out.append(("warning", f"':' inside the command word {first!r} of Bash({spec}): "
                    "command words are separated by spaces, and only a final ':*' is the "
                    "prefix marker", f"write Bash({fix}:*)"))
    return out


# a usage line's placeholder: <dir>, {branch}, {{ns}}, [package], [-rf], [OPTIONS]
_BASH_PLACEHOLDER = re.compile(r"<[A-Za-z_][\w -]*>|\{\{?\s*[A-Za-z_][\w.]*\s*\}?\}"
                               r"|\[-*[A-Za-z_][\w -]*\]")
_PLACEHOLDER = re.compile(r"<[A-Za-z_][\w -]*>|\{\{?\s*[A-Za-z_][\w.]*\s*\}?\}")
_BLANK_AT_SEP = re.compile(r"/[ \t]+|[ \t]+/|[ \t]+\*|\*[ \t]+")


def path_paste_hints(name: str, spec: str) -> list[Hint]:
    """A path pattern pasted from a .gitignore, a template or formatted text."""
    out = _typographic(name, spec, "path")
    if spec.startswith("!"):
        out.append(("warning", f"{name}({spec}): a leading '!' is a .gitignore exception, "
                    "not one here: the rule names a file whose name starts with '!'",
                    f"write {name}({spec[1:]}) with the other effect (deny beats ask beats "
                    "allow)"))
    if spec.startswith("#"):
        out.append(("warning", f"{name}({spec}): a leading '#' is a .gitignore comment, not "
                    "one here: the rule names a file whose name starts with '#'",
                    "drop the rule, or write the path without '#'"))
    if (ph := _PLACEHOLDER.search(spec)) is not None:
        out.append(("warning", f"{ph.group(0)!r} in {name}({spec}) is a template "
                    "placeholder, which path rules do not fill in: the rule names a "
                    "directory called that",
                    f"write {name}(~/...) for the home directory, ./... for the working "
                    "directory, or //abs/path"))
    if _BLANK_AT_SEP.search(spec.strip()) is not None:  # `./secrets/ **`
        fixed = _BLANK_AT_SEP.sub(lambda m: m.group(0).strip(" \t"), spec.strip())
        out.append(("warning", f"{name}({spec}) has a blank next to a '/' or a '*': a path "
                    "pattern takes it literally, so the rule names a file or directory whose "
                    "name starts or ends with a blank", f"write {name}({fixed})"))
    if any(c in spec for c in "\n\r\v\f"):
        out.append(("warning", f"{name}({spec!r}) holds a line break: the rule names a path "
                    "holding one", "write each path as its own rule, on one line"))
    return out


def domain_paste_hints(spec: str) -> list[Hint]:
    """``WebFetch(domain:"example.com")``: quotes are part of the host."""
    host = spec.partition(":")[2].strip()
    if len(host) > 1 and host[0] == host[-1] and host[0] in "'\"":
        return [("warning", f"WebFetch({spec}): quotes are part of the host there, which "
                 "no URL's host holds", f"write WebFetch(domain:{host[1:-1]})")]
    if (ph := _PLACEHOLDER.search(host)) is not None:
        return [("warning", f"{ph.group(0)!r} in WebFetch({spec}) is a template placeholder, "
                 "which rules do not fill in: no URL's host is that",
                 "write the host, e.g. WebFetch(domain:example.com)")]
    return []
