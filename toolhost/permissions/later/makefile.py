"""A Makefile read as far as the rules need it (``later.make``): its rules, their
recipe lines, and what each variable a recipe names may hold.

Not a make: anything whose effect cannot be read from the text alone (an ``include``, a
``$(shell ...)``, ``$(eval ...)``, a ``!=`` assignment, a ``define``, another recipe prefix
or shell, a line that only a variable's value makes a rule) raises :class:`Unknown`, and the
command running make is not provable. Conditionals are not evaluated: every branch's
recipes are judged, and a variable assigned in a branch may hold each value it is given.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from toolhost.permissions.bash.shell_builtins import COMMAND_VARS, DANGEROUS_VARS
from toolhost.permissions.fileread import read_regular

__all__ = ["GIT_ENV", "LIMIT", "RUNS", "SPECIAL", "Makefile", "Rule", "Unknown", "parse_makefile",
           "parsed_makefiles", "read_text"]

LIMIT = 64 * 1024  # a Makefile longer than this is not read (not provable)
_MAX_VALUES = 64  # the values one variable may hold (branches, a target's values)


class Unknown(Exception):
    """What in a Makefile (or a make command) cannot be read: the command is not provable."""


@dataclass
class Rule:
    """One rule: its targets, prerequisites and recipe lines (as written)."""

    targets: list[str]
    prereqs: list[str]
    recipe: list[str]
    always: bool = False  # a pattern, suffix, static pattern or .DEFAULT rule: may run anyway
    in_branch: bool = False  # written in a conditional (make may not read it)


@dataclass
class Makefile:
    """What the rules need of a Makefile: its rules and each variable's possible values."""

    rules: list[Rule] = field(default_factory=list)
    values: dict[str, list[str]] = field(default_factory=dict)  # name -> each value it may hold
    weak: set[str] = field(default_factory=set)  # assigned with ?= only: the environment wins
    overrides: set[str] = field(default_factory=set)  # ``override X``: beats the line's X=
    in_branch: set[str] = field(default_factory=set)  # assigned in a conditional (may not be)
    # values given for a target (``x: C = rm``): a later ``C = echo`` does not replace them
    targeted: dict[str, list[str]] = field(default_factory=dict)
    vpaths: list[str] = field(default_factory=list)  # each vpath directive's words
    oneshell: bool = False
    second_expansion: bool = False


# what runs while make reads the file, or makes the text mean something else than it says
RUNS = re.compile(r"\$[({]\s*(?:shell|eval|file|guile|load)\b")
_BANNED = re.compile(r"(?:-?include|sinclude|-?load|define|endef)(?:\s|$)")
SPECIAL = frozenset({"SHELL", ".SHELLFLAGS", ".RECIPEPREFIX", "MAKEFILES", "MAKEFLAGS",
                     "GNUMAKEFLAGS", "MFLAGS", ".EXTRA_PREREQS", "MAKESHELL", "VPATH",
                     "GPATH"})
_CONDITIONAL = re.compile(r"(?:ifeq|ifneq|ifdef|ifndef|else|endif)(?:\s|$)")
_ASSIGN = re.compile(r"((?:(?:override|export|private|unexport)\s+)*)"
                     r"([^\s:#=?+!$]+|\$[({][^)}]*[)}])\s*(::?:?=|\?=|\+=|!=|=)\s*(.*)")
# where a recipe's git finds its repository and config: GIT_DIR=evil/.git
_GIT_ENV = re.compile(r"GIT_|HOME$")
GIT_ENV = _GIT_ENV
_SUFFIX_RULE = re.compile(r"(?:\.[A-Za-z0-9_]+){1,2}")


def read_text(path: str) -> tuple[str | None, bool]:
    """(the text, whether the file is there): None for a file that cannot be read as text
    here (a FIFO or device: never opened blocking; too long; not UTF-8)."""
    read = read_regular(path, LIMIT)
    if read.kind in ("missing", "directory"):  # (make skips a directory)
        return None, False
    if read.kind == "other" or read.too_long or b"\x00" in read.data:
        return None, True
    try:
        return read.data.decode("utf-8"), True
    except UnicodeDecodeError:
        return None, True


