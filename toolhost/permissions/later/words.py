"""What a file a later command runs is given must name its programs plainly.

``echo 'rm -rf y' >> ~/.bashrc`` meets ``Bash(rm:*)`` (``later.files``: the content on the line
is tried as command lines by the deny rules), but ``echo 'r${X}m -rf y' >> ~/.bashrc`` named
no ``rm`` and ``allow: Bash`` allowed it: the next shell runs ``rm``. So does a git alias
``k = !r$()m y`` written into ``.git/config`` or a hook ``.git/hooks/pre-commit``. Each line
of content such a line writes (its literals and here-document lines) is read as the shell
will read it: a command whose program word is not a plain literal (an expansion, a
substitution, an escape, a glob) makes the writing line not provable. A line that is a
setting (``[alias]``, ``key = value`` with no ``!``), a cron line's times and leading
assignments (``export PATH=$PATH:/x``) are not commands and stay as they were.
"""

from __future__ import annotations

import re

from toolhost.permissions.bash.interpreters import _CODE_STRING
from toolhost.permissions.later.files import quick, run_later_content
from toolhost.permissions.shell.parse import ParsedCommand, ShellSyntaxError, parse_command

__all__ = ["RUNS_KEYS", "later_words_reason", "unplain_lines"]

_SECTION = re.compile(r"\s*\[[^\]]*\]\s*")  # an ini section: [alias], [core]
_SETTING = re.compile(r"\s*[\w.\"-]+\s*[=:]\s*(.*)")  # key = value, key: value
# git settings whose value runs as a command line (core.pager, core.editor, core.sshCommand,
# diff.external, credential.helper, sequence.editor, gpg.program, core.askPass, core.fsmonitor,
# filter.*.clean/smudge/process, diff.*.textconv/command, merge.*.driver, *.cmd, ...)
_RUNS_KEYS = frozenset({"pager", "editor", "sshcommand", "external", "helper", "program",
                        "askpass", "fsmonitor", "textconv", "command", "clean", "smudge",
                        "process", "driver", "cmd", "packobjectshook", "receivepackhook",
                        "proxycommand", "gitproxy", "sendmailcmd", "smtpserver"})
RUNS_KEYS = _RUNS_KEYS  # (git.config_runs: the same keys in a repository's config)
_CRON = re.compile(r"(?:@\w+|(?:[0-9*/,-]+\s+){4}[0-9*/,-]+)\s+(.*)")
_CASE_ARM = re.compile(r"\(?[^\s()]+\)\s*(.*)")  # `*i*) ;;`, `xterm*|rxvt*) cmd`: patterns
_ASSIGN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=")
_SKIP = frozenset({"!", "{", "}", "if", "then", "else", "elif", "fi", "do", "done", "while",
                   "until", "esac", "export", "declare", "typeset", "local", "readonly"})
_WRITERS = frozenset({"echo", "printf", "tee", "cat"})  # those whose content is on the line
_MAX_TEXT = 65_536  # (run_later_reason refuses longer content)


def _commands(line: str, section: str = "") -> list[str]:
    """The shell text of one content line that a later shell may run as a command
    (``section``: the ini section the line is in, lower case)."""
    if _SECTION.fullmatch(line):
        return []
    if (m := _SETTING.match(line)) is not None and not line.lstrip().startswith(
            ("export", "alias")) and " " in line.split("=")[0] + " ":
        value = m.group(1).strip().strip("'\"")
        if value.startswith("!"):
            return [value[1:]]
        key = re.split(r"\s*[=:]", line.strip(), maxsplit=1)[0].strip("\"").lower()
        # git runs these values as a command line with no `!`
        runs = key.rsplit(".", 1)[-1] in _RUNS_KEYS or section.split()[:1] == ["pager"] \
            or key.startswith("pager.")
        return [value] if runs and not (section.startswith("alias") or key.startswith(
            "alias.")) else []
    if (m := _CRON.fullmatch(line)) is not None:
        return [m.group(1)]
    if (m := _CASE_ARM.fullmatch(line)) is not None:  # a case arm: its command, if any
        return [m.group(1)]
    return [line.partition("!")[2]] if line.startswith(":") else [line]


def _unplain(text: str) -> str | None:
    try:
        parsed = parse_command(text)
    except ShellSyntaxError:
        return None  # (a line alone may not parse: the deny rules try its words)
    for words in parsed.words + parsed.nested_words:
        k = 0
        while k < len(words) and (words[k].value in _SKIP or _ASSIGN.match(words[k].value)):
            k += 1
        if k < len(words) and not words[k].plain and not words[k].value.startswith("-"):
            return words[k].raw
    return None


def later_words_reason(parsed: ParsedCommand, command: str) -> str | None:
    """Why content ``command`` writes into a file a later command runs names a program that
    is not a plain literal (None: it writes none, or every program is plain)."""
    if not quick(command) or len(command) > _MAX_TEXT or not run_later_content(parsed):
        return None
    texts = [w.value for words in parsed.words + parsed.nested_words  # echo/printf words
             if words and words[0].value in _WRITERS for w in words[1:]]
    if "<<" in command:  # a here-document's or here-string's lines, as they are
        texts.append(command.partition("\n")[2])
        texts += [next(g for g in m.groups() if g is not None)
                  for m in _CODE_STRING.finditer(command.partition("\n")[0])]
    for text in texts:
        section = ""
        for line in text.replace("\\n", "\n").split("\n"):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if _SECTION.fullmatch(line):
                section = line.strip("[] \t").lower()
            for shell_text in _commands(line, section):
                if (word := _unplain(shell_text)) is not None:
                    return (f"it writes a file a later command runs with the command word "
                            f"{word!r}, which is not a plain literal (the next shell or git "
                            "runs what it expands to, which the rules cannot see)")
    return None


def unplain_lines(text: str) -> str | None:
    """The first command word of ``text`` (a script, read line by line as a hook's text
    written on a line is) that is not a plain literal (None: each one is)."""
    for line in text.replace("\\\n", " ").splitlines():  # a continued line is one
        line = line.strip()
        if line and not line.startswith("#"):
            for shell_text in _commands(line):
                if (word := _unplain(shell_text)) is not None:
                    return word
    return None
