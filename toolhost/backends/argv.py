"""Compile a command's argv template and render it so that what runs is what the config says.

The rules (docs/backends.md states them for users):

- Every element is exactly one argument, even when it renders empty. The only exception is an
  element that prints no value at all, only literal text under ``{% ... %}``
  (``"{% if verbose %}-v{% endif %}"``): it is dropped when empty, which can remove a flag but
  never a value or shift one.
- ``{if: name, argv: [...]}`` is present only when ``name`` was given (not left out, not null,
  not false); ``{each: name, argv: [...]}`` repeats once per item, and each repeat gives exactly
  the group's arguments (an item that is a list or object renders as one JSON argument);
  exactly ``"{{ name }}"`` with a list value gives one argument per item (empty items stay
  empty arguments).
- A value that starts an argument (or a list item) and begins with an option character
  (``-``, ``+``, ``@``: ``OPTION_CHARS``) is refused, unless a
  literal ``--`` element comes before it, the param is listed in ``allow_dash``, or the values
  are JSON numbers and the argument is a plain number (``-5``, ``-2.5``: digits, a sign and a
  point, which no program reads as an option letter; numbers never render with an exponent
  nor a ``+``). ``allow_dash`` follows a value to the params it may come from
  (``argv_names``), never to a name a template binds itself.
- A param that a value position always needs must be required or have a default: left out, it
  would render empty.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from toolhost.backends import templating
from toolhost.backends.argv_names import analyse, printed_names
from toolhost.backends.argv_operands import operand_problem
from toolhost.backends.argv_size import MAX_ARGV_ELEMENTS, check_size
from toolhost.backends.operand_reads import EXPRESSION_WORDS, past_dashdash
from toolhost.excerpt import cut

__all__ = [
    "MAX_ARGV_ELEMENTS",
    "OPTION_CHARS",
    "OPTION_CHARS_TEXT",
    "ArgvConfigError",
    "ArgvPlan",
    "ArgvRefused",
    "Element",
    "always_needed",
    "compile_argv",
    "is_given",
    "printed_names",
]

# The first characters that make an argument an option for some program: '-' (getopt and
# nearly every other parser), '+' (vi/ex/vim/less/more `+command`, the obsolete `+N` of sort,
# tail, head, uniq and pr, sh's `+x`), '@' (a response file of options: gcc, clang, ld,
# javac, java). No program reads '/' (Windows-style options) on the systems toolhost runs
# commands on, and an absolute path starts with it.
OPTION_CHARS = "-+@"
OPTION_CHARS_TEXT = "'-', '+' or '@'"
_AS_OPTION = {"-": "an option", "+": "an option or a command ('+cmd')",
              "@": "a file of options ('@file')"}

# What a number may render as to pass the dash check (templating.number_text never writes an
# exponent, inf or nan; text a template builds around a number must still look like this).
_PLAIN_NUMBER = re.compile(r"-?[0-9]+(\.[0-9]+)?")

# `{% ... %}` and `{# ... #}`: what is left of a flag element is the flag it may print
_TAGS = re.compile(r"\{%.*?%\}|\{#.*?#\}", re.DOTALL)

# Jinja syntax in argv[0]: the program must be a literal the config author wrote.
_JINJA_MARKS = ("{{", "{%", "{#")


class ArgvRefused(ValueError):
    """A call's values would change what runs; the message names the param."""


class ArgvConfigError(ValueError):
    """The argv template is unsafe or malformed; ``key`` is the key-path suffix."""

    def __init__(self, message: str, key: str, hint: str = "") -> None:
        super().__init__(message)
        self.key, self.hint = key, hint


def is_given(value: Any) -> bool:
    """Whether an ``{if: name}`` group is present for this value: not left out, not null,
    not false, not an empty list (``{if: x, argv: [--exclude, "{{ x }}"]}`` with ``x: []``
    would leave ``--exclude`` to take the next argument as its value)."""
    if value is None or value is False:
        return False
    return not (type(value) in (list, tuple) and not value)


def _takes_next(text: str) -> bool:
    """An option that may read the next argument as its value: ``-o``, ``--hide`` (not
    ``-``, ``--``, nor ``--name=value``, whose value is inside it)."""
    return text[:1] == "-" and text != "-" and text != "--" and "=" not in text


