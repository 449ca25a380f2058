"""More content forms that parse but name nothing their author meant, for
``validate`` through ``toolhost.permissions.authoring.spec_hints``: each a (level, message, hint).

* ``Task(explore agent)``, ``Task(subagent_type:Explore)``, ``Agent(Explore, Plan)``,
  ``Task(Explore*)``: a sub-agent type is one name (letters, digits, ``-``, ``_``, ``.``,
  ``:`` of a plugin's agent); ``*`` is literal there, a list is one odd name.
* ``Read(%USERPROFILE%/.ssh/**)``: a Windows variable, never expanded.
* ``Read(//~/.ssh/**)``, ``Read(./~/x)``: ``~`` is the home directory only at the start.
* ``Read(file:///etc/passwd)``, ``Read(https://x/y)``: a URL where a path goes.
* ``Read("//etc/passwd")``: quotes are literal in a path pattern.
* ``Read(//etc/passwd\\)``: a trailing backslash escapes nothing.
* ``Read(//etc/passwd, //etc/shadow)``, ``Read(//a|//b)``: a list in one pattern.
* ``Bash(^rm.*)``, ``Bash(regex:^rm)``, ``Bash(/rm -rf/)``: a regular expression; Bash rules
  are word patterns (only ``*`` is a wildcard).
* ``Bash(git push --force|-f)``: ``|`` is a pipe, not "or": a command starting with ``-``.
* a deny/ask ``Bash(rm)`` (only a bare ``rm``), ``Bash(rm -rf:*)`` (one option spelling);
  ``Read(//etc/passwd:*)`` (a Bash prefix marker in a path pattern).
* a deny/ask ``Write(//etc/**)`` (or ``MultiEdit``, ``NotebookEdit``, ``Grep``,
  ``Glob``, ``LS``, ``NotebookRead``): it holds back that one tool only; the other tools of
  its family (``Edit``, ``MultiEdit`` ... write the same files; ``Read`` reads them) are not
  held back. ``Edit(...)``/``Read(...)`` name the whole family.
* a deny/ask ``WebFetch(domain:localhost)`` (or ``127.0.0.1``, ``[::1]``,
  ``0.0.0.0``): a domain rule names one host, and this machine has several names
  (``127.0.0.2``, ``[::1]``, ``0``, ``x.localhost``) the rule does not cover.
"""

from __future__ import annotations

import re

__all__ = ["agent_hints", "bash_hints", "loopback_hints", "one_tool_hints", "path_hints"]

Hint = tuple[str, str, str]
_AGENT_NAME = re.compile(r"[A-Za-z0-9_.:-]+")
_ARG_NAME = re.compile(r"(subagent_type|subagent|agent|type|description|prompt|name)\s*:")


def agent_hints(name: str, spec: str) -> list[Hint]:
    """``Task(...)``/``Agent(...)`` holding what no sub-agent type is."""
    agent = spec.strip()
    found = _ARG_NAME.match(agent)
    if not agent or (found is None and _AGENT_NAME.fullmatch(agent)):
        return []
    if found is not None:
        why, fix = (f"'{found.group(1)}:' is not part of it",
                    f"write {name}({agent[found.end():].strip()})")
    elif "," in agent or "|" in agent:
        why, fix = "a list is read as one name", "write one rule per sub-agent type"
    elif "*" in agent or "?" in agent:
        why, fix = ("wildcards are literal there",
                    f"write {name} for every sub-agent, or one rule per type")
    else:
        why, fix = ("a sub-agent type is one name of letters, digits, '-', '_' "
                    "(as in its definition's 'name:')", "write the type as the agent defines it")
    return [("warning", f"{name}({agent}) matches only a sub-agent type named {agent!r} "
             f"exactly: {why}", fix)]


_WIN_VAR = re.compile(r"%[A-Za-z_][A-Za-z0-9_()]*%")
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")
_LIST = re.compile(r"[,;]\s*(?:/|~|\.{1,2}/)|;\s*\S|,\s+\.[\w*]|\s*\|\s*(?:/|~|\.)")


_FAMILY = {"Write": "Edit", "MultiEdit": "Edit", "NotebookEdit": "Edit", "Grep": "Read",
           "Glob": "Read", "LS": "Read", "NotebookRead": "Read"}
_OTHERS = {"Edit": "Edit, Write, MultiEdit and NotebookEdit",
           "Read": "Read, Grep, Glob, LS and NotebookRead"}


def one_tool_hints(name: str, spec: str, effect: str) -> list[Hint]:
    """A deny/ask path rule naming one tool of a family (``Write(//etc/**)``): the family's
    other tools still reach the path (``Edit`` changes ``/etc/hosts``)."""
    family = _FAMILY.get(name)
    if family is None or effect == "allow":
        return []
    return [("warning", f"a {effect} {name}({spec}) holds back the {name} tool only: "
             f"{_OTHERS[family]} all reach these files, and the others are not held back "
             f"by it", f"write {family}({spec}) to cover every tool that "
             f"{'edits' if family == 'Edit' else 'reads'} files")]


_LOOPBACK = ("localhost", "127.0.0.1", "[::1]", "0.0.0.0")


def loopback_hints(spec: str, effect: str) -> list[Hint]:
    """A deny/ask domain rule naming this machine by one of its names: the others (every
    ``127.x.y.z``, ``[::1]``, ``0.0.0.0``, ``*.localhost``) are other hosts to the rule."""
    from toolhost.permissions.urls import canonical_host

    host = spec.partition(":")[2].strip() if spec.startswith("domain:") else ""
    named = canonical_host(host.removeprefix("*."))
    if effect == "allow" or named not in _LOOPBACK:
        return []
    covered = {named} | ({"localhost", "x.localhost"} if host.startswith("*.") else set())
    others = ", ".join(h for h in (*_LOOPBACK, "127.0.0.2", "x.localhost") if h not in covered)
    return [("warning", f"a {effect} WebFetch({spec}) does not match this machine's other "
             f"names: {others} (every 127.x.y.z) are other hosts to it",
             "add a rule for each name, or deny WebFetch and allow the hosts meant")]


