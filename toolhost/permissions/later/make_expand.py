"""Make's ``$(NAME)`` references in a recipe line, expanded to each text it may become
(``later.make``). Make splices a variable's text into the line before the shell reads it,
so an unknown value anywhere (an argument too: ``a; rm x``) is not provable."""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Mapping

from toolhost.permissions.later.make_funcs import ARITY, apply, split_args
from toolhost.permissions.later.makefile import Makefile, Unknown

__all__ = ["BUILTIN", "Scope", "expand"]

_MAX_TEXTS = 32  # the texts one line may become (each variable's values, multiplied)
_MAX_DEPTH = 16
# the references one make's reading may expand, and the longest text: A = $(B)$(B)...
# nested 14 deep is 10^14 references for a 1 KiB Makefile (never a hang: not provable)
_MAX_REFERENCES = 20_000
_MAX_TEXT = 64 * 1024
# GNU make's own values (``make -p``): the environment (or the line) may override them
BUILTIN = {
    "AR": "ar", "AS": "as", "CC": "cc", "CXX": "g++", "CPP": "$(CC) -E", "FC": "f77",
    "M2C": "m2c", "PC": "pc", "CO": "co", "GET": "get", "LEX": "lex", "YACC": "yacc",
    "LINT": "lint", "MAKEINFO": "makeinfo", "TEX": "tex", "TEXI2DVI": "texi2dvi",
    "WEAVE": "weave", "CWEAVE": "cweave", "TANGLE": "tangle", "CTANGLE": "ctangle",
    "RM": "rm -f", "LD": "ld", "OBJC": "cc", "ARFLAGS": "rv", "CFLAGS": "", "CXXFLAGS": "",
    "CPPFLAGS": "", "LDFLAGS": "", "LDLIBS": "", "LOADLIBES": "", "FFLAGS": "",
    "ASFLAGS": "", "TARGET_ARCH": "", "OUTPUT_OPTION": "-o $@", "YFLAGS": "", "LFLAGS": "",
}
_AUTOMATIC = frozenset("@<^?*+|%")
_CALL = re.compile(r"([a-z-]+)[ \t]+(.*)", re.S)


class Scope:
    """Where a recipe's names get their values: the Makefile, the command line (``make
    X=1``), make itself, the environment (a name no one else gives: not provable; one the
    line may set: not provable)."""

    def __init__(self, mk: Makefile, given: Mapping[str, str], made: Mapping[str, str],
                 env_set: frozenset[str] | None, env_wins: bool,
                 spent: list[int] | None = None) -> None:
        self.spent = [0] if spent is None else spent  # references expanded (shared)
        self.mk = mk
        self.given = given  # make's command-line assignments: they override the file
        self.made = made  # MAKE, CURDIR, MAKECMDGOALS ...
        self.env_set = env_set  # names the line may put in the environment (None: any)
        self.env_wins = env_wins  # make -e

    def binding(self, name: str, value: str) -> Scope:
        """This scope with ``$(name)`` holding ``value`` (a ``foreach`` variable)."""
        if "$" in value:  # (make does not expand it again; this reading would)
            raise Unknown(f"a foreach word holds a '$' ({value[:40]!r})")
        return Scope(self.mk, {**self.given, name: value}, self.made, self.env_set,
                     self.env_wins, self.spent)

    def _from_env(self, name: str) -> list[str]:
        if self.env_set is None or name in self.env_set:
            raise Unknown(f"a recipe names $({name}), which the command line may set in the "
                          "environment")
        return [os.environ[name]] if name in os.environ else []

    def values(self, name: str) -> list[str]:
        """Each text ``$(name)`` may hold (unexpanded)."""
        if name in self.given:  # (an ``override`` in the Makefile beats the line's value)
            return [self.given[name], *(self.mk.values.get(name, [])
                                        if name in self.mk.overrides else [])]
        if name in self.made and name in self.mk.values:  # (MAKE = rm: the file's wins)
            raise Unknown(f"the Makefile sets make's own variable {name}")
        if name in self.made:  # (the environment overrides all but CURDIR: MAKE=x make)
            return [self.made[name], *([] if name == "CURDIR" else self._from_env(name))]
        if name in self.mk.values:
            own = list(self.mk.values[name])
            if name in self.mk.weak or self.env_wins:
                own += self._from_env(name)
            return own
        if name in BUILTIN:
            return [BUILTIN[name], *self._from_env(name)]
        raise Unknown(f"a recipe names $({name}), which the Makefile does not set: its value "
                      "comes from the environment")