class _Render:
    """One render's bookkeeping. ``gap``: an element rendered no argument since the last
    one written; ``taken``: the option right before a literal ``--`` that a gap made
    adjacent, so the program may read that ``--`` as the option's value (the values after
    it are dash-checked as if there were no ``--``)."""

    __slots__ = ("gap", "tails", "taken", "valued")

    def __init__(self) -> None:
        self.gap = False
        self.taken: str | None = None
        # (index in out, literal length before the value) of the arguments printing a value
        self.valued: list[tuple[int, int]] = []
        self.tails: dict[int, int] = {}  # index -> literal length after the value

    def emit(self, out: list[str], text: str, element: Element) -> None:
        if self.gap:
            if text == "--" and element.literal_only and self.taken is None \
                    and _takes_next(out[-1]):
                self.taken = out[-1]
            self.gap = False
        if not element.literal_only:
            self.valued.append((len(out), len(element.literal_prefix)))
            if element.literal_suffix:
                self.tails[len(out)] = len(element.literal_suffix)
        out.append(text)


@dataclass(frozen=True)
class Element:
    """One argv element: a template, or an ``each`` / ``if`` group of templates."""

    key: str  # ".argv[3]" or ".argv[3].argv[1]"
    source: str = ""
    template: templating.AnyTemplate | None = None
    outputs: frozenset[str] = frozenset()  # params whose values it may print
    needs: frozenset[str] = frozenset()  # params it prints by name ({{ name }})
    literal_only: bool = True  # prints no value: dropped when it renders empty
    literal_prefix: str = ""  # the literal text the argument always starts with
    literal_suffix: str = ""  # ... and ends with, after its last tag
    expand: str | None = None  # exactly {{ name }}: a list value expands
    after_dashdash: bool = False  # a literal `--` comes before it
    group: tuple[Element, ...] = ()
    each: str | None = None
    when: str | None = None  # the `if` group's param
    # when it renders nothing, what vanished starts with an option the config wrote (a flag
    # group `{if: i, argv: [-i]}`, `"{% if v %}-v{% endif %}"`), not a value: the option
    # before it takes no value, or it would have read that option as its value
    flag_first: bool = False

    @property
    def value_starts(self) -> bool:
        """A value decides how the argument starts: nothing literal before it, or only
        dashes (``"--{{ opt }}"``: the value would name the option)."""
        return not self.literal_only and not self.literal_prefix.strip("-")