@lru_cache(maxsize=64)
def parsed_makefiles(texts: tuple[str, ...]) -> Makefile:
    """``texts`` (the Makefiles make reads, in order) parsed into one, remembered by their
    text (each ``make`` reads the files again: any change is a new text). Read-only."""
    mk = Makefile()
    for text in texts:
        parse_makefile(text, mk)
    return mk


def parse_makefile(text: str, into: Makefile | None = None) -> Makefile:
    """The rules and variable values of ``text`` (added to ``into``, for ``-f a -f b``)."""
    mk = into or Makefile()
    if RUNS.search(text):
        raise Unknown("it calls a make function that runs something while make reads it")
    # conditionals are not evaluated: a branch may be read or not. ``rules``: each rule a
    # tab line may belong to (None: no rule, the line is read as make text); ``opened``: per
    # open conditional, the rules before it, those each branch ended with, a plain else seen
    rules: list[Rule | None] = [None]
    opened: list[tuple[list[Rule | None], list[Rule | None], bool]] = []
    lines = text.replace("\r\n", "\n").split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if line.startswith("\t") and any(r is not None for r in rules):
            if None in rules:  # (a recipe line, or a make line: which is not known)
                raise Unknown("a tab line after a conditional may be a recipe or a make line")
            # a recipe line (a tab-indented ifeq/endif too: make hands it to the shell).
            # make keeps an odd final backslash and the newline for the shell (which joins
            # the lines outside a comment or quotes), taking the next line's tab away
            while _continued(line) and i < len(lines):
                nxt = lines[i]
                i += 1
                line = line + "\n" + (nxt[1:] if nxt.startswith("\t") else nxt)
            for rule in _distinct(rules):
                if rule is not None:
                    rule.recipe.append(line[1:])
            continue
        while _continued(line) and i < len(lines):  # (an even count is no continuation)
            line = line[:-1].rstrip() + " " + lines[i].lstrip()
            i += 1
        if "\\#" in line:
            raise Unknown("an escaped '#' outside a recipe")
        stripped = _split_rule_line(line, semicolon=False)[0].strip()
        if not stripped:
            continue
        if _CONDITIONAL.match(stripped):
            rules = _conditional(stripped, rules, opened)
            continue
        if _BANNED.match(stripped):
            raise Unknown(f"a {stripped.split(None, 1)[0]!r} directive (what it brings or "
                          "defines is not read)")
        assign = _ASSIGN.fullmatch(stripped)
        if assign is not None and ":" not in stripped.split("=", 1)[0].rstrip(":"):
            rules = [None]
            _assign(mk, assign, bool(opened))
            continue
        if stripped.split(None, 1)[0] in ("export", "unexport", "vpath", "undefine"):
            rules = [None]  # (no value, or a search path: nothing runs)
            if stripped.startswith("vpath"):  # (its directories prefix $< $^: later.make)
                mk.vpaths.append(stripped[len("vpath"):])
            continue
        if ":" not in stripped:
            # a line only a variable's value can make a rule of, or no line make knows
            raise Unknown(f"the line {stripped[:60]!r} is not read as a rule or an assignment")
        head, first = _split_rule_line(line)
        rules = [_rule(mk, head.strip(), first, bool(opened))]
    if opened:
        raise Unknown("a conditional is not closed")
    return mk


def _conditional(line: str, rules: list[Rule | None],
                 opened: list[tuple[list[Rule | None], list[Rule | None], bool]]
                 ) -> list[Rule | None]:
    """The rules a tab line may belong to after the conditional directive ``line``: a branch
    starts with the rules before its ``ifeq``; after ``endif``, any a branch ended with (or
    those before, when every branch may be skipped)."""
    word, rest = [*line.split(None, 1), ""][:2]
    if word.startswith("if"):
        opened.append((rules, [], False))
        return rules
    if not opened:
        raise Unknown(f"an {word!r} with no conditional open")
    before, ended, plain_else = opened.pop()
    ended = [*ended, *rules]
    if word == "else":
        if plain_else:
            raise Unknown("a second 'else' in one conditional")
        if rest.strip() and not _CONDITIONAL.match(rest.strip()):
            raise Unknown("text after an 'else'")  # (make warns, then reads it as a plain else)
        opened.append((before, ended, not rest.strip()))
        return before
    return _distinct(ended if plain_else else [*ended, *before])


def _distinct(rules: list[Rule | None]) -> list[Rule | None]:
    """``rules`` with each rule once (rules are compared by identity: two alike are two)."""
    return list({id(r): r for r in rules}.values())


