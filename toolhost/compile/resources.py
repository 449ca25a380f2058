"""Compiled resources: reading files confined to their root, and URI templates bound to a
backend.

``resources/read`` must never reach outside what the config declared: a directory resource
resolves the requested path (symlinks included) and refuses anything not below its root, and
every read is capped at the resource's ``max_bytes``.
"""

from __future__ import annotations

import base64
import functools
import heapq
import mimetypes
import os
import re
import urllib.parse
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from toolhost import regex
from toolhost.backends.base import CallContext
from toolhost.compile.content_kinds import ResourceError, failure_named
from toolhost.compile.resource_uri import normalize, quote_value, unsafe_value
from toolhost.compile.shaping import CUT_NOTE
from toolhost.compile.string_args import NotOfType, typed_strings
from toolhost.compile.tool import CompiledTool
from toolhost.config.content_model import ResourceConfig
from toolhost.excerpt import cut
from toolhost.fileopen import open_regular

__all__ = ["MAX_LISTED", "CompiledResource"]

MAX_LISTED = 1000  # files listed per directory resource (a read still reaches the others)
MAX_WALKED = 10_000  # subdirectories walked per directory (the first by name)
_TEXT_MIMES = ("application/json", "application/xml", "application/yaml", "application/toml",
               "application/javascript", "application/x-sh", "image/svg+xml")
_BINARY_FAMILIES = ("image/", "audio/", "video/", "font/", "model/")
_BINARY_MIMES = frozenset({"application/octet-stream", "application/pdf", "application/zip",
                           "application/gzip", "application/x-tar", "application/x-bzip2",
                           "application/x-xz", "application/x-7z-compressed",
                           "application/wasm", "application/x-sqlite3",
                           "application/vnd.ms-fontobject"})
# what a system's mime table may misname: TypeScript is not MPEG video (/etc/mime.types)
_OVERRIDES = {".ts": "text/x-typescript", ".tsx": "text/x-typescript",
              ".mts": "text/x-typescript", ".cts": "text/x-typescript"}
_VAR = re.compile(r"\{(\+?)([A-Za-z_][A-Za-z0-9_]*)\}")


def guess_mime(name: str) -> str:
    override = _OVERRIDES.get(os.path.splitext(name)[1].lower())
    if override:
        return override
    guessed = mimetypes.guess_type(name)[0]
    if guessed:
        return guessed
    if name.endswith((".md", ".markdown")):
        return "text/markdown"
    if name.endswith((".yaml", ".yml")):
        return "application/yaml"
    if name.endswith(".toml"):
        return "application/toml"
    return "text/plain"


def file_contents(uri: str, path: str, mime: str | None, max_bytes: int) -> dict[str, Any]:
    """One ``contents`` entry for a file: text when it is text, else base64 ``blob``."""
    try:
        with os.fdopen(open_regular(path), "rb") as handle:
            data = handle.read(max_bytes + 1)
    except OSError as exc:
        raise ResourceError(f"cannot read {uri}: {exc.strerror}", not_found=True) from None
    if len(data) > max_bytes:
        raise ResourceError(f"{uri} is larger than its limit of {max_bytes:,} bytes "
                            "(raise the resource's max_bytes)")
    mime = mime or guess_mime(path)
    entry: dict[str, Any] = {"uri": uri, "mimeType": mime}
    text = _as_text(mime, data)
    if text is not None:
        entry["text"] = text
    else:
        entry["blob"] = base64.b64encode(data).decode("ascii")
    return entry


def _as_text(mime: str, data: bytes) -> str | None:
    """``data`` as text when a file of ``mime`` is text: a ``text/*`` type (or JSON, XML,
    YAML, a script...) that is UTF-8; never an image, audio, video, font or archive; and any
    other ``application/*`` type when its bytes are UTF-8 without a NUL (a system's mime
    table calls ``.sql``, ``.rb`` or ``.rs`` files application/..., and they are source)."""
    kind = mime.split(";", 1)[0].strip().lower()
    texty = (kind.startswith("text/") or kind in _TEXT_MIMES
             or kind.endswith(("+json", "+xml", "+yaml")))
    if not texty and (kind.startswith(_BINARY_FAMILIES) or kind in _BINARY_MIMES):
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return text if texty or "\x00" not in text else None


_UNFIT = "the params do not allow its values"  # a read runs the tool's check: it says why


