"""A tool's declared defaults filled in for what a call leaves out: at the top level, and
inside the objects (and array items) a call gives, where a schema declares defaults there.

``toolhost.compile.declared`` finds them where generators write them: ``properties``, a local
``$ref`` (``#/$defs/X``, ``#/definitions/X``, as pydantic and OpenAPI components write
them), ``allOf`` parts, the one object branch of an ``anyOf``/``oneOf`` (``Optional[Opts]``)
and ``items``. A service or upstream built with pydantic (FastAPI, FastMCP, the Python SDK)
reads ``opts: {}`` as ``opts: {limit: 50}`` when ``Opts.limit`` defaults to 50, and a query
parameter whose schema is a ``$ref`` to ``{default: 20}`` as 20 when left out: judged on what
the model sent, a ``deny when {opts.limit: {min: 10}}`` met nothing.

The policy fills them before it judges a call (``CompiledPolicy.decide``) and the tool before
it runs (``CompiledTool``), so the rules judge what is sent. A value of a defaults mapping is
either the default itself or an ``Inside``: defaults that hold inside whatever is given there
(an upstream built with pydantic fills ``opts.limit: 50`` into a call's ``opts: {}`` itself,
where a rule on ``opts.limit`` would have judged nothing).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["MAX_FILL_DEPTH", "NO_DEFAULT", "FillRefused", "FillTooDeep", "FillUnsure", "Inside",
           "InsideDefaults", "fill_choices", "fill_defaults"]

NO_DEFAULT: Any = type("NoDefault", (), {"__repr__": lambda self: "NO_DEFAULT"})()
"""``Inside.own`` of an argument that has no default of its own."""

MAX_FILL_DEPTH = 100  # levels of a call's arguments defaults are filled into
_MAX_BRANCHES = 32  # branches of a union an object may be, filled in to compare
_MAX_FILLS = 32  # ways a call's unions may be filled in, each judged by the rules
_MAX_FILL_WORK = 50_000  # those ways times the objects each fills in: a bound on the cost
_ATOMS = frozenset({str, int, float, bool, type(None)})


@dataclass(eq=False)  # (it may hold itself: a recursive definition)
class Inside:
    """Defaults inside one argument: ``own`` is its own default (``NO_DEFAULT``: none),
    ``keys`` the defaults of the keys of an object given there (each a value or an
    ``Inside``), ``items`` those of each item of an array given there, ``choices`` those of
    each object branch of a ``oneOf``/``anyOf`` there, with the ``const`` values (a
    discriminator's) that tell an object of that branch."""

    own: Any = NO_DEFAULT
    keys: Mapping[str, Any] = field(default_factory=dict)
    items: Inside | None = None
    # the object branches of a oneOf/anyOf there: (the consts that name one, as
    # {property: (value, required)}, its defaults)
    choices: list[tuple[Mapping[str, Any], Mapping[str, Any]]] = field(default_factory=list)


class FillRefused(ValueError):
    """A call whose defaults cannot be filled in as its tool (its upstream) would: no rule
    could judge what it runs with, so it is refused (the policy denies it, the tool does not
    run it). ``said(tool)`` is the one line the caller is told."""

    def said(self, tool: str | None) -> str:
        """The one line a refused call is told (``tool``: its name, if known)."""
        name = f"{tool}'s arguments" if tool else "the arguments"
        return f"{name} {self.why}; refused ({self.fix})"

    def __str__(self) -> str:
        return self.said(None)

    why = fix = ""


class FillTooDeep(FillRefused):
    """A call nested past ``MAX_FILL_DEPTH`` levels where the schema declares defaults
    still deeper."""

    why = (f"are nested more than {MAX_FILL_DEPTH} levels deep where the schema declares "
           "defaults deeper still: they are not filled in, so no rule could judge what the "
           "tool would run with")
    fix = "send a shallower call, or give those values"


class FillUnsure(FillRefused):
    """An object given where the schema offers several object branches (``oneOf``/``anyOf``)
    that would fill in different defaults, and the object does not name one (its
    discriminator's ``const``). ``where`` is the object's place in the arguments
    (``pet``, ``pets[2]``), ``keys`` those whose defaults the branches fill differently:
    a call giving them fills the same whatever the branch, and is judged."""

    def __init__(self, excerpt: str, keys: list[str], where: tuple[str | int, ...] = (),
                 *, tagged: bool = True, many: bool = False) -> None:
        super().__init__(excerpt)
        self.excerpt, self.keys, self.where, self.tagged = excerpt, keys, where, tagged
        self.many = many  # judged in every way, but they are too many (``fill_choices``)

    def at(self, step: str | int) -> FillUnsure:
        """This refusal one level up: the object is inside ``step`` (a key or an index)."""
        return FillUnsure(self.excerpt, self.keys, (step, *self.where), tagged=self.tagged,
                          many=self.many)

    @property
    def why(self) -> str:  # type: ignore[override]
        place = _place(self.where)
        return (f"give an object{f' at {place}' if place else ''} ({self.excerpt}) that more "
                "than one branch of a oneOf/anyOf fits, each filling in other defaults"
                f"{f' for {_names(self.keys)}' if self.keys else ''}: which the tool fills in "
                "cannot be told, " + (
                    "and the call has more such ways than the rules judge (at most "
                    f"{_MAX_FILLS}, {_MAX_FILL_WORK:,} objects filled in all)" if self.many else
                    "so no rule could judge it"))

    @property
    def fix(self) -> str:  # type: ignore[override]
        given = f"give {_names(self.keys)}" if self.keys else "give those values"
        # (an untagged union: no property names a branch, the values alone tell them apart)
        return f"name the branch (its discriminator property), or {given}" if self.tagged \
            else given


def _place(where: tuple[str | int, ...]) -> str:
    """``pets[2].owner``: a place in the arguments, as the rules' paths write it."""
    out = ""
    for step in where:
        out += f"[{step}]" if isinstance(step, int) else f"{'.' if out else ''}{_key(step)}"
    return out if len(out) <= 200 else "…" + out[-199:]


def _key(key: str) -> str:
    """A key as it is read: a hostile one (a line break, an escape) in JSON quotes."""
    return key if key.isidentifier() and key.isascii() else _json(key)[:80]


def _names(keys: list[str]) -> str:
    shown = [_key(k) for k in keys[:6]]
    more = f" and {len(keys) - 6} more" if len(keys) > 6 else ""
    return (", ".join(shown[:-1]) + " and " + shown[-1] if len(shown) > 1 and not more
            else ", ".join(shown)) + more


class InsideDefaults(dict[str, Any]):
    """The defaults of a tool that has some inside an argument (an ``Inside`` among them): a
    call naming every argument may still be filled in. A plain ``dict`` has none, so a
    caller may skip a call that names all its keys (the policy does, per decision)."""


def fill_defaults(defaults: Mapping[str, Any], arguments: Mapping[str, Any],
                  _depth: int = 0, _memo: _Fill | None = None, *,
                  leave_unsure: bool = False) -> Mapping[str, Any]:
    """``arguments`` with ``defaults`` filled in where they leave a key out (inside what they
    give too, for an ``Inside``, down to ``MAX_FILL_DEPTH`` levels); ``arguments`` itself
    when there is nothing to fill. A list or object default is copied (a tool may change
    what it is given). Raises ``FillTooDeep`` when a default is left to fill below that
    depth (a recursive definition and a call nested that deep: the wire takes 256 levels),
    and ``FillUnsure`` for an object several branches of a union fit with other defaults;
    with ``leave_unsure`` such an object is left as given (its upstream fills it in: the
    rules judged every way it may, ``fill_choices``)."""
    if _depth > MAX_FILL_DEPTH:
        if _left(defaults, arguments):
            raise FillTooDeep
        return arguments
    # each (union, object given there) is filled once per call: the branches of a union
    # that fit share what is below them (a recursive Union[A, B] tree 20 levels deep was
    # 2**20 fills, 14 s holding the host; 30 levels, hours)
    memo = _Fill(leave=leave_unsure) if _memo is None else _memo
    out: dict[str, Any] | None = None
    for key, default in defaults.items():
        given = key in arguments
        if isinstance(default, Inside):
            try:
                if given:
                    value = _inside(default, arguments[key], _depth, memo)
                elif default.own is not NO_DEFAULT:
                    value = _inside(default, _copied(default.own), _depth, memo)
                else:
                    continue
            except FillUnsure as exc:  # (the refusal names where the object is)
                raise exc.at(key) from None
            if given and value is arguments[key]:
                continue
        elif given:
            continue
        else:
            value = _copied(default)
        if out is None:
            out = dict(arguments)
        out[key] = value
    if out is None:
        return arguments
    return {**{k: out[k] for k in out if k not in arguments}, **{k: out[k] for k in arguments}}


def fill_choices(defaults: Mapping[str, Any], arguments: Mapping[str, Any]
                 ) -> list[Mapping[str, Any]]:
    """Every way ``arguments`` may be filled in where an object is given that several
    branches of a oneOf/anyOf fit with other defaults (each such object filled as each
    branch fills it, in every combination), and last the arguments as the tool sends them
    (``leave_unsure``: such objects as given). A call is allowed only if the rules allow
    each. More than ``_MAX_FILLS`` ways, or ways times the objects filled over
    ``_MAX_FILL_WORK``: the ``FillUnsure`` of ``fill_defaults``."""
    found: list[Mapping[str, Any]] = []
    picks: list[int] = []
    try:
        while True:  # each way once: a walk of the tree of the unions' branches, in the
            # order they are met (whether a union's branches differ may depend on the
            # branch taken at one met before it, inside them: never on one met after)
            run = _Fill(picks=picks, before=len(found))
            found.append(fill_defaults(defaults, arguments, 0, run))
            run.count()
            at = [picks[i] if i < len(picks) else 0 for i in range(len(run.sizes))]
            i = len(at) - 1
            while i >= 0 and at[i] + 1 >= run.sizes[i]:
                i -= 1
            if i < 0:
                break
            picks = [*at[:i], at[i] + 1]
    except _TooMany:  # (stopped as soon as they are too many: 50,000 such objects)
        try:
            fill_defaults(defaults, arguments)  # (raises the FillUnsure that says where)
        except FillUnsure as exc:
            raise FillUnsure(exc.excerpt, exc.keys, exc.where, tagged=exc.tagged,
                             many=True) from None
        raise FillUnsure("", [], many=True) from None  # pragma: no cover (it did)
    return [*found, fill_defaults(defaults, arguments, leave_unsure=True)]


class _Fill:
    """One fill of a call: each (Inside, object given there) filled once (the branches of
    a union share what is below them), and what a union several branches fit with other
    defaults gives: a refusal, the object as given (``leave``), or the fill of the branch
    ``picks`` names (``fill_choices``: each union met, in order; 0 past the list)."""

    def __init__(self, *, picks: list[int] | None = None, leave: bool = False,
                 before: int = 0) -> None:
        self.done: dict[tuple[int, int], tuple[Any, Any]] = {}
        self.picks, self.leave, self.before = picks, leave, before  # (ways filled before)
        self.sizes: list[int] = []  # the number of different fills of each union met

    def pick(self, fills: list[Any]) -> Any:
        at = len(self.sizes)
        self.sizes.append(len(fills))
        self.count()
        assert self.picks is not None
        return fills[self.picks[at] if at < len(self.picks) else 0]

    def count(self) -> None:
        """Raises ``_TooMany`` when the ways are more than are judged: those of one walk
        down the tree (each branch of each union met has a way of its own, or more), or
        the objects all of them fill in."""
        ways = max(self.before + 1, math.prod(self.sizes))
        if ways > _MAX_FILLS or ways * len(self.done) > _MAX_FILL_WORK:
            raise _TooMany


class _TooMany(Exception):
    """More ways to fill a call in than the rules judge (``fill_choices``)."""


def _inside(default: Inside, value: Any, depth: int, memo: _Fill) -> Any:
    key = (id(default), id(value))
    if key not in memo.done:  # (the value is kept with its fill: its id stays its own)
        memo.done[key] = (value, _inside_once(default, value, depth, memo))
    return memo.done[key][1]


def _inside_once(default: Inside, value: Any, depth: int, memo: _Fill) -> Any:
    if (default.keys or default.choices) and (type(value) is dict or isinstance(value, Mapping)):
        if not default.choices:
            return fill_defaults(default.keys, value, depth + 1, memo)
        chosen = _chosen(default, value)
        if len(chosen) > _MAX_BRANCHES:  # (each fill copies the value: a hostile union)
            raise FillUnsure(_excerpt(value), [])
        fills = [fill_defaults(keys, value, depth + 1, memo) for keys in chosen]
        first = fills[0]
        if any(not _same(one, first) for one in fills[1:]):
            if memo.leave:
                return value
            if memo.picks is not None:
                return memo.pick([one for i, one in enumerate(fills)
                                  if not any(_same(one, seen) for seen in fills[:i])])
            raise FillUnsure(_excerpt(value), _differ(fills), tagged=any(
                want is not NO_DEFAULT for tag, _ in default.choices
                for want, _needed in tag.values()))
        return first
    if default.items is not None and isinstance(value, list) and depth < MAX_FILL_DEPTH:
        filled = []
        for index, item in enumerate(value):
            try:
                filled.append(_inside(default.items, item, depth + 1, memo))
            except FillUnsure as exc:
                raise exc.at(index) from None
        return filled if any(a is not b for a, b in zip(filled, value, strict=True)) else value
    if default.items is not None and isinstance(value, list) and _left(default, value):
        raise FillTooDeep
    return value


def _chosen(default: Inside, value: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The defaults of the branches ``value`` may be (it gives each one's required
    properties, and none of its consts otherwise; each with the defaults beside the
    oneOf); the defaults beside it alone when it fits none."""
    found = []
    for tag, keys in default.choices:
        if all((want is NO_DEFAULT or (type(value[name]) is type(want) and value[name] == want))
               if name in value else not needed for name, (want, needed) in tag.items()):
            found.append({**keys, **default.keys} if default.keys else keys)
    return found or [default.keys]


def _differ(fills: list[Mapping[str, Any]]) -> list[str]:
    """The keys the branches' fills do not agree on (sorted: the refusal reads the same
    each time): a call giving them fills the same whatever the branch."""
    first = fills[0]
    return sorted(k for k in {k for one in fills for k in one}
                  if any(k not in one or _json(one[k]) != _json(first.get(k, ...))
                         for one in fills))


def _same(one: Any, other: Any) -> bool:
    """The same JSON (``1`` is not ``true``, nor ``1.0``), what two fills share (the memo's
    objects) compared at once: not a dump of the whole subtree at every union."""
    if one is other:
        return True
    if type(one) is not type(other):
        return False
    if type(one) is dict:
        return one.keys() == other.keys() and all(_same(v, other[k]) for k, v in one.items())
    if type(one) is list:
        return len(one) == len(other) and all(map(_same, one, other))
    return bool(one == other)


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=repr)


def _excerpt(value: Any) -> str:
    """A short excerpt of a given object, for a refusal's one line."""
    text = _json(value)
    return text if len(text) <= 80 else text[:79] + "…"


def _left(defaults: Mapping[str, Any] | Inside, value: Any) -> bool:
    """Whether filling ``defaults`` into ``value`` would fill anything in, at any depth: read
    without recursion (past the fill's own depth, up to the wire's and beyond)."""
    todo: list[tuple[Any, Any]] = [(defaults, value)]
    seen: set[tuple[int, int]] = set()  # (a Python caller's object may hold itself)
    while todo:
        here, given = todo.pop()
        if (id(here), id(given)) in seen:
            continue
        seen.add((id(here), id(given)))
        if isinstance(here, Inside):
            if (here.keys or here.choices) and isinstance(given, Mapping):
                todo.append((here.keys, given))
                todo += [(keys, given) for _, keys in here.choices]
            elif here.items is not None and isinstance(given, list):
                todo += [(here.items, item) for item in given]
            continue
        if not isinstance(given, Mapping):
            continue
        for key, default in here.items():
            if key in given:
                if isinstance(default, Inside):
                    todo.append((default, given[key]))
            elif not isinstance(default, Inside) or default.own is not NO_DEFAULT:
                return True
    return False


def _copied(value: Any) -> Any:
    """A fresh copy of a default's JSON (lists and objects), so that a tool appending to the
    list it was given does not change the default of every later call (and other clients')."""
    if type(value) is list:
        return [v if type(v) in _ATOMS else _copied(v) for v in value]
    if type(value) is dict:
        return {k: v if type(v) in _ATOMS else _copied(v) for k, v in value.items()}
    return value
