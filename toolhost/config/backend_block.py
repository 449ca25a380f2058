"""A tool's backend block: find exactly one, expand its shorthand, check its options.

The block's key names a backend kind (``python``, ``command``, ``http`` or a plugin's). A
non-mapping block expands to ``{kind.shorthand: value}``; the expanded block is checked
against the kind's ``options_schema`` and each schema error becomes a Problem with the key
path and line of the offending option, like every other config error.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING, Any

from toolhost.backends.base import BackendKind
from toolhost.compile.fastcheck import Check, compile_plain_check
from toolhost.config.checks import (
    FLOAT_HINT,
    Checker,
    TomlDate,
    describe,
    did_you_mean,
    shown,
)
from toolhost.config.model import BackendSpec
from toolhost.config.template_values import keep_values_as_text, select_problem
from toolhost.config.tree import Path
from toolhost.excerpt import cut

if TYPE_CHECKING:
    from jsonschema import ValidationError
    from jsonschema.protocols import Validator

__all__ = ["BackendChecker"]


class BackendChecker:
    """The kinds a config may use, with each kind's options validator compiled once.

    A block is first put to a quick check compiled from the kind's schema (fastcheck); only a
    block it cannot prove valid meets jsonschema, which is imported then (about 60 ms of a
    fresh process) and writes the messages.
    """

    def __init__(self, kinds: Mapping[str, BackendKind], *, plugin_missing: bool = False
                 ) -> None:
        self.kinds = kinds
        self.plugin_missing = plugin_missing  # a listed plugin did not load (said already)
        self._validators: dict[str, Validator] = {}
        self._quick: dict[str, Check | None] = {}

    def validator(self, kind: BackendKind) -> Validator:
        if kind.name not in self._validators:
            from jsonschema.validators import validator_for

            schema = dict(kind.options_schema)
            cls = validator_for(schema)
            self._validators[kind.name] = cls(schema)
        return self._validators[kind.name]

    def _proven(self, kind: BackendKind, block: Any) -> bool:
        if kind.name not in self._quick:
            self._quick[kind.name] = compile_plain_check(dict(kind.options_schema))
        quick = self._quick[kind.name]
        return quick is not None and quick(block)

    def _misplaced(self, key: str, kind: str, tool_keys: Collection[str]) -> str:
        """Where a key unknown to a tool belongs: in its backend block, when the kind has
        such an option; else the keys a tool has."""
        schema = self.kinds[kind].options_schema
        options = schema.get("properties", {}) if isinstance(schema, Mapping) else {}
        if key in options:
            return f"'{key}' is an option of the {kind} backend: write it inside {kind}: " \
                   f"{{{key}: ...}}"
        return "a tool's keys: " + ", ".join(sorted(tool_keys)) + f"; and one backend ({kind})"

    def backend(self, check: Checker, data: Mapping[str, Any], path: Path,
                tool_keys: Collection[str]) -> BackendSpec | None:
        names = sorted(self.kinds)
        found = [key for key in data if key in self.kinds]
        unknown = [key for key in data if key not in tool_keys and key not in self.kinds]
        for key in unknown:
            hint = did_you_mean(key, [*tool_keys, *names])
            if not hint and not found:
                hint = ("backend kinds available: " + (", ".join(names) or "none") + (
                    "; a plugin listed in `plugins:` did not load (said above): the kinds it "
                    "provides are missing until it does" if self.plugin_missing else
                    "; a plugin's kind needs the plugin listed in `plugins:` (see "
                    "`toolhost plugins`)"))
            elif not hint:
                hint = self._misplaced(key, found[0], tool_keys)
            check.problem((*path, key), "unknown key", hint)
        if not found:
            if not unknown:
                check.problem(path, "missing backend: a tool needs exactly one of "
                              + ", ".join(names) if names else
                              "missing backend: no backend kinds are available")
            return None
        for extra in found[1:]:
            check.problem((*path, extra), f"a tool has exactly one backend, found "
                          f"'{found[0]}' and '{extra}'")
        name = found[0]
        kind = self.kinds[name]
        here = (*path, name)
        block = data[name]
        shorthand = None
        if not isinstance(block, dict):
            if kind.shorthand is None:
                check.expected(here, f"a mapping of {name} options", block)
                return None
            shorthand = kind.shorthand
            block = {shorthand: block}
        before = len(check.problems)
        proven = self._proven(kind, block)
        said: set[tuple[Any, ...]] = set()
        for error in () if proven else self.validator(kind).iter_errors(block):
            at = tuple(error.absolute_path)
            if at in said and error.validator not in ("required", "additionalProperties"):
                continue  # `2.5` for an integer >= 1: "expected integer", not a bound too
            said.add(at)
            self._report(check, here, error, shorthand)
        if name in ("command", "http"):
            for where, value in _number_values(block, here, shorthand, name):
                if isinstance(value, float):
                    check.problem(where, f"a float ({shown(value)}) would be passed as "
                                  f"Python writes it ({str(value)!r}), not as written",
                                  FLOAT_HINT)
                elif (spelled := check.spelled_int(where, value)) is not None:
                    check.problem(where, spelled[0], hint=spelled[1])
        if len(check.problems) > before:
            return None
        # a ${VAR} value in a template field stays text (never jinja)
        block = keep_values_as_text(name, block, here, shorthand, check.substituted)
        wrong = select_problem(block, here, check.substituted) if name == "http" else None
        if wrong:
            check.problem((*here, "select"), wrong)
            return None
        return BackendSpec(kind=name, options=block, origin=check.origin(here))

    def _report(self, check: Checker, here: Path, error: ValidationError,
                shorthand: str | None) -> None:
        inner = list(error.absolute_path)
        if shorthand is not None and inner[:1] == [shorthand]:
            inner = inner[1:]  # name the value as written: command[1], not command.argv[1]
        where: Path = (*here, *inner)
        instance = error.instance
        schema = error.schema if isinstance(error.schema, dict) else {}
        if error.validator == "additionalProperties" and isinstance(instance, dict):
            known = schema.get("properties", {})
            patterns = schema.get("patternProperties", {})
            for key in instance:
                if key in known or any(re.search(p, key) for p in patterns):
                    continue
                check.problem((*where, key), "unknown key", did_you_mean(key, known) or (
                    "the keys here: " + ", ".join(sorted(known)) if known else ""))
        elif error.validator == "required" and isinstance(error.validator_value, list):
            missing = [k for k in error.validator_value
                       if isinstance(instance, dict) and k not in instance]
            for key in missing:
                check.problem(where, f"missing required key '{key}'")
        elif error.validator == "type":
            expected = error.validator_value
            wanted = " or ".join(expected) if isinstance(expected, list) else str(expected)
            check.problem(where, f"expected {wanted}, got {describe(instance)}",
                          _list_hint(instance) if wanted == "array"
                          else check.word_hint(where, instance, wanted))
        elif error.validator == "enum" and isinstance(error.validator_value, list):
            choices = [str(c) for c in error.validator_value]
            check.problem(where, f"expected one of {' | '.join(choices)}, got "
                          f"{_value(instance)}", _nearest(instance, choices))
        elif error.validator in ("anyOf", "oneOf") and isinstance(error.validator_value, list):
            forms = [_form(alt) for alt in error.validator_value if isinstance(alt, dict)]
            wanted = " or ".join(f for f in forms if f)
            check.problem(where, f"expected {wanted}, got {describe(instance)}",
                          check.word_hint(where, instance, wanted))
        elif error.validator == "minItems" and isinstance(instance, list):
            least = error.validator_value
            argv = inner[-1:] == ["argv"] or (not inner and shorthand == "argv")
            got = f"{len(instance)} element{'' if len(instance) == 1 else 's'}" if instance \
                else "an empty list"
            check.problem(where, f"expected a list of at least {least} element"
                          f"{'' if least == 1 else 's'}, got {got}",
                          "argv needs at least the program" if argv else "")
        elif error.validator in _SIZES and isinstance(instance, (list, str, dict)):
            # jsonschema's own message is the whole value (100,000 entries) and "too long"
            bound = "at most" if error.validator.startswith("max") else "at least"
            check.problem(where, f"expected {describe(instance)} of {bound} "
                          f"{shown(error.validator_value)} {_SIZES[error.validator]}, got "
                          f"{len(instance):,}")
        elif error.validator == "not" and isinstance(error.validator_value, dict) \
                and isinstance(error.validator_value.get("required"), list):
            keys = [f"'{k}'" for k in error.validator_value["required"]]  # json and form
            check.problem(where, f"{' and '.join(keys)} cannot be given together",
                          "keep one of them")
        elif error.validator in _BOUNDS:
            # jsonschema's own message repeats the value: 4,000 digits of it, maybe
            check.problem(where, f"must be {_BOUNDS[error.validator]} "
                          f"{shown(error.validator_value)}, got {shown(instance)}")
        elif error.validator == "pattern" and isinstance(instance, str):
            # jsonschema's own message is the regular expression, which teaches nothing
            check.problem(where, f"{_value(instance)} is not of the form this key takes",
                          _pattern_hint(instance, str(error.validator_value), schema))
        else:
            check.problem(where, cut(error.message, 300))


def _number_values(block: Mapping[str, Any], here: Path, shorthand: str | None,
                  kind: str = "command") -> list[tuple[Path, float | int]]:
    """The numbers in a command's argv (groups too) and env, or an http tool's query,
    headers and form, each with its key path: ``1.10`` reaches the program or the server as
    ``1.1`` and ``1e3`` as ``1000.0``, so a float there is refused (YAML and TOML alike; TOML
    keeps no source text to pass instead); an integer is refused where it was written
    otherwise than Python writes it (``Checker.spelled_int``). An http ``json`` body keeps
    its numbers: JSON has them."""
    found: list[tuple[Path, float | int]] = []
    if kind == "http":
        for key in ("query", "headers", "form"):
            texts = block.get(key)
            if isinstance(texts, Mapping):
                found += [((*here, key, k), v) for k, v in texts.items()
                          if _number(v)]
        return found
    argv_at: Path = here if shorthand == "argv" else (*here, "argv")
    argv = block.get("argv")
    for i, item in enumerate(argv if isinstance(argv, list) else ()):
        if _number(item):
            found.append(((*argv_at, i), item))
        elif isinstance(item, Mapping) and isinstance(item.get("argv"), list):
            found += [((*argv_at, i, "argv", j), v) for j, v in enumerate(item["argv"])
                      if _number(v)]
    env = block.get("env")
    if isinstance(env, Mapping):
        found += [((*here, "env", k), v) for k, v in env.items() if _number(v)]
    return found


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


_TYPE_NAMES = {"string": "a string", "number": "a number", "integer": "an integer",
               "object": "a mapping", "array": "a list", "boolean": "a boolean", "null": "null"}


def _form(schema: Mapping[str, Any]) -> str:
    """One alternative of an anyOf/oneOf, in the config's words: "a string or a number",
    "a mapping {each, argv}"."""
    kinds = schema.get("type")
    names = [_TYPE_NAMES.get(k, str(k)) for k in
             (kinds if isinstance(kinds, list) else [kinds] if kinds else [])]
    if "object" in (kinds if isinstance(kinds, list) else [kinds]) and schema.get("required"):
        keys = ", ".join(str(k) for k in schema["required"])
        names = [f"a mapping {{{keys}}}" if n == "a mapping" else n for n in names]
    if "a number" in names and "an integer" in names:
        names.remove("an integer")  # every integer is a number
    if "enum" in schema:
        names.append("one of " + " | ".join(str(c) for c in schema["enum"]))
    return " or ".join(dict.fromkeys(names))


def _pattern_hint(value: str, pattern: str, schema: Mapping[str, Any]) -> str:
    """How to write a value its pattern refused: a module path with a dot where the colon
    goes (``tools.greet`` for ``tools:greet``) is written back; else the schema's example
    and its words."""
    if ":" in pattern and ":" not in value and "." in value:
        head, _, tail = value.rpartition(".")
        if re.fullmatch(pattern, f"{head}:{tail}"):
            return f"did you mean '{cut(head, 80)}:{cut(tail, 40)}'? (module:function)"
    examples = schema.get("examples")
    example = f"e.g. {examples[0]!r}" if isinstance(examples, list) and examples else ""
    words = schema.get("description")
    return "; ".join(x for x in (example, cut(words, 200) if isinstance(words, str) else "")
                     if x)


def _value(value: Any) -> str:
    """A value in an error line: a string quoted, anything else by its kind."""
    return repr(cut(value, 80)) if isinstance(value, str) and not isinstance(
        value, TomlDate) else describe(value)


def _nearest(value: Any, choices: list[str]) -> str:
    """A hint naming the choice ``value`` was probably meant to be (case aside first)."""
    if not isinstance(value, str):
        return ""
    same = [c for c in choices if c.casefold() == value.casefold()]
    return f"did you mean '{same[0]}'?" if same else did_you_mean(value, choices)


_BOUNDS = {"minimum": "at least", "maximum": "at most", "exclusiveMinimum": "more than",
           "exclusiveMaximum": "less than"}
# a size bound of an options schema (a plugin's too) -> what it counts
_SIZES = {"maxItems": "entries", "maxLength": "characters", "maxProperties": "keys",
          "minLength": "characters", "minProperties": "keys"}


def _list_hint(value: Any) -> str:
    """A string where a list (an argv) belongs: show it split the way a shell would."""
    if not isinstance(value, str):
        return ""
    import json
    import re
    import shlex

    # a template's {{ name }} is one piece of its argument, spaces and all: keep it whole
    kept: list[str] = []

    def keep(found: re.Match[str]) -> str:
        kept.append(found[0])
        return f"\0{len(kept) - 1}\0"

    masked = re.sub(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}", keep, value, flags=re.S)
    try:
        words = [re.sub("\0(\\d+)\0", lambda m: kept[int(m[1])], word)
                 for word in shlex.split(masked)]
    except ValueError:
        return "write a list of strings"
    return (f"write a list, one element per argument: {json.dumps(words)}; there is no "
            "shell, so pipes, globs and $VARS are not interpreted")