@dataclass(frozen=True)
class CompiledResource:
    """A resource ready to be listed and read. ``tool`` binds a template's backend."""

    config: ResourceConfig
    tool: CompiledTool | None = None

    @property
    def is_template(self) -> bool:
        return self.config.kind == "template"

    def descriptor(self, uri: str | None = None, name: str | None = None) -> dict[str, Any]:
        cfg = self.config
        out: dict[str, Any] = {"name": name or cfg.name}
        if self.is_template:
            out["uriTemplate"] = cfg.uri
        else:
            out["uri"] = uri or normalize(cfg.uri)  # the spelling rules and reads see
        if cfg.title:
            out["title"] = cfg.title
        if cfg.description:
            out["description"] = cfg.description
        mime = cfg.mime_type or (guess_mime(uri or cfg.path or "") if not self.is_template
                                 else None)
        if mime:
            out["mimeType"] = mime
        return out

    def listed(self) -> Iterator[dict[str, Any]]:
        """resources/list entries: the file, or up to MAX_LISTED files of the directory."""
        cfg = self.config
        if cfg.kind == "file":
            yield self.descriptor()
            return
        if cfg.kind != "directory" or cfg.path is None:
            return
        own = normalize(cfg.uri)
        for count, rel in enumerate(self._files(cfg.path), 1):
            yield self.descriptor(own + quote_value(rel, reserved=True), f"{cfg.name}/{rel}")
            if count >= MAX_LISTED:
                return

    def _files(self, root: str) -> Iterator[str]:
        """The paths (``a/b.md``) of the regular files below ``root``, hidden ones and those
        outside it left out, in ``os.walk`` order (a directory's files by name, then its
        directories by name; no recursion, however deep). Only a symlink's target is
        resolved: a file reached through directories that are not symlinks is inside the
        root (a read checks again), which saves two ``realpath`` a file. A directory of a
        million entries costs one pass and keeps only the first MAX_LISTED files (and
        MAX_WALKED directories) by name in memory."""
        pending = [(root, "")]
        while pending:
            top, rel = pending.pop()
            files: list[str] = []
            dirs: list[str] = []
            try:
                with os.scandir(top) as found:
                    for entry in found:
                        name = entry.name
                        if name.startswith("."):
                            continue
                        try:  # the common case first: a regular file (no syscall: d_type)
                            regular = entry.is_file(follow_symlinks=False)
                        except OSError:
                            continue
                        kind = ("file" if "\\" not in name else None) if regular else \
                            self._kind(entry)
                        if kind == "file":
                            files.append(entry.name)
                            if len(files) >= 2 * MAX_LISTED:
                                files = heapq.nsmallest(MAX_LISTED, files)
                        elif kind == "dir":
                            dirs.append(entry.name)
                            if len(dirs) >= 2 * MAX_WALKED:
                                dirs = heapq.nsmallest(MAX_WALKED, dirs)
            except OSError:  # unreadable or gone: nothing listed from it, as os.walk does
                continue
            for name in heapq.nsmallest(MAX_LISTED, files):
                yield rel + name
            pending.extend((os.path.join(top, name), f"{rel}{name}/")
                           for name in reversed(heapq.nsmallest(MAX_WALKED, dirs)))

    def _kind(self, entry: os.DirEntry[str]) -> str | None:
        """Of an entry that is not a regular file: "dir" (a directory to walk), "file" (a
        symlink to a regular file inside the root) or None (a FIFO, a socket, a device)."""
        try:
            if entry.is_dir():
                return None if entry.is_symlink() else "dir"  # a linked one is not walked
            if not (entry.is_symlink() and self._inside(entry.path)
                    and os.path.isfile(entry.path) and not self._hidden_target(entry.path)):
                return None
        except OSError:
            return None
        return None if "\\" in entry.name else "file"  # a read refuses a Windows separator

    def matches(self, uri: str) -> Mapping[str, str] | None:
        """The template variables if ``uri`` (normalised: ``resource_uri.normalize``) is this
        resource's (or the path for a directory, ``{}`` for the file); None if it is not."""
        cfg = self.config
        own = normalize(cfg.uri)
        if cfg.kind == "file":
            return {} if uri == own else None
        if cfg.kind == "directory":
            if not uri.startswith(own) or len(uri) == len(own):
                return None
            return {"path": urllib.parse.unquote(uri[len(own):])}
        found = _template_regex(own).groups(uri)  # RE2: linear in the URI, whatever it is
        if found is None:
            return None
        return {k: urllib.parse.unquote(v) for k, v in found.items()}

    def canonical(self, uri: str, values: Mapping[str, str]) -> str:
        """The canonical URI of what ``values`` (from :meth:`matches`) name: the values
        percent-encoded again, one way (``matches`` of it gives ``values`` back)."""
        own = normalize(self.config.uri)
        if self.config.kind == "file":
            return own
        if self.config.kind == "directory":
            path = values.get("path", "")
            return own + quote_value(self._resolved(path) or path, reserved=True)
        return _VAR.sub(lambda v: quote_value(values.get(v.group(2), ""),
                                              reserved=bool(v.group(1))), own)

    async def read(self, uri: str, values: Mapping[str, str],
                   ctx: CallContext) -> list[dict[str, Any]]:
        cfg = self.config
        if cfg.kind == "file":
            assert cfg.path is not None
            return [file_contents(uri, cfg.path, cfg.mime_type, cfg.max_bytes)]
        if cfg.kind == "directory":
            return [file_contents(uri, self._confined(uri, values["path"]), cfg.mime_type,
                                  cfg.max_bytes)]
        assert self.tool is not None
        why = self._refused(values)
        if why is not None and why != _UNFIT:
            raise ResourceError(f"Resource not found: {cut(uri, 200)} ({why})",
                                not_found=True)
        arguments = typed_strings(self.tool.input_schema, values)  # _refused: they fit
        result = await self.tool.call(arguments, ctx)
        if result.is_error and CUT_NOTE in result.text_content:  # its answer's head: no error
            raise ResourceError(f"{cut(uri, 200)} is larger than its limit of "
                                f"{cfg.max_bytes:,} bytes (raise the resource's max_bytes)")
        if result.is_error:
            text = result.text_content
            invalid = f"Invalid arguments for tool '{self.tool.name}': "
            if text.startswith(invalid):  # a URI its params do not allow: no such resource
                raise ResourceError(f"Resource not found: {cut(uri, 200)} ("
                                    f"{cut(text[len(invalid):], 300)})", not_found=True)
            if text.startswith("Refused to run the command: "):  # a value no argv can hold
                raise ResourceError(f"Resource not found: {cut(uri, 200)} ("
                                    f"{cut(text, 300)})", not_found=True)
            # named as the client knows it, not the hidden tool
            raise ResourceError(failure_named(text, self.tool.name, f"reading {cut(uri, 200)}",
                                              500))
        # a function's dict or list comes back as its JSON: say so when the config does not
        mime = cfg.mime_type or ("application/json" if result.structured is not None else None)
        return _contents(uri, result.content, mime, cfg.max_bytes)

    def file_of(self, uri: str, values: Mapping[str, str]) -> str | None:
        """The file ``uri`` is read from (a file resource, or a file inside a directory
        resource; confined as a read is), None when it is not read from a file."""
        cfg = self.config
        if cfg.kind == "file":
            return cfg.path
        if cfg.kind != "directory":
            return None
        try:
            return self._confined(uri, values.get("path", ""))
        except ResourceError:
            return None

    def exists(self, uri: str, values: Mapping[str, str]) -> bool:
        """Whether a read of ``uri`` could be served without running anything: a file below
        a directory resource must be there (confined); others are taken as they match."""
        if self.config.kind == "directory":
            return self.file_of(uri, values) is not None
        # a template's values a read refuses name no resource: no subscription to them
        return self.tool is None or self._refused(values) is None

    def _refused(self, values: Mapping[str, str]) -> str | None:
        """Why a backed template's (decoded) values name no resource, or None."""
        assert self.tool is not None
        reserved = {v.group(2) for v in _VAR.finditer(self.config.uri) if v.group(1)}
        for name, value in values.items():  # decoded: %2F is a "/" by now
            why = unsafe_value(value, reserved=name in reserved)
            if why is not None:
                return f"the value of '{name}' is refused: {why}"
        try:  # a URI's values are strings: as the types the params declare
            arguments = typed_strings(self.tool.input_schema, values)
        except NotOfType as exc:
            return str(exc)
        try:  # few short values (the URI is bounded): the read's own check says why
            fits = self.tool.validator.is_valid(arguments)
        except Exception:  # what cannot be checked names nothing
            fits = False
        return None if fits else _UNFIT

    def _resolved(self, rel: str) -> str | None:
        """``rel`` with its symlinks resolved, as a path below the root (``latest/a.md`` is
        ``v2/a.md`` when ``latest`` links to ``v2``), so rules see the file a read would
        open, by the one name it has inside the root; None when it is not such a path (the
        read refuses it) or has no symlink on the way."""
        parts = rel.split("/")
        if ("\x00" in rel or rel.startswith("/") or "\\" in rel
                or any(p in ("", ".", "..") for p in parts)):
            return None
        assert self.config.path is not None
        root = os.path.realpath(self.config.path)
        real = os.path.realpath(os.path.join(root, *parts))
        if not real.startswith(root + os.sep):
            return None
        inside = real[len(root) + 1:].replace(os.sep, "/")
        return inside if inside != rel else None

    def _hidden_target(self, path: str) -> bool:
        """Whether the link ``path`` (inside the root) leads to a hidden file or through a
        hidden directory: a read of it is refused, so it is not listed."""
        assert self.config.path is not None
        root = os.path.realpath(self.config.path)
        inside = os.path.realpath(path)[len(root) + 1:]
        return any(part.startswith(".") for part in inside.split(os.sep))

    def _inside(self, path: str) -> bool:
        assert self.config.path is not None
        root = os.path.realpath(self.config.path)
        real = os.path.realpath(path)
        return real == root or real.startswith(root + os.sep)

    def _confined(self, uri: str, rel: str) -> str:
        parts = rel.split("/")
        if ("\x00" in rel or rel.startswith("/") or "\\" in rel
                or any(p in ("", ".", "..") for p in parts)):
            raise ResourceError(f"Resource not found: {cut(uri, 200)}", not_found=True)
        assert self.config.path is not None
        full = os.path.join(self.config.path, *parts)
        if (any(p.startswith(".") for p in parts) or not self._inside(full)
                or not os.path.isfile(full)):
            raise ResourceError(f"Resource not found: {cut(uri, 200)}", not_found=True)
        return full


