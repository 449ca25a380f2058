"""Whether a file is a toolhost config of this format: a mapping whose ``toolhost:`` key
holds the format version. A file that is not gets one located problem saying what it looks
like instead (TOML in a ``.yaml`` file, a Git LFS pointer, a policy test file, a client's
``mcpServers``, a misspelt or aliased version key)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from toolhost.config.tree import Doc, Mark
from toolhost.errors import Problem, shown
from toolhost.excerpt import cut

__all__ = ["FORMAT_VERSION", "not_a_mapping", "version_problems"]

FORMAT_VERSION = 1

# a first line of TOML (`toolhost = 1`, `[servers.s]`) that YAML read as one plain string
# (text: compiled at its first use, kept in re's cache; not at every start)
_TOML_LINE = r"\s*(\[[\w.\"' -]+\]|[\w\"'.-]+\s*=)"

_LFS_POINTER = "version https://git-lfs.github.com/spec/"
_LFS_HINT = ("this is a Git LFS pointer, not the file: a shared repository's files are read as "
             "its commit stores them, and LFS content (which the commit does not pin) is never "
             "fetched; commit the config as a plain git file (`git lfs untrack`)")


def not_a_mapping(doc: Doc) -> Problem | None:
    """The problem of a file whose top is not a mapping (None: it is one)."""
    if isinstance(doc.data, dict):
        return None
    toml = (isinstance(doc.data, str) and re.match(_TOML_LINE, doc.data) is not None) \
        or (isinstance(doc.data, list) and len(doc.data) == 1  # `[servers.s]`
            and isinstance(doc.data[0], str) and "." in doc.data[0])
    lfs = isinstance(doc.data, str) and doc.data.startswith(_LFS_POINTER)
    return Problem(
        "a config file is a mapping of keys (toolhost:, servers:, ...)", doc.file, 1, 1,
        hint="this file is written as TOML (key = value, [tables]): name it .toml, "
        "or write YAML (key: value)" if toml else _LFS_HINT if lfs else "")


def version_problems(doc: Doc, is_main: bool, said_before: list[Problem]) -> list[Problem]:
    """The problems of ``doc``'s format version (a mapping's): none when it is this one.
    A fragment (not ``is_main``) may leave it out. ``said_before`` are the problems the
    file's reader found: its reason for the version's value is kept, not "version None"."""
    out: list[Problem] = []
    toml = doc.file.lower().endswith(".toml")  # the version line as this file writes it
    sep = " = " if toml else ": "
    line = f"toolhost{sep}{FORMAT_VERSION}"
    if "toolhost" not in doc.data:
        alias = next((k for k in ("version", "format", "format_version", "schema_version")
                      if k in doc.data), None)
        typo = _misspelt_version_key(doc.data) if alias is None and is_main else None
        if alias is not None:  # `version: 1`, as other tools' files say it
            at = doc.marks.get((alias,), Mark(doc.file, 1, 1))
            out.append(Problem(
                f"missing format version ('{alias}' is not a key of toolhost's format)",
                doc.file, at.line, at.column, alias,
                f"write '{line}' instead of '{alias}{sep}...'"))
        elif typo is not None:  # `tolhost: 1`, `Toolhost: 1`: "add toolhost: 1" would
            # leave the misspelt key, then refused as unknown
            at = doc.marks.get((typo,), Mark(doc.file, 1, 1))
            out.append(Problem(
                f"missing format version ('{cut(typo, 60)}' is not a key of toolhost's "
                "format)", doc.file, at.line, at.column, typo,
                f"did you mean 'toolhost'? write '{line}'"))
        elif is_main and (other := _other_kind(doc.data)) is not None:
            # `toolhost validate *.yaml` beside what `toolhost init` writes: not a config
            out.append(Problem(
                f"not a toolhost config: this is {other[0]}", doc.file, 1, 1, "",
                other[1].replace("FILE", shown(doc.file))))
        elif is_main:
            out.append(Problem(
                "missing format version", doc.file, 1, 1, "toolhost",
                f"add '{line}' at the top of the file; a fragment "
                "meant to be extended is checked with `toolhost validate --fragment`"))
        return out
    version = doc.data["toolhost"]
    said = [p for p in said_before if p.file == doc.file and (
        p.key_path == "toolhost" or p.key_path.startswith(("toolhost[", "toolhost.")))]
    if said:  # `toolhost: !!binary MQ==`, `toolhost: 1e400`, an alias bomb: the reader's
        return said  # reason, not "version None" nor its partial value
    if type(version) is not int or version != FORMAT_VERSION:  # 1.0 and true too
        mark = doc.marks.get(("toolhost",), Mark(doc.file, 1, 1))  # (lazy: only here)
        whole = isinstance(version, float) and version == FORMAT_VERSION
        out.append(Problem(
            f"unsupported format version {version!r}: this toolhost reads version "
            f"{FORMAT_VERSION}" + (" (a whole number)" if whole else ""), doc.file,
            mark.line, mark.column, "toolhost", f"write '{line}'"))
    return out


def _misspelt_version_key(data: Mapping[Any, Any]) -> str | None:
    """A top-level key that is ``toolhost`` misspelt or in another case, if one is."""
    from toolhost.typos import close_matches

    keys = [k for k in data if isinstance(k, str)][:1000]
    return next((k for k in keys if k.lower() == "toolhost"), None) or next(
        (k for k in keys if close_matches(k.lower(), ["toolhost"], n=1, cutoff=0.8)), None)


def _other_kind(data: Mapping[str, Any]) -> tuple[str, str] | None:
    """What another file of toolhost's or a client's is (what it is, how it is used), by
    its keys; None for anything else (a config that lacks its version)."""
    if "cases" in data and "servers" not in data:
        return ("a policy test file (cases:)",
                "run it with `toolhost permissions test FILE`")
    if "turns" in data and "servers" not in data:
        return ("a scenario (a scripted model: turns:)",
                "run it with `toolhost run CONFIG --script FILE -p go`")
    if "mcpServers" in data:
        return ("an MCP client's file (mcpServers:)",
                "`toolhost install` and `toolhost mcp-config` write its entries")
    return None