@dataclass(frozen=True)
class ArgvPlan:
    """A command tool's argv template, parsed once at load: the program and its elements."""

    program: str
    elements: tuple[Element, ...]
    allow_dash: frozenset[str] = frozenset()
    allow_remote: bool = False  # a value may make scp/rsync/tar operands another host's
    sources: tuple[str, ...] = ()  # templates whose free names become params
    group_names: frozenset[str] = frozenset()  # each/if params
    item_sources: tuple[str, ...] = field(default=())
    # where the spawn finds the program (its cwd and PATH): to read a script's #! line
    cwd: str | None = None
    search_path: str | None = None

    def render(self, context: Mapping[str, Any]) -> list[str]:
        """The argv for one call; raises ``ArgvRefused`` naming the param."""
        out = [self.program]
        state = _Render()
        for element in self.elements:
            self._render(element, context, out, None, state)
        problem = operand_problem(self.program, out, state.valued, state.tails,
                                  self.allow_remote, self.cwd, self.search_path) \
            if state.valued else None
        if problem is not None:
            raise ArgvRefused(problem)
        return out

    def _render(self, element: Element, context: Mapping[str, Any], out: list[str],
                item_of: str | None, state: _Render) -> None:
        if element.each is not None:
            items = context.get(element.each)
            if items is None or (isinstance(items, (list, tuple)) and not items):
                state.gap = state.gap or not element.flag_first
                return
            for item in items if isinstance(items, (list, tuple)) else [items]:
                for sub in element.group:
                    self._render(sub, {**context, "item": item}, out, element.each, state)
            return
        if element.when is not None:
            if is_given(context.get(element.when)):
                for sub in element.group:
                    self._render(sub, context, out, item_of, state)
            else:
                state.gap = state.gap or not element.flag_first
            return
        assert element.template is not None
        # exactly {{ name }} with a list: one argument per item. Not `item` inside its group:
        # a list item there renders as one JSON argument, so each repeat gives the group's count
        if element.expand is not None and (element.expand != "item" or item_of is None):
            value = context.get(element.expand)
            if isinstance(value, (list, tuple)):
                name = element.expand
                if not value:
                    state.gap = True
                for item in value:
                    text = templating.render_value(item)
                    self._check(element, text, [name], [item], state, out)
                    state.emit(out, text, element)
                return
        text = element.template.render(context)
        if element.literal_only:
            if text or "{%" not in element.source:  # only an `{% if %}` flag may vanish
                state.emit(out, text, element)
            else:
                state.gap = state.gap or not element.flag_first
            return
        names = sorted(item_of if n == "item" and item_of else n for n in element.outputs)
        self._check(element, text, names, [context.get(n) for n in sorted(element.outputs)],
                    state, out)
        state.emit(out, text, element)

    def _check(self, element: Element, text: str, names: Sequence[str],
               values: Sequence[Any], state: _Render, out: Sequence[str]) -> None:
        who = " / ".join(f"'{n}'" for n in names) or "a value"
        if "\0" in text:
            raise ArgvRefused(f"the value of {who} contains a NUL character, which cannot be "
                              "passed in an argument")
        if not text or not element.value_starts:
            return
        char = text[0]
        past = None  # (program, what) when the program reads it whatever '--' came before
        if char not in OPTION_CHARS or (element.after_dashdash and state.taken is None):
            if char not in OPTION_CHARS and text not in EXPRESSION_WORDS:
                return
            past = past_dashdash(out, text, self.cwd, self.search_path)
            if past is None:
                return
        if names and all(n in self.allow_dash for n in names):
            return
        if past is not None:
            raise ArgvRefused(
                f"the value of {who} is {cut(text, 40)!r}, which '{past[0]}' reads as "
                f"{past[1]}, whether or not a '--' comes before it (list the param in "
                "allow_dash if that is intended)")
        if char == "-" and values and all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                          for v in values) and _PLAIN_NUMBER.fullmatch(text):
            return  # numbers: a sign, digits and a point only
        if element.after_dashdash:
            raise ArgvRefused(
                f"the value of {who} starts with {char!r} ({cut(text, 40)!r}), and the '--' "
                f"before it came right after {cut(state.taken or '', 40)!r} because an "
                f"argument between them rendered nothing, so '{self.program}' could read that "
                "'--' as the option's value and this one as an option")
        if element.literal_prefix:
            raise ArgvRefused(
                f"the value of {who} follows a bare {element.literal_prefix!r} "
                f"({cut(text, 40)!r}), so it would choose which option '{self.program}' reads "
                "(list the param in allow_dash if that is intended)")
        raise ArgvRefused(
            f"the value of {who} starts with {char!r} ({cut(text, 40)!r}), so "
            f"'{self.program}' could read it as {_AS_OPTION[char]}; values may not start with "
            f"{OPTION_CHARS_TEXT} here (the config can put a literal '--' before this "
            "argument, or list the param in allow_dash)")


def _suffix(text: str, literal_only: bool) -> str:
    """The literal text after a template's last tag ("" for a literal)."""
    if literal_only:
        return ""
    end = max(text.rfind("}}"), text.rfind("%}"), text.rfind("#}"))
    return text[end + 2:] if end >= 0 else ""


@functools.lru_cache(maxsize=8192)
def _element(text: str, key: str, dashdash: bool) -> Element:
    """One template element; frozen, so the tools of a big config that repeat an element at
    the same place share it."""
    if "\0" in text:  # the kernel ends an argument at a NUL: the call could never start
        raise ArgvConfigError("holds a NUL character, which no argument can carry", key,
                              "remove it")
    outputs, needs, literal_only, prefix = analyse(text)
    flag = literal_only and _TAGS.sub("", text).lstrip().startswith("-")
    return Element(key=key, source=text, template=templating.compile_template(text),
                   outputs=outputs, needs=needs, literal_only=literal_only,
                   literal_prefix=prefix, literal_suffix=_suffix(text, literal_only),
                   expand=templating.whole_variable(text), after_dashdash=dashdash,
                   flag_first=flag)