class _OneVariable:
    """A template with one variable: Python's ``re`` (no second group to backtrack into, so
    linear; and ~20x faster than RE2 on a short URI, the common case)."""

    def __init__(self, pattern: str) -> None:
        self._rx = re.compile(pattern)

    def groups(self, text: str) -> dict[str, str] | None:
        found = self._rx.fullmatch(text)
        return None if found is None else found.groupdict()


@functools.lru_cache(maxsize=256)
def _template_regex(template: str) -> regex.Pattern | _OneVariable:
    """``template`` as a pattern matched in linear time: ``{+var}`` is ``.+``, and two
    variables would cost a backtracking engine O(n^k) on a hostile URI, so a template with
    more than one is matched by RE2."""
    out, last, count = [], 0, 0
    for found in _VAR.finditer(template):
        out.append(re.escape(template[last:found.start()]))
        value = ".+" if found.group(1) else "[^/?#]+"
        out.append(f"(?P<{found.group(2)}>{value})")
        last = found.end()
        count += 1
    out.append(re.escape(template[last:]))
    return _OneVariable("".join(out)) if count <= 1 else regex.compile("".join(out))


_OCTETS = "application/octet-stream"


def _contents(uri: str, blocks: Any, mime: str | None, max_bytes: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    size = 0
    for block in blocks:
        kind = block.get("type")
        if kind == "text":
            text = str(block.get("text", ""))
            # max_bytes counts bytes (UTF-8), as a file's read does, not characters
            size += len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))
            out.append({"uri": uri, "mimeType": mime or "text/plain", "text": text})
        elif kind in ("image", "audio"):
            data = str(block.get("data", ""))
            size += len(data) * 3 // 4
            out.append({"uri": uri, "mimeType": block.get("mimeType", mime or _OCTETS),
                        "blob": data})
        elif kind == "resource" and isinstance(block.get("resource"), Mapping):
            inner = dict(block["resource"])  # counts towards max_bytes like the others
            if mime and "blob" in inner and inner.get("mimeType") in (None, _OCTETS):
                inner["mimeType"] = mime  # bytes nothing recognised: as the config says
            size += len(str(inner.get("text", ""))) + len(str(inner.get("blob", ""))) * 3 // 4
            out.append(inner)
        if size > max_bytes:
            raise ResourceError(f"{cut(uri, 200)} is larger than its limit of {max_bytes:,} "
                                "bytes (raise the resource's max_bytes)")
    return out
