"""xmlstarlet's XPath and stylesheets: code a value would write.

``[xmlstarlet, sel, -t, -v, "//item[@id='{{ id }}']", doc.xml]`` looks like a query, but
its XPath runs in libxslt: ``document('/home/me/.aws/credentials')`` reads any file the
tool can (and ``document('http://...')`` fetches a URL), and an ``id`` of ``x'] |
document('/etc/passwd') | //x['`` prints it. So is ``ed -u XPATH -x EXPR``, ``--var NAME
XPATH``, ``tr STYLESHEET`` and ``tr -p NAME=XPATH``. A value there is a load error; the
data options (``sel -o TEXT``, ``ed -v VALUE``/``-n NAME``, ``tr -s NAME=TEXT``, ``-N``
namespaces) and the input files load; ``sel -e``/``-a`` names are attribute value
templates (``{document(...)}``), code. Pass a value as data with
``tr -s`` (a string parameter the stylesheet reads as ``$q``).
"""

from __future__ import annotations

from collections.abc import Sequence

from toolhost.backends.code_opts import Token

__all__ = ["XMLSTARLET", "xmlstarlet_slots"]

Slot = tuple[str, str, str]  # (key, program, what)
XMLSTARLET = frozenset({"xmlstarlet", "xml"})
_XPATH = "an XPath expression (document() reads any file or URL)"
_STYLESHEET = "a script file"  # tr's stylesheet (command_checks words it so)
_COMMANDS = {"sel": "sel", "select": "sel", "ed": "ed", "edit": "ed", "tr": "tr",
             "transform": "tr"}
# per command: option -> (how many arguments, which of them are data by position)
_ARGS: dict[str, dict[str, tuple[int, frozenset[int]]]] = {
    "sel": {"-c": (1, frozenset()), "--copy-of": (1, frozenset()),
            "-v": (1, frozenset()), "--value-of": (1, frozenset()),
            "-m": (1, frozenset()), "--match": (1, frozenset()),
            "-i": (1, frozenset()), "--if": (1, frozenset()), "--elif": (1, frozenset()),
            "-s": (2, frozenset()), "--sort": (2, frozenset()),
            "-o": (1, frozenset({0})), "--output": (1, frozenset({0})),
            # an element's or attribute's name is an attribute value template in the
            # stylesheet sel writes: `{document('/etc/passwd')}` is evaluated
            "-e": (1, frozenset()), "--elem": (1, frozenset()),
            "-a": (1, frozenset()), "--attr": (1, frozenset()),
            "-E": (1, frozenset({0})), "--encoding": (1, frozenset({0})),
            "-N": (1, frozenset({0}))},
    "ed": {"-d": (1, frozenset()), "--delete": (1, frozenset()),
           "-i": (1, frozenset()), "--insert": (1, frozenset()),
           "-a": (1, frozenset()), "--append": (1, frozenset()),
           "-s": (1, frozenset()), "--subnode": (1, frozenset()),
           "-m": (2, frozenset()), "--move": (2, frozenset()),
           "-r": (1, frozenset()), "--rename": (1, frozenset()),
           "-u": (1, frozenset()), "--update": (1, frozenset()),
           "-x": (1, frozenset()), "--expr": (1, frozenset()),
           "-t": (1, frozenset({0})), "--type": (1, frozenset({0})),
           "-n": (1, frozenset({0})), "--name": (1, frozenset({0})),
           "-v": (1, frozenset({0})), "--value": (1, frozenset({0})),
           "-N": (1, frozenset({0}))},
    "tr": {"-p": (1, frozenset()), "-s": (1, frozenset({0})),
           "--maxdepth": (1, frozenset({0}))},
}
# options with no argument (the rest: an option it may read an argument for, fail closed)
_FLAGS = frozenset({"-t", "--template", "-n", "--nl", "-b", "--break", "--else", "-f",
                    "--inp-name", "-Q", "-C", "-R", "-T", "--text", "-I", "--indent", "-B",
                    "--noblanks", "--net", "-P", "--pf", "-S", "--ps", "-O", "--omit-decl",
                    "-L", "--inplace", "--show-ext", "--val", "--xinclude", "--html",
                    "-q", "--quiet", "--doc-namespace", "--no-doc-namespace", "--help",
                    "--version"})


def xmlstarlet_slots(tokens: Sequence[Token], i: int, name: str) -> list[Slot]:
    """The positions after ``xmlstarlet`` at ``i`` whose value writes XPath or chooses the
    stylesheet (or the command: ``xmlstarlet "{{ cmd }}"``)."""
    j = i + 1
    while j < len(tokens) and not tokens[j].value and tokens[j].text.startswith("-"):
        j += 1  # its global options take no argument
    if j >= len(tokens):
        return []
    if tokens[j].value:
        return [(tokens[j].key, name, "its command (sel, ed, tr: XPath, a stylesheet)")]
    command = _COMMANDS.get(tokens[j].text)
    if command is None:
        return []  # val, fo, el, c14n, ls, esc, pyx: data
    return _options(tokens, j + 1, name, command)


def _options(tokens: Sequence[Token], j: int, name: str, command: str) -> list[Slot]:
    slots: list[Slot] = []
    table, stylesheet = _ARGS[command], command == "tr"
    while j < len(tokens):
        token = tokens[j]
        if token.value or not token.text.startswith("-") or token.text == "-":
            if stylesheet and token.value:
                slots.append((token.key, name, _STYLESHEET))
            stylesheet = False  # after tr's stylesheet: parameters, then input files
            j += 1
            continue
        if token.text == "--var":
            # --var NAME=XPATH or --var NAME XPATH: the last word is the expression (a
            # value in the first word may write either: fail closed)
            nxt = tokens[j + 1] if j + 1 < len(tokens) else None
            named = nxt is not None and not nxt.value and "=" not in nxt.text
            count, data = (2, frozenset({0})) if named else (1, frozenset[int]())
        elif token.text in _FLAGS:
            j += 1
            continue
        else:
            count, data = table.get(token.text, (1, frozenset()))  # unknown: fail closed
        args = list(tokens[j + 1:j + 1 + count])
        for at, arg in enumerate(args):
            if arg.value and at not in data:
                slots.append((arg.key, name, _XPATH))
        j += 1 + count
    return slots
