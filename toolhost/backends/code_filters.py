"""Filter and query languages whose program a value would write.

``[jq, "{{ filter }}", data.json]`` looks like data, but a jq filter is a program: ``$ENV``
and ``env`` read the tool's environment (a server ``env:`` token), ``import "x" as $d
{search: "/"}`` reads any ``.json`` file, ``-L DIR`` loads modules. yq's ``load()`` reads
any file; a Miller ``put``/``filter`` expression runs ``system("...")`` and pipes output to
commands; an XSLT stylesheet or an ``xsltproc --param`` XPath reads files; a jsonnet snippet
``importstr``s any file; fx and jello run JavaScript and Python. A value in such a place is
a load error, as a value in ``sh -c`` is; the safe form passes it as a variable the
program reads (``jq --arg q "{{ q }}" '.[] | select(.name == $q)'``).

The program is the first operand, after the options; an option the table does not know
may take an argument or not, and both readings are checked (fail closed).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from toolhost.backends.code_opts import Token
from toolhost.backends.code_xmlstarlet import XMLSTARLET, xmlstarlet_slots

__all__ = ["FILTERS", "XMLSTARLET", "filter_slots", "safe_form"]

Slot = tuple[str, str, str]  # (key, program, what)
_SCRIPT = "a script file"
_LIBDIR = "option: a directory it loads code from"
_CODE = "code"


@dataclass(frozen=True)
class _Lang:
    """How a filter program reads its command line."""

    takes: dict[str, int]  # options that take arguments, and how many
    code: frozenset[str] = frozenset()  # options whose argument is code
    scripts: frozenset[str] = frozenset()  # options whose argument is a file of code
    libdirs: frozenset[str] = frozenset()  # options naming a directory of modules
    flags: frozenset[str] = frozenset()  # known options with no argument
    subcommands: frozenset[str] = frozenset()  # words before the program (yq eval)
    program_file: frozenset[str] = frozenset()  # flags making the first operand a file
    inline: frozenset[str] = frozenset()  # flags making it code after all (jsonnet -e)
    every_operand: bool = False  # each operand is code (fx's functions)
    operand_is_file: bool = False  # the first operand is a file of code, not code


_JQ_TAKES = {"--arg": 2, "--argjson": 2, "--slurpfile": 2, "--rawfile": 2, "--indent": 1,
             "-L": 1, "--library-path": 1, "--from-file": 0, "-f": 0}
_JQ_FLAGS = frozenset({
    "-n", "--null-input", "-r", "--raw-output", "-j", "--join-output", "-a", "--ascii-output",
    "-c", "--compact-output", "-s", "--slurp", "-S", "--sort-keys", "-C", "--color-output",
    "-M", "--monochrome-output", "-e", "--exit-status", "-R", "--raw-input", "--tab",
    "--stream", "--stream-errors", "--seq", "--unbuffered", "--args", "--jsonargs", "-h",
    "--help", "-V", "--version", "--raw-output0", "-0", "--yaml-input", "--yaml-output",
    "-y", "-Y", "--yml-output", "--yaml-roundtrip", "-x", "--xml-output", "-t",
    "--toml-output", "-i", "--in-place", "-P", "--prettyPrint", "-N", "--no-doc",
})
_JQ = _Lang(takes=_JQ_TAKES | {"-w": 1, "--width": 1, "--xml-root": 1, "--xml-dtd": 0,
                                "--xml-item-depth": 1, "--xml-force-list": 1, "-o": 1,
                                "--output-format": 1, "-p": 1, "--input-format": 1,
                                "-I": 1, "--expression": 1,
                                "--split-exp": 1, "--front-matter": 1},
            code=frozenset({"--expression"}), scripts=frozenset({"--from-file"}),
            libdirs=frozenset({"-L", "--library-path"}), flags=_JQ_FLAGS,
            subcommands=frozenset({"eval", "e", "eval-all", "ea"}),
            program_file=frozenset({"-f", "--from-file"}))
_XSLT = _Lang(takes={"-o": 1, "--output": 1, "--maxdepth": 1, "--maxvars": 1,
                     "--maxparserdepth": 1, "--path": 1, "--encoding": 1,
                     "--writesubtree": 1, "--param": 2, "--stringparam": 2},
              code=frozenset({"--param"}),  # its value is an XPath expression
              flags=frozenset({"-V", "--version", "-v", "--verbose", "--timing", "--repeat",
                               "--debug", "--novalid", "--nonet", "--nowrite", "--nomkdir",
                               "--noout", "--html", "--xinclude", "--load-trace",
                               "--catalogs", "--profile", "--nodict"}),
              operand_is_file=True)  # the first operand is the stylesheet
_JSONNET = _Lang(takes={"-J": 1, "--jpath": 1, "-V": 1, "--ext-str": 1, "--ext-str-file": 1,
                        "--ext-code": 1, "--ext-code-file": 1, "-A": 1, "--tla-str": 1,
                        "--tla-str-file": 1, "--tla-code": 1, "--tla-code-file": 1,
                        "-o": 1, "--output-file": 1, "-m": 1, "--multi": 1, "-s": 1,
                        "--max-stack": 1, "-t": 1, "--max-trace": 1},
                 code=frozenset({"--ext-code", "--tla-code"}),
                 scripts=frozenset({"--ext-code-file", "--tla-code-file"}),
                 libdirs=frozenset({"-J", "--jpath"}),
                 flags=frozenset({"-e", "--exec", "-S", "--string", "-y", "--yaml-stream",
                                  "-c", "--create-output-dirs", "-h", "--help", "--version"}),
                 inline=frozenset({"-e", "--exec"}), operand_is_file=True)
# program -> its language; jq's options serve its relatives (gojq, jaq, and both yq's)
FILTERS: dict[str, _Lang] = {
    "jq": _JQ, "gojq": _JQ, "jaq": _JQ, "yq": _JQ, "xq": _JQ, "tomlq": _JQ, "jello": _JQ,
    "xsltproc": _XSLT, "jsonnet": _JSONNET,
    "fx": _Lang(takes={}, every_operand=True),
}
# Miller: the DSL of its put and filter verbs (system, exec, `print | "cmd"`, `tee >`)
_MLR_VERB_TAKES = {"-f": 1, "-e": 1, "-s": 1}
_MLR_MAIN = {"--prepipe": "option: a command", "--prepipex": "option: a command",
             "--load": "option: a module, library or archive of code it loads",
             "--mload": "option: a module, library or archive of code it loads"}


def filter_slots(tokens: Sequence[Token], i: int, name: str) -> list[Slot]:
    """The positions after the filter program at ``i`` whose value would write its code."""
    if name == "mlr":
        return _miller(tokens, i)
    if name in XMLSTARLET:
        return xmlstarlet_slots(tokens, i, name)
    lang = FILTERS.get(name)
    if lang is None:
        return []
    slots: list[Slot] = []
    # (where the scan goes on, whether the first operand is a file of code: after jq -f,
    # always for a stylesheet or a jsonnet file but after jsonnet -e)
    todo, seen = [(i + 1, lang.operand_is_file)], set()
    while todo:
        state = todo.pop()
        if state not in seen:
            seen.add(state)
            _scan(tokens, i, name, lang, *state, slots, todo)
    return list(dict.fromkeys(slots))


def _scan(tokens: Sequence[Token], i: int, name: str, lang: _Lang, j: int, from_file: bool,
          slots: list[Slot], todo: list[tuple[int, bool]]) -> None:
    """One reading of the options from ``j``: find the first operand (the program)."""
    while j < len(tokens):
        token, text = tokens[j], tokens[j].text
        if text == "--" and not token.value:
            j += 1
            break
        if not text.startswith("-") or text == "-":
            if not token.value and j == i + 1 and text in lang.subcommands:
                j += 1
                continue
            break
        option, eq, _ = text.partition("=")
        if option in lang.program_file:
            from_file = True
        if option in lang.inline:
            from_file = False
        short = option[:2] if not option.startswith("--") and len(option) > 2 else None
        if token.value and short is not None and option not in lang.takes:
            # a value glued to a short option (-L{{ v }}): its argument, or more letters
            what = _what(short, lang) if short in lang.takes and not eq else _CODE
            slots.extend([(token.key, name, what)] if what is not None else [])
            j += 1
            continue
        if short is not None and short in lang.libdirs:  # -LDIR, literal
            j += 1
            continue
        count = lang.takes.get(option)
        if count is None:
            if option in lang.flags or (short is not None and _all_flags(option, lang)):
                j += 1
                continue
            # an option it does not know: its argument, or the program (both readings)
            todo.append((j + 1, from_file))
            count = 0 if eq else 1
        args = [tokens[j]] if eq else list(tokens[j + 1:j + 1 + count])
        if args and args[-1].value:
            what = _what(option, lang)
            if what is not None:
                slots.append((args[-1].key, name, what))
        j += 1 + (0 if eq else count)
    if lang.every_operand:
        slots.extend((t.key, name, _CODE) for t in tokens[j:] if t.value)
        return
    if j < len(tokens) and tokens[j].value:
        slots.append((tokens[j].key, name, _SCRIPT if from_file else _CODE))


def _all_flags(option: str, lang: _Lang) -> bool:
    """Whether ``-rcS`` is a bundle of known one-letter flags."""
    return all(f"-{letter}" in lang.flags for letter in option[1:])


def _what(option: str, lang: _Lang) -> str | None:
    if option in lang.code:
        return _CODE
    if option in lang.scripts:
        return _SCRIPT
    if option in lang.libdirs:
        return _LIBDIR
    if option in lang.takes:
        return None  # data: --arg's value, an output file, a number
    return _CODE  # an unknown option's argument may be the program (the other reading)


def _miller(tokens: Sequence[Token], i: int) -> list[Slot]:
    slots: list[Slot] = []
    if i + 2 < len(tokens) and tokens[i + 1].text == "-s" and tokens[i + 2].value:
        slots.append((tokens[i + 2].key, "mlr", "option: a file of its own options"))
    for j in range(i + 1, len(tokens)):
        token = tokens[j]
        what = _MLR_MAIN.get(token.text.partition("=")[0]) if not token.value else None
        if what is not None:
            glued = "=" in token.text
            arg = token if glued else (tokens[j + 1] if j + 1 < len(tokens) else None)
            if arg is not None and arg.value:
                slots.append((arg.key, "mlr", what))
        if not token.value and token.text in ("put", "filter"):
            slots.extend(_miller_verb(tokens, j + 1))
    return slots


def _miller_verb(tokens: Sequence[Token], j: int) -> list[Slot]:
    """``put``/``filter``'s flags, then its expression (unless -f/-e gave it)."""
    slots: list[Slot] = []
    given = False
    while j < len(tokens) and tokens[j].text.startswith("-") and not tokens[j].value:
        flag = tokens[j].text
        count = _MLR_VERB_TAKES.get(flag, 0)
        if flag in ("-f", "-e"):
            given = True
            if j + 1 < len(tokens) and tokens[j + 1].value:
                slots.append((tokens[j + 1].key, "mlr", _SCRIPT if flag == "-f" else _CODE))
        j += 1 + count
    if not given and j < len(tokens) and tokens[j].value:
        slots.append((tokens[j].key, "mlr", _CODE))
    return slots


def safe_form(program: str) -> str | None:
    """The way to pass a value to the filter program as data, for the load error's hint."""
    if program in ("jq", "gojq", "jaq", "yq", "xq", "tomlq"):
        return (f"[{program}, --arg, q, \"{{{{ q }}}}\", '.[] | select(.name == $q)', "
                "data.json]")
    if program == "mlr":
        return "[mlr, --icsv, --ojson, filter, -s, \"q={{ q }}\", '$name == @q', data.csv]"
    if program == "xsltproc":
        return "[xsltproc, --stringparam, q, \"{{ q }}\", style.xsl, doc.xml]"
    if program in XMLSTARLET:
        return (f"[{program}, tr, style.xsl, -s, \"q={{{{ q }}}}\", doc.xml]  "
                "# the stylesheet reads $q")
    if program == "jsonnet":
        return "[jsonnet, --ext-str, \"q={{ q }}\", main.jsonnet]  # std.extVar('q')"
    return None