def _continued(line: str) -> bool:
    """Whether make joins the next line to ``line`` (an odd number of final backslashes)."""
    return (len(line) - len(line.rstrip("\\"))) % 2 == 1


def _split_rule_line(line: str, semicolon: bool = True) -> tuple[str, str | None]:
    """(the line up to its comment or its first unquoted ``;``, the recipe after the ``;``):
    make looks for whichever comes first outside ``$(...)``/``${...}``, and keeps the recipe's
    ``#`` for the shell (``x: ; echo $$#; rm y`` runs rm)."""
    i = 0
    while i < len(line):
        ch = line[i]
        if ch == "$" and line[i + 1:i + 2] in ("(", "{"):
            close, level, j = ")" if line[i + 1] == "(" else "}", 0, i + 1
            while j < len(line):
                level += line[j] == line[i + 1]
                level -= line[j] == close
                if level == 0:
                    break
                j += 1
            i = j + 1
            continue
        if ch == "#":
            return line[:i], None
        if ch == ";" and semicolon:
            return line[:i], line[i + 1:]
        i += 1
    return line, None


def _assign(mk: Makefile, found: re.Match[str], branch: bool, targeted: bool = False) -> None:
    name, op, value = found.group(2), found.group(3), found.group(4).strip()
    if "$" in name:
        raise Unknown(f"a variable whose name is computed ({name!r})")
    if DANGEROUS_VARS.fullmatch(name) or name in COMMAND_VARS or _GIT_ENV.match(name):
        # (make passes it to every recipe: PATH from the environment is exported with the
        # Makefile's value, BASH_ENV when exported; as ``PATH=./bin ls`` on a line)
        raise Unknown(f"it sets {name!r}, which changes what the recipes' programs run")
    if name in SPECIAL or op == "!=":
        raise Unknown(f"it sets {name!r}" if op != "!=" else
                      f"{name!r} is assigned a shell command's output")
    if name == ".ONESHELL":
        mk.oneshell = True
    if "override" in found.group(1).split():
        mk.overrides.add(name)
    if branch:
        mk.in_branch.add(name)
    old = mk.values.get(name, [])
    if op == "+=":
        new = [f"{v} {value}".strip() for v in (old or [""])]
        mk.values[name] = (old + new) if branch else new
    elif op == "?=":
        mk.values[name] = [*old, value] if old or branch else [value]
        if not old:
            mk.weak.add(name)
    else:
        mk.values[name] = [*old, value] if branch else [value]
        mk.weak.discard(name)
    if len(mk.values[name]) > _MAX_VALUES:
        raise Unknown(f"{name!r} may hold too many values to follow")
    if targeted:  # (a target's value holds wherever that target's recipe runs)
        mk.targeted.setdefault(name, []).extend(mk.values[name])
    elif name in mk.targeted and not branch:
        # a target's ``C += x`` adds to whatever global value C holds when the recipe runs
        mk.values[name] = list(dict.fromkeys([*mk.targeted[name], *mk.values[name], *(
            f"{v} {t}" for v in mk.values[name] for t in mk.targeted[name])]))


def _rule(mk: Makefile, line: str, first: str | None, branch: bool) -> Rule:
    """A rule line ``targets: prereqs ; recipe`` (``::``, ``&:``, a static pattern, target
    specific variables)."""
    head, _, rest = line.partition(":")
    rest = rest.lstrip(":&")
    recipe = [] if first is None else [first.strip()]
    targets = head.split()
    if head.strip() in (".ONESHELL",):
        mk.oneshell = True
    if head.strip() == ".SECONDEXPANSION":
        mk.second_expansion = True
    # (target: X = a ; b: make puts the ';' back, the value is 'a ; b')
    target_var = _ASSIGN.fullmatch((rest if first is None else f"{rest};{first}").strip())
    if target_var is not None:  # target: VAR = value (a value it may hold, anywhere)
        _assign(mk, target_var, True, targeted=True)
        return Rule(targets, [], [])
    always = ":" in rest or any(
        "%" in t or t == ".DEFAULT" or _SUFFIX_RULE.fullmatch(t) for t in targets)
    rule = Rule(targets, rest.replace("|", " ").split(), recipe, always, branch)
    mk.rules.append(rule)
    return rule