# A plain str is tested first below: ``isinstance`` against an ABC such as Mapping runs
# Python code (~0.5 us), and every element of every command tool is tested.


def _check_program(raw: Any) -> str:
    if type(raw) is not str and (isinstance(raw, Mapping) or not isinstance(raw, (str, int, float))
                                 or isinstance(raw, bool)):
        raise ArgvConfigError("argv must start with the program to run, a literal string",
                              ".argv[0]")
    program = str(raw)
    if "\0" in program:
        raise ArgvConfigError("the program (argv[0]) holds a NUL character, which no path can "
                              "carry", ".argv[0]", "remove it")
    if "{" in program and any(mark in program for mark in _JINJA_MARKS):
        raise ArgvConfigError("the program (argv[0]) must be literal, not a template: the "
                              "model never chooses what runs", ".argv[0]")
    if not program.strip():
        raise ArgvConfigError("the program (argv[0]) is empty: the first value would become "
                              "the program", ".argv[0]",
                              "was it a ${VAR} that is unset? write the program literally")
    return program


def compile_argv(raw_argv: Sequence[Any], allow_dash: Iterable[str] = (),
                 allow_remote: bool = False) -> ArgvPlan:
    """Compile the ``argv`` option; raises ``ArgvConfigError`` or ``TemplateError``.
    ``allow_remote``: a value may make an operand another host's (``scp f {{ dst }}``)."""
    if not raw_argv:
        raise ArgvConfigError("argv must start with the program to run", ".argv")
    if (too_long := check_size(raw_argv)) is not None:
        raise ArgvConfigError(*too_long)
    program = _check_program(raw_argv[0])
    sources: list[str] = []
    item_sources: list[str] = []
    group_names: set[str] = set()

    def template(raw: Any, key: str, dashdash: bool, top: bool) -> Element:
        if type(raw) is not str and (isinstance(raw, (Mapping, list, tuple, bool)) or raw is None):
            raise ArgvConfigError("a group may only hold strings (templates)", key)
        text = str(raw)
        (sources if top else item_sources).append(text)
        return _element(text, key, dashdash)

    elements: list[Element] = []
    dashdash = False
    for i, raw in enumerate(raw_argv[1:], start=1):
        key = f".argv[{i}]"
        if type(raw) is not str and isinstance(raw, Mapping):
            kind = "each" if "each" in raw else "if"
            name = str(raw.get(kind, ""))
            if not name.isidentifier():
                raise ArgvConfigError(f"'{kind}' must name a param", f"{key}.{kind}")
            group_names.add(name)
            inner: list[Element] = []
            inner_dd = dashdash
            for j, sub in enumerate(raw.get("argv") or ()):
                element = template(sub, f"{key}.argv[{j}]", inner_dd, top=kind == "if")
                inner.append(element)
                inner_dd = inner_dd or (element.source == "--")
            elements.append(Element(key=key, group=tuple(inner),
                                    each=name if kind == "each" else None,
                                    when=name if kind == "if" else None,
                                    flag_first=bool(inner) and inner[0].flag_first))
            continue
        element = template(raw, key, dashdash, top=True)
        elements.append(element)
        dashdash = dashdash or element.source == "--"
    return ArgvPlan(program=program, elements=tuple(elements), allow_dash=frozenset(allow_dash),
                    allow_remote=bool(allow_remote),
                    sources=tuple(sources), group_names=frozenset(group_names),
                    item_sources=tuple(item_sources))


def always_needed(plan: ArgvPlan) -> dict[str, str]:
    """Param name -> key of a value position that prints it whether or not it was given
    (outside an ``if`` group for that param)."""
    needed: dict[str, str] = {}
    _walk_needed(needed, plan.elements, None)
    return needed


def _walk_needed(needed: dict[str, str], elements: Iterable[Element], guard: str | None) -> None:
    # not a closure: one that calls itself is a reference cycle the collector must free
    for element in elements:
        if element.each is not None:
            continue  # an absent list gives no items; `item` is always set inside
        if element.when is not None:
            _walk_needed(needed, element.group, element.when)
            continue
        for name in sorted(element.needs):
            if name != guard:
                needed.setdefault(name, element.key)
