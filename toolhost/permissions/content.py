"""The content part of Claude Code's built-in rule forms: ``Bash(...)``, ``Read(...)``,
``Edit(...)``, ``WebFetch(domain:...)``, ``Task(...)``.

Every matcher takes a ``strict`` flag. Allow rules match strictly: every command of a compound
command, every path a call touches, must match, and input the matcher cannot understand does not
match. Deny and ask rules match loosely: one matching command or path is enough, and input that
cannot be understood matches (fail closed).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from toolhost.permissions.bash.budget import memo
from toolhost.permissions.bash.forms import (
    ASSIGN_KINDS,
    TOO_MANY_FORMS,
    TOO_MANY_JOINED,
    command_forms,
    fed_forms,
    fed_joined,
)
from toolhost.permissions.bash.programs import Step, analyze_line
from toolhost.permissions.bash.synonyms import synonym_forms
from toolhost.permissions.bash.wrappers import WRAPPER_NAMES
from toolhost.permissions.paths import (
    PATH_TOOLS,
    PathPattern,
    normalize_path,
    rule_path_pattern,
    spellings,
)
from toolhost.permissions.shell.parse import ShellSyntaxError, parse_command
from toolhost.permissions.urls import canonical_host, host_matches, url_host
from toolhost.permissions.wildcard import ANY, Matcher, Token, compile_tokens

__all__ = ["CONTENT_TOOLS", "BashMatcher", "ContentMatcher", "cover_steps", "parse_content",
           "parse_domain"]


class ContentMatcher(Protocol):
    def matches(self, tool_name: str, tool_input: Mapping[str, Any], *, strict: bool) -> bool: ...


@dataclass(frozen=True)
class BashMatcher:
    """``Bash(npm run test:*)`` (prefix), ``Bash(git * main)`` (wildcards), ``Bash(ls)`` (exact)."""

    spec: str
    regex: Matcher
    whole: bool  # the spec itself has shell operators: match the whole command line
    fixed: tuple[str, ...] = ()  # the whole words the rule starts with, before any wildcard
    # a rule naming its program by a path (``Bash(/bin/rm:*)``) with the program's name
    # alone: what deny and ask rules meet too, as ``/bin//rm``, ``/usr/bin/rm`` and ``rm``
    # found on PATH may be the program it names (an allow proves only the path as written)
    bare: BashMatcher | None = None

    @classmethod
    def parse(cls, spec: str) -> BashMatcher:
        prefix = spec.endswith(":*")
        body = spec[:-2] if prefix else spec
        if prefix and "*" in body:
            raise ValueError("':*' must be the only wildcard of a Bash prefix rule")
        try:
            parsed = parse_command(body)
        except ShellSyntaxError as exc:
            raise ValueError(f"Bash rule {spec!r} is not valid shell: {exc}") from None
        if not parsed.segments:
            raise ValueError(f"Bash rule {spec!r} names no command")
        if not parsed.balanced:
            raise ValueError(f"Bash rule {spec!r} is not valid shell: its parentheses do not "
                             "pair up (Bash(cmd) takes the command between the outer ones)")
        whole = len(parsed.segments) > 1 or parsed.opaque
        text = parsed.text if whole else parsed.normalized()[0]
        tail = prefix
        if not prefix and text.endswith(" *"):  # "ls *": "ls", a word boundary and anything
            text, tail = text[:-2], True
        tokens: list[Token] = []
        for k, piece in enumerate(text.split("*")):
            tokens += [ANY, piece] if k else [piece]
        # linear in the command's length (Python's re backtracked on *a*a*a*b): wildcard.py
        fixed: tuple[str, ...] = ()
        if not whole:
            words = parsed.segments[0]
            cut = next((k for k, w in enumerate(words) if "*" in w), len(words))
            fixed = words[:cut]
        bare = None
        if fixed and "/" in fixed[0] and (name := fixed[0].rsplit("/", 1)[-1]) and (
                written := spec.lstrip()).startswith(fixed[0]):
            bare = cls.parse(name + written[len(fixed[0]):])
        return cls(spec, compile_tokens([t for t in tokens if t], word_tail=tail), whole, fixed,
                   bare)

    @property
    def first_word(self) -> str | None:
        """The literal first word every command this rule matches starts with (None: any);
        a program named by a path by its name alone (its ``bare`` form meets that)."""
        if self.whole:
            return None
        return self.fixed[0].rsplit("/", 1)[-1] or None if self.fixed else None

    def pinned(self, steps: tuple[Step, ...], k: int) -> int:
        """How many steps after ``steps[k]`` (which this rule matches) the rule's own words
        name exactly: ``Bash(sudo npm test:*)`` names the ``npm test`` that sudo runs,
        ``Bash(sudo:*)`` names nothing sudo runs."""
        fixed, count = self.fixed, 0
        while k < len(steps):
            step = steps[k]
            if step.kind in ("program", "deep") or len(fixed) <= step.offset or (
                    fixed[:step.offset + 1] != step.words[:step.offset + 1]):
                break
            if step.kind == "shell":
                return count + step.inner
            fixed, count, k = fixed[step.offset:], count + 1, k + 1
        return count

    def matches(self, tool_name: str, tool_input: Mapping[str, Any], *, strict: bool) -> bool:
        command = tool_input.get("command")
        if not isinstance(command, str):
            return not strict
        try:
            parsed = parse_command(command)
        except ShellSyntaxError:
            return not strict
        if strict:
            analysis = analyze_line(command)
            if analysis.reason is not None or parsed.opaque:
                return False
            if self.whole:  # literal text with wildcards: never through a wrapper
                return self.regex.fullmatch(parsed.text) and not any(
                    s.kind in ("wrapper", "shell", "deep") for steps in analysis.steps
                    for s in steps)
            return any(analysis.steps) and all(
                cover_steps(steps, [(self, self)]) is not None for steps in analysis.steps)
        if self.whole:
            return self.regex.search(parsed.text)
        forms = [form for words in parsed.segments + parsed.nested
                 for form in command_forms(words)]
        led = (_wrapper_led(forms, self.fixed[0]) if len(self.fixed) > 1
               and self.first_word in WRAPPER_NAMES else [])
        if TOO_MANY_FORMS in forms or TOO_MANY_FORMS in led or any(
                self.regex.fullmatch(" ".join(form))
                for form in (*forms, *_spellings(command, forms), *led)):
            return True
        return self._runs(command) or self._fed(command, forms) or (
            self.bare is not None and self.bare.matches(tool_name, tool_input, strict=False))

    def _fed(self, command: str, forms: list[tuple[str, ...]]) -> bool:
        """Whether a command line in the program an interpreter reads from its stdin (a
        here-document, a pipe) matches: its string literals, as for inline code."""
        fed = fed_joined(command) if len(command) <= 4096 else tuple(
            " ".join(f) for f in fed_forms(command, forms))
        return any(f == TOO_MANY_JOINED or self.regex.fullmatch(f) for f in fed)

    def _runs(self, command: str) -> bool:
        """Whether a command the analysis proves the line runs (what a wrapper or a shell
        string runs, at any depth) matches: deny and ask see at least what allow proves."""
        try:
            analysis = analyze_line(command)
        except ShellSyntaxError:
            return True
        for steps in analysis.steps:
            for step in steps:
                words = step.words[step.offset:] if step.kind in ASSIGN_KINDS else step.words
                if words and (self.regex.fullmatch(" ".join(words)) or self.regex.fullmatch(
                        " ".join((words[0].rsplit("/", 1)[-1], *words[1:])))):
                    return True
        return False


def _spellings(command: str, forms: list[tuple[str, ...]]) -> list[tuple[str, ...]]:
    """``synonym_forms(forms)`` of ``command``'s forms, made once per decision (every deny and
    ask Bash rule of a policy tries them)."""
    shared = memo()
    key = ("spellings", command)
    hit = None if shared is None else shared.get(key)
    if isinstance(hit, list):
        return hit
    made = synonym_forms(forms)
    if shared is not None:
        shared[key] = made
    return made


# how far a wrapper's command is looked for after its options, operands and assignments
_WRAPPER_WORDS = 64


def _wrapper_led(forms: list[tuple[str, ...]], wrapper: str) -> list[tuple[str, ...]]:
    """For a deny or ask rule naming a wrapper and what it runs (``Bash(sudo rm:*)``,
    ``Bash(env rm:*)``, ``Bash(timeout 5 rm:*)``): each form started by that wrapper with its
    other words before the command dropped, from every later word (the wrapper's options
    may take values), so ``sudo -u root rm x``, ``sudo -- rm x``, ``env -i FOO=1 rm x`` and
    ``timeout -s 9 5 rm x`` meet it (before, only the spelling without options did); which
    words are options is not known, so ``sudo -u r ls rm`` meets it too (fail closed). Past
    ``_WRAPPER_WORDS`` words of options, every rule naming the wrapper meets it."""
    name = wrapper.rsplit("/", 1)[-1]
    out: list[tuple[str, ...]] = []
    for form in forms:
        if not form or form[0].rsplit("/", 1)[-1] != name:
            continue
        for k in range(2, min(len(form), _WRAPPER_WORDS + 2)):  # (and the other spellings
            out += [(form[0], *rest) for rest in (form[k:], *synonym_forms([form[k:]]))]
        if len(form) > _WRAPPER_WORDS + 2 and all(
                w[:1] == "-" or "=" in w for w in form[1:_WRAPPER_WORDS + 2]):
            out.append(TOO_MANY_FORMS)  # (options all the way: the command lies past them)
    return out


T = TypeVar("T")


def cover_steps(steps: tuple[Step, ...],
                matchers: Sequence[tuple[BashMatcher, T]]) -> list[T] | None:
    """Allow rules covering every step of one simple command (the first matching rule per
    step; a rule covers the steps its own words name too), or None. Leading assignments and
    transparent wrappers (``timeout``, ``nice``, ...) need no rule of their own; every other
    wrapper (``sudo``, ``env``, ``xargs``, ``sh -c``, ...) and the program itself do."""
    used: list[T] = []
    k = 0
    while k < len(steps):
        step = steps[k]
        if step.kind == "deep":  # what it runs was not looked into
            return None
        text = step.text
        found = next(((m, p) for m, p in matchers if m.regex.fullmatch(text)), None)
        if found is not None:
            used.append(found[1])
            k += 1 + found[0].pinned(steps, k)
        elif step.kind in ("assign", "transparent"):  # not "assign_command": it runs a value
            k += 1
        else:
            return None
    return used


# Which input keys hold the paths a built-in file tool touches.
_PATH_KEYS: dict[str, tuple[str, ...]] = {
    "Read": ("file_path",), "Edit": ("file_path",), "Write": ("file_path",),
    "MultiEdit": ("file_path",), "NotebookEdit": ("notebook_path",),
    "NotebookRead": ("notebook_path",), "Grep": ("path",), "Glob": ("path",), "LS": ("path",),
}
_GLOB_CHARS = re.compile(r"[*?\[{]")
# A brace alternative that starts at the root or a home directory: ``{/etc,src}/*``.
_BRACE_ROOT = re.compile(r"[{,]\s*[/~\\]")


def _glob_reach(pattern: str, base: str) -> str | None:
    """The directory a Glob ``pattern`` searches from ``base``: its fixed directory part,
    absolute as it is, from the home directory when it starts with ``~`` or ``~user`` (as the
    CLI's Glob reads it), else under ``base``. None (unknown: no allow rule covers it, every
    deny rule matches) for ``..`` after a glob (``*/../../x``), a ``~user`` no one has, or a
    brace alternative that is absolute (``{/etc,src}/*``)."""
    if _BRACE_ROOT.search(pattern):
        return None
    fixed = _GLOB_CHARS.split(pattern, 1)[0]
    if ".." in re.split(r"[/\\]", pattern[len(fixed):]):
        return None
    head = pattern.split("/", 1)[0]
    if head.startswith("~") and _GLOB_CHARS.search(head):
        return None  # ``~ro*/x``: which user's home?
    directory = os.path.dirname(fixed) if fixed != pattern else fixed
    if directory.startswith("~"):
        home = os.path.expanduser(directory)
        return None if home.startswith("~") else home
    return os.path.join(base, directory)


def _climbs(pattern: object) -> bool:
    """Whether a Glob pattern has a ``..`` component anywhere: after a wildcard
    (``*/../../*``), inside braces (``{x,../..}/*``), escaped (``.\\.``, ``[.][.]``)."""
    if not isinstance(pattern, str):
        return False
    text = pattern.replace("\\", "").replace("[.]", ".")
    return ".." in re.split(r"[/{},]", text)


@dataclass(frozen=True)
class PathMatcher:
    """``Read(./src/**)``, ``Edit(//etc/**)``, ``Read(~/.ssh/**)``, ``Edit(/docs/**)``."""

    pattern: PathPattern
    cwd: str

    def paths(self, tool_name: str, tool_input: Mapping[str, Any]) -> list[str | None]:
        keys = _PATH_KEYS.get(tool_name, ("file_path", "path", "notebook_path"))
        raw: list[Any] = [tool_input[k] for k in keys if k in tool_input]
        if tool_name in ("Grep", "Glob", "LS") and not raw:
            raw = [self.cwd]  # these search the working directory by default
        elif not raw:
            raw = [None]  # no path given: which file is unknown (every deny, no allow)
        pattern = tool_input.get("pattern")
        if tool_name == "Glob" and isinstance(pattern, str) and (
                os.path.isabs(pattern) or pattern.startswith("~") or ".." in pattern
                or _BRACE_ROOT.search(pattern) or "/" in _GLOB_CHARS.split(pattern, 1)[0]):
            # (a relative pattern's fixed directories too: ``src/link/*`` lists where the
            # symlink ``src/link`` leads)
            base = raw[0] if raw and isinstance(raw[0], str) else self.cwd
            raw.append(_glob_reach(pattern, base))
        elif tool_name == "Glob" and "pattern" in tool_input and not isinstance(pattern, str):
            raw.append(None)  # a pattern of the wrong type: what it lists is unknown
        raw += [v for p in raw if isinstance(p, str) for v in spellings(p)]
        return [normalize_path(p, self.cwd) if isinstance(p, str) else None for p in raw]

    def _proves_below(self, path: str) -> bool:
        """Whether an allow proves a search of ``path``: the path, and when it is a directory
        anything at any depth below it (``Read(./src)`` names ``src`` only, so it does not
        prove a Grep reading ``src/a.py``; ``Read(./src/**)`` does)."""
        if not self.pattern.matches(path):
            return False
        return not os.path.isdir(path) or self.pattern.matches(
            path.rstrip("/") + "/\0/\0")  # (no path holds a NUL: only a wildcard meets it)

    def reaches(self, tool_name: str, tool_input: Mapping[str, Any]) -> bool:
        """Whether a Grep/Glob/LS call searches a directory holding (or that may hold) a
        path this pattern names (``scope.may_reach``)."""
        from toolhost.permissions.scope import SEARCH_TOOLS, may_reach

        return tool_name in SEARCH_TOOLS and may_reach(self.pattern,
                                                       self.paths(tool_name, tool_input))

    def matches(self, tool_name: str, tool_input: Mapping[str, Any], *, strict: bool) -> bool:
        if tool_name == "Glob" and _climbs(tool_input.get("pattern")):
            return not strict  # may leave `path` anywhere: unprovable (fail closed)
        paths = self.paths(tool_name, tool_input)
        if strict:
            if tool_name in ("Grep", "Glob"):  # they read what lies below what they search
                return bool(paths) and all(p is not None and self._proves_below(p)
                                           for p in paths)
            return bool(paths) and all(p is not None and self.pattern.matches(p) for p in paths)
        # a deny or ask of a directory (`Read(~/.ssh)`) is one of everything inside it
        return any(p is None or self.pattern.covers(p) for p in paths)


@dataclass(frozen=True)
class DomainMatcher:
    """``WebFetch(domain:example.com)``: that host exactly; ``domain:*.example.com``: that host
    and every subdomain of it. Both sides are canonical hosts (``urls.canonical_host``)."""

    domain: str

    def matches(self, tool_name: str, tool_input: Mapping[str, Any], *, strict: bool) -> bool:
        url = tool_input.get("url")
        host = url_host(url) if isinstance(url, str) else None
        if not host:
            return not strict
        return host_matches(self.domain, host)


def parse_domain(spec: str) -> str:
    """A ``domain:`` specifier in canonical form (``*.`` kept). Raises ValueError."""
    text = spec.strip()
    if "," in text or ";" in text:  # a list of hosts: DNS resolves no host holding , or ;
        hosts = ", ".join(f"domain:{h.strip()}" for h in re.split("[,;]", text) if h.strip())
        raise ValueError(f"{spec!r} is a list: a domain rule names one host, so write one "
                         f"rule per host ({hosts})")
    found = _domain(text)
    if found is not None and "" in found.removeprefix("*.").split("."):
        # cookie-style ".example.com", "a..b.com": an empty label names no host a URL has
        bare = ".".join(p for p in found.removeprefix("*.").split(".") if p)
        raise ValueError(f"{spec!r} has an empty label ('.' at the start or '..'), so it "
                         f"names no host: write domain:{bare} for the host, "
                         f"domain:*.{bare} for its subdomains")
    if found is not None:
        return found
    bare, colon, port = text.rpartition(":")
    if colon and port.isdigit() and _domain(bare) is not None:
        raise ValueError(f"{spec!r} names a port, which plays no part in a domain rule: "
                         f"write domain:{bare}")
    if ":" in text and "[" not in text and _domain(f"[{text}]") is not None:
        raise ValueError(f"{spec!r} is an IPv6 address without its brackets: write "
                         f"domain:[{text}]")
    raise ValueError(f"{spec!r} is not a host name or address (or '*.' and a host "
                     "name; for every host write WebFetch)")


def _domain(text: str) -> str | None:
    wild = text.startswith("*.")
    host = canonical_host(text[2:] if wild else text) if "*" not in text[2 * wild:] else None
    if host is None or (wild and (host.startswith("[") or _IPV4.fullmatch(host))):
        return None
    return "*." + host if wild else host


@dataclass(frozen=True)
class ValueMatcher:
    """``Task(name)`` / ``Agent(name)``: the sub-agent type; an allow exactly, a deny or ask
    whatever its case, width, dashes, invisible characters and surrounding spaces
    (``Task(explore)`` denies ``Explore``, ``ｅｘｐｌｏｒｅ``, ``explore\u200b``); a name holding
    a lone surrogate or a control character meets every deny and ask rule."""

    key: str
    value: str

    def matches(self, tool_name: str, tool_input: Mapping[str, Any], *, strict: bool) -> bool:
        value = tool_input.get(self.key)
        if not isinstance(value, str):  # missing or wrong-typed: which agent is unknown
            return not strict
        if strict:
            return value == self.value
        if _UNREADABLE_NAME.search(value):  # a lone surrogate, NUL or control character:
            return True  # which agent a program would read it as is unknown (fail closed)
        return _agent_fold(value) == _agent_fold(self.value)


# what no agent's name holds, and each program reads its own way: a UTF-16 surrogate left
# alone (JSON's "\\ud800"), NUL and the other control characters
_UNREADABLE_NAME = re.compile(r"[\ud800-\udfff\x00-\x1f\x7f-\x9f]")


def _agent_fold(name: str) -> str:
    """A sub-agent name as a deny or ask rule compares it: NFKC (full-width
    letters), invisible format characters dropped (a zero-width space), every dash a
    hyphen, blanks around it trimmed, case folded: a name the CLI may resolve to the agent."""
    import unicodedata

    name = unicodedata.normalize("NFKC", name)
    name = "".join("-" if unicodedata.category(c) == "Pd" else c for c in name
                   if unicodedata.category(c) != "Cf")
    return name.strip().casefold()


_IPV4 = re.compile(r"[0-9.]+")
CONTENT_TOOLS = ("Bash", *PATH_TOOLS, "WebFetch", "Task", "Agent")


def parse_content(tool: str, spec: str, *, cwd: str, rule_dir: str) -> ContentMatcher:
    """Compile the part inside ``Tool(...)``. Raises ValueError saying what is wrong."""
    if tool == "Bash":
        return BashMatcher.parse(spec)
    if tool in PATH_TOOLS:
        return PathMatcher(rule_path_pattern(spec, cwd=cwd, rule_dir=rule_dir), cwd)
    if tool == "WebFetch":
        if not spec.startswith("domain:"):
            raise ValueError("WebFetch rules take 'domain:<host>', "
                             "e.g. WebFetch(domain:example.com)")
        return DomainMatcher(parse_domain(spec[7:]))
    if tool in ("Task", "Agent"):
        return ValueMatcher("subagent_type", spec)
    raise ValueError(f"'{tool}(...)' has no content form; content forms exist for "
                     + ", ".join(CONTENT_TOOLS)
                     + " (for argument conditions on any tool use the structured form with 'when')")