def expand(text: str, scope: Scope, auto: Mapping[str, str], depth: int = 0) -> list[str]:
    """Each text ``text`` may become once make expands it (``auto``: the automatic
    variables, ``@`` ``<`` ``^`` ...; one not given becomes a shell parameter, ``${MAKE_AT}``,
    whose value no rule can prove as a program)."""
    if depth > _MAX_DEPTH:
        raise Unknown("variables refer to each other too deep")
    pieces: list[list[str]] = []
    plain: list[str] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c != "$":
            plain.append(c)
            i += 1
            continue
        if i + 1 >= len(text):
            break
        nxt = text[i + 1]
        if nxt == "$":
            plain.append("$")
            i += 2
            continue
        if nxt in "({":
            end, inner = _closing(text, i + 1)
            i = end + 1
        else:
            inner, i = nxt, i + 2
        pieces.append(["".join(plain)])
        plain = []
        pieces.append(_reference(inner, scope, auto, depth))
    pieces.append(["".join(plain)])
    out: list[str] = []
    for combo in itertools.product(*pieces):
        out.append("".join(combo))
        if len(out[-1]) > _MAX_TEXT:
            raise Unknown("a recipe line becomes too long a text to judge")
        if len(out) > _MAX_TEXTS:
            raise Unknown("a recipe line may become too many texts to judge")
    return list(dict.fromkeys(out))


def _closing(text: str, at: int) -> tuple[int, str]:
    close = ")" if text[at] == "(" else "}"
    level = 0
    for j in range(at, len(text)):
        if text[j] == text[at]:
            level += 1
        elif text[j] == close:
            level -= 1
            if level == 0:
                return j, text[at + 1:j]
    raise Unknown("a '$(' without its ')'")


def _reference(inner: str, scope: Scope, auto: Mapping[str, str], depth: int) -> list[str]:
    """The texts of one ``$(...)``: a variable, an automatic variable, a substitution."""
    scope.spent[0] += 1
    if scope.spent[0] > _MAX_REFERENCES:
        raise Unknown("its variables refer to each other too many times to follow")
    if inner[:1] in _AUTOMATIC and inner[1:] in ("", "D", "F"):
        if inner in auto:
            return [auto[inner]]
        return ["${MAKE_AUTOMATIC}"]  # (a pattern's stem: not a plain program)
    call = _CALL.match(inner)
    if call is not None and call.group(1) in ARITY:
        return _function(call.group(1), call.group(2), scope, auto, depth)
    if "$" in inner:
        raise Unknown(f"a variable whose name is computed ($({inner}))")
    if any(ch in inner for ch in " \t,"):
        raise Unknown(f"a make function in a recipe ($({inner[:40]}))")
    name, colon, sub = inner.partition(":")
    out: list[str] = []
    for value in scope.values(name):
        out += expand(value, scope, auto, depth + 1)
    if colon:  # $(SRC:.c=.o): each word's suffix replaced
        old, eq, new = sub.partition("=")
        if not eq or "%" in sub:
            raise Unknown(f"a substitution make reads otherwise ($({inner}))")
        out = [" ".join(w[:-len(old)] + new if old and w.endswith(old) else w
                        for w in v.split()) for v in out]
    return out or [""]


def _function(name: str, rest: str, scope: Scope, auto: Mapping[str, str],
              depth: int) -> list[str]:
    """The texts of ``$(name rest)``, each argument's texts combined (``later.make_funcs``)."""
    args = split_args(rest, ARITY[name])
    if name == "if":
        out: list[str] = []
        for cond in expand(args[0].strip(), scope, auto, depth + 1):
            branch = args[1] if cond.strip() else (args[2] if len(args) > 2 else "")
            out += expand(branch, scope, auto, depth + 1)
        return out
    if name == "foreach":
        out = []
        for var in expand(args[0].strip(), scope, auto, depth + 1):
            for items in expand(args[1], scope, auto, depth + 1):
                each = [expand(args[2] if len(args) > 2 else "", scope.binding(var, w), auto,
                               depth + 1) for w in items.split()]
                out += [" ".join(c) for c in _product(each)]
        return out
    texts = [expand(a, scope, auto, depth + 1) for a in args]
    return [apply(name, list(c), scope.made.get("CURDIR", ".")) for c in _product(texts)]


def _product(choices: list[list[str]]) -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = []
    for combo in itertools.product(*choices):
        out.append(combo)
        if len(out) > _MAX_TEXTS:
            raise Unknown("a recipe line may become too many texts to judge")
    return out