def path_hints(name: str, spec: str) -> list[Hint]:
    """A path pattern holding something a path pattern does not expand or mean."""
    out: list[Hint] = []
    if spec.endswith(":*"):
        out.append(("warning", f"':*' is a Bash rule's prefix marker: in a path pattern "
                    f"{spec!r} names a file whose name ends in ':' and anything",
                    f"write {name}({spec[:-2]}) for that path (a deny covers all below it)"))
    if (var := _WIN_VAR.search(spec)) is not None:
        out.append(("warning", f"{var.group(0)} in {spec!r} is a Windows variable, which path "
                    "rules do not expand: the rule names a directory called that",
                    f"write {name}(~/...) for the home directory, or {name}(//abs/path)"))
    parts = spec.split("/")
    if "~" in parts[1:]:
        out.append(("warning", f"'~' in {spec!r} is the home directory only at the start of a "
                    "path pattern; here it names a directory called '~'",
                    f"write {name}(~/{'/'.join(parts[parts.index('~', 1) + 1:])})"))
    if _URL.match(spec):
        fix = (f"write {name}(//{spec.split('://', 1)[1].lstrip('/')})"
               if spec.lower().startswith("file:") else "for web hosts write "
               "WebFetch(domain:<host>)")
        out.append(("warning", f"{spec!r} is a URL, not a path: the rule names a relative "
                    "file of that name", fix))
    if len(spec) > 1 and spec[0] == spec[-1] and spec[0] in "'\"":
        out.append(("warning", f"quotes are literal in a path pattern: {spec} names a file "
                    "whose name starts and ends with a quote", f"write {name}({spec[1:-1]})"))
    if spec.endswith("\\") and not spec.endswith("\\\\"):
        out.append(("warning", f"{spec!r} ends in a '\\' that escapes nothing",
                    f"write {name}({spec[:-1]})"))
    if (spec.startswith("(") and spec.endswith(")")) or (
            spec.endswith(")") and spec.count(")") > spec.count("(")):
        out.append(("warning", f"a stray parenthesis in {name}({spec}): the pattern is "
                    f"{spec!r}, which names a file holding it",
                    f"write {name}({spec.removeprefix('(').removesuffix(')')})"))
    if _LIST.search(spec):
        out.append(("warning", f"{name}({spec}) looks like a list of paths: it is one path "
                    "pattern holding ', ', ';' or '|'", "write each path as its own rule"))
    return out


_REGEX = re.compile(r"^\^|^\.\*|^regex:|[^\s\\]\$$|^/[^/]*\s[^/]*/$|\\[sdwb]|\.\+\$?$")


def bash_hints(spec: str, effect: str = "deny") -> list[Hint]:
    """A Bash rule written as a regular expression, or with ``|`` meant as "or"; a deny or
    ask rule that is one bare word (``Bash(rm)``: only ``rm`` with no arguments), that is an
    exact command (``Bash(git push origin main)``: ``git push origin main -f`` escapes it) or
    that names an option spelling (``Bash(rm -rf:*)``: ``rm -fr``, ``rm -r -f`` are others)."""
    out: list[Hint] = []
    words = spec.strip().split()
    if effect != "allow" and len(words) == 1 and not set(words[0]) & set("*|&;<>()$`'\"\\:"):
        out.append(("warning", f"Bash({spec.strip()}) matches only the command {words[0]!r} with "
                    "no arguments", f"for every use of it write Bash({words[0]}:*)"))
    if effect != "allow" and len(words) > 1 and not spec.strip().endswith(":*") \
            and not set(spec) & set("*|&;<>()`\n"):
        shown = " ".join(words)
        out.append(("warning", f"Bash({shown}) matches only that exact command: with anything "
                    f"more ({shown} --force, another argument) it is not matched",
                    f"for the command with anything after it write Bash({shown}:*)"))
    fixed = spec.strip().removesuffix(":*").split()
    opts = [w for w in fixed[1:] if w.startswith("-") and len(w) > 1 and not set(w) & set("*=")]
    if effect != "allow" and opts and fixed[0][:1].isalpha() and not set(spec) & set("|&;<>"):
        command = " ".join(fixed[:fixed.index(opts[0])])
        out.append(("warning", f"this {effect} rule names the option spelling {opts[0]!r}: "
                    "other spellings of the same command (options reordered, combined, split "
                    "or in their long form) do not match it",
                    f"{effect} the command itself, Bash({command}:*), when every spelling "
                    "must be caught"))
    if _REGEX.search(spec.strip()):
        out.append(("warning", f"Bash({spec}) looks like a regular expression: Bash rules are "
                    "command words where only '*' is a wildcard ('^', '.', '$', '/' are "
                    "literal), so it matches no command as meant",
                    "write the command's first words, e.g. Bash(rm:*)"))
    pieces = re.split(r"(?<![|])\|(?![|&])", spec)
    if len(pieces) > 1 and not set(spec) & set("'\"\\") and any(
            p.strip().startswith("-") for p in pieces[1:]):
        out.append(("warning", f"'|' in Bash({spec}) is a pipe, not 'or': the part after it "
                    "is a command starting with '-', which nothing runs",
                    "write one rule per alternative"))
    return out
