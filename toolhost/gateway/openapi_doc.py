"""Reading an OpenAPI 3.x document: a file beside the config, or a URL fetched once and cached.

The document is hostile input like any config file: it is read with the same size cap and
parsed by the same bounded YAML reader (JSON is YAML; a JSON document the C ``json``
parser provably reads alike is parsed by it, positions made when one is read: ``json_fast``),
so an alias bomb, a 10,000-deep nesting or a 5 GB file is one located problem. Only local
references (``#/...``) are followed; a reference to another file or URL is refused rather
than fetched. The structure is then checked by ``openapi-spec-validator`` (extra
``openapi``; imported only here; without it a warning says the structure was not checked), and
every problem names the document's file, line and key path. A document too large to check
whole within seconds is checked on the part its chosen operations use
(``toolhost.gateway.openapi_part``), or refused.
"""

from __future__ import annotations

import hashlib
import logging
import os
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from toolhost.config.json_fast import parse_json_fast
from toolhost.config.limits import LIMITS, read_bounded
from toolhost.config.tree import Mark, format_path, mark_for
from toolhost.config.tree import Path as KeyPath
from toolhost.config.url_secrets import shown_url
from toolhost.config.yaml_source import parse_yaml
from toolhost.errors import Problem
from toolhost.excerpt import cut
from toolhost.gateway.openapi_check import spec_validator

__all__ = ["OpenApiDoc", "fetch_cached", "read_document", "resolve_pointer",
           "validate_structure"]

log = logging.getLogger("toolhost.gateway")

FETCH_TIMEOUT = 30.0
MAX_REFS = 100_000  # references walked in one document


@dataclass
class OpenApiDoc:
    """A parsed document and where each of its nodes was written."""

    data: Mapping[str, Any]
    file: str
    marks: Mapping[KeyPath, Mark] = field(default_factory=dict)
    source_url: str | None = None  # where it was fetched from, for relative server URLs
    values: int = 0  # how many it has
    # checked whole by openapi-spec-validator (a larger one: the part its chosen operations
    # use, by ``openapi_part.check_chosen``)
    checked: bool = False

    @property
    def openapi_30(self) -> bool:
        return str(self.data.get("openapi", "")).startswith("3.0")

    def problem(self, path: KeyPath, message: str, hint: str = "") -> Problem:
        """A problem located at ``path`` inside the document."""
        mark = mark_for(self.marks, path, self.file)
        return Problem(message, mark.file, mark.line, mark.column, format_path(path), hint)


def read_document(file: str, problems: list[Problem], *, source_url: str | None = None
                  ) -> OpenApiDoc | None:
    """Read, parse and check ``file``; problems go to ``problems`` (None when it is unusable)."""
    found: list[Problem] = []
    text = read_bounded(file, found, what="OpenAPI document",
                        hint="an OpenAPI document is a .yaml, .yml or .json file")
    # a JSON document the C json parser reads as YAML would: positions only when one is read
    doc = None if text is None else \
        parse_json_fast(text, file, "openapi") or parse_yaml(text, file, "openapi", found)
    if doc is None or found:
        problems.extend(found)
        return None
    if not isinstance(doc.data, Mapping):
        problems.append(Problem("an OpenAPI document is a mapping", file, 1, 1))
        return None
    openapi = OpenApiDoc(doc.data, file, doc.marks, source_url)
    version = str(doc.data.get("openapi", ""))
    if not version.startswith("3."):
        said = f"'openapi: {version}'" if version else "no 'openapi:' version"
        problems.append(openapi.problem(("openapi",), f"{said}: toolhost imports OpenAPI 3.x "
                                        "documents", "a Swagger 2.0 document can be converted "
                                        "with swagger2openapi"))
        return None
    nodes = [0]
    ref_problems = list(_check_refs(openapi, nodes))
    if ref_problems:
        problems.extend(ref_problems[:20])
        return None
    openapi.values = nodes[0]
    if nodes[0] > LIMITS.openapi_check_values:  # the checker costs up to milliseconds per
        return openapi  # value: only the part the chosen operations use is checked
    openapi.checked = True
    problems.extend(validate_structure(openapi))
    return openapi


def _check_refs(doc: OpenApiDoc, nodes: list[int]) -> Iterator[Problem]:
    """Every ``$ref`` is local and points at something; ``nodes[0]`` counts the values."""
    # each node's place is a link (its parent's link, its key), made into a key path only
    # for a problem: a tuple per node cost as much as the parse of a JSON document
    stack: list[tuple[Any, Any]] = [(None, doc.data)]
    settled: set[str] = set()  # references known to reach something (or reported)
    seen = 0
    while stack:
        link, node = stack.pop()
        seen += 1
        if seen > MAX_REFS * 10:
            nodes[0] = seen
            yield doc.problem((), "the document has too many nodes to check")
            return
        kind = type(node)  # (both readers build plain dicts and lists: no ABC check)
        if kind is dict or (kind is not list and isinstance(node, Mapping)):
            ref = node.get("$ref")
            if isinstance(ref, str):
                where = (*_key_path(link), "$ref")
                if not ref.startswith("#/"):
                    yield doc.problem(where, f"reference {cut(ref, 120)!r} points "
                                      "outside the document; toolhost follows only local "
                                      "references (#/...)", "bundle the document into one "
                                      "file first, e.g. with `redocly bundle`")
                elif resolve_pointer(doc.data, ref) is None:
                    yield doc.problem(where, f"reference {cut(ref, 120)!r} points "
                                      "at nothing in the document")
                elif (loop := _ref_loop(doc.data, ref, settled)) is not None:
                    yield doc.problem(where, f"reference {cut(ref, 120)!r} leads "
                                      f"round a cycle of references ({loop}) that never "
                                      "reaches anything", "one of them must be a schema, "
                                      "parameter or body of its own")
            stack.extend(((link, k), v) for k, v in node.items() if not isinstance(k, bool))
        elif kind is list or isinstance(node, list):
            stack.extend(((link, i), v) for i, v in enumerate(node))
    nodes[0] = seen


def _key_path(link: Any) -> KeyPath:
    """The key path a ``_check_refs`` link stands for."""
    keys: list[Any] = []
    while link is not None:
        link, key = link
        keys.append(key)
    return tuple(reversed(keys))


def _ref_loop(data: Any, ref: str, settled: set[str]) -> str | None:
    """The cycle ``ref`` leads into when each reference on its way points at another
    reference (``a -> b -> a``), shown as its chain; None when it reaches a node of its own.
    Each reference is followed once over the whole document (``settled``)."""
    chain: dict[str, None] = {}  # in order, and found at once
    while ref not in settled:
        if ref in chain:
            settled.update(chain)  # said once, at the first reference that meets it
            order = list(chain)
            return cut(" -> ".join([*order[order.index(ref):], ref]), 200)
        chain[ref] = None
        node = resolve_pointer(data, ref)
        nxt = node.get("$ref") if isinstance(node, Mapping) else None
        if not isinstance(nxt, str) or not nxt.startswith("#/"):
            break
        ref = nxt
    settled.update(chain)
    return None


def resolve_pointer(data: Any, ref: str) -> Any:
    """The node a local reference (``#/components/...``) names; None when there is none."""
    node = data
    for token in ref[2:].split("/"):
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return None
    return node


def validate_structure(doc: OpenApiDoc) -> list[Problem]:
    """openapi-spec-validator's problems with ``doc``, located (at most 10); none, with a
    warning, when it is not installed."""
    try:
        validator = spec_validator(doc.openapi_30)
    except ImportError:  # the tools are still built defensively from what is there
        log.warning("%s: openapi-spec-validator is not installed, so the document's structure "
                    "was not checked (pip install 'toolhost[openapi]')", doc.file)
        return []
    problems: list[Problem] = []
    try:
        for error in validator(dict(doc.data)).iter_errors():
            where = tuple(getattr(error, "absolute_path", ()) or ())
            message = cut(" ".join(str(getattr(error, "message", error)).split()), 300)
            problems.append(doc.problem(where, f"not a valid OpenAPI document: {message}"))
            if len(problems) >= 10:
                break
    except RecursionError:
        problems.append(doc.problem((), "the document nests too deeply to check"))
    except Exception as exc:  # the validator's own failure on a strange document
        problems.append(doc.problem((), "not a valid OpenAPI document: "
                                    f"{cut(' '.join(str(exc).split()), 300)}"))
    return problems


def fetch_cached(url: str, cache: Path, problems: list[Problem], origin: Any) -> str | None:
    """The local copy of ``url`` (fetched on first use, then read from ``cache``)."""
    name = hashlib.sha256(url.encode()).hexdigest()[:32]
    suffix = ".json" if url.lower().split("?")[0].endswith(".json") else ".yaml"
    local = cache / "openapi" / f"{name}{suffix}"
    if local.is_file():
        return str(local)
    if not url.startswith(("http://", "https://")):
        problems.append(origin.problem(f"{cut(shown_url(url), 120)!r} is not an http(s) URL",
                                       key=".url"))
        return None
    limit = LIMITS.file_bytes
    deadline = time.monotonic() + FETCH_TIMEOUT  # for the whole document, not each read
    body = bytearray()
    try:
        with _opener().open(url, timeout=FETCH_TIMEOUT) as answer:
            while len(body) <= limit:
                if time.monotonic() > deadline:
                    raise TimeoutError(f"the document took over {FETCH_TIMEOUT:g}s to arrive")
                chunk = answer.read1(1 << 16)
                if not chunk:
                    break
                body.extend(chunk)
    except Exception as exc:  # (a redirect elsewhere too: _SameOrigin says where)
        problems.append(origin.problem(f"cannot fetch the OpenAPI document: "
                                       f"{cut(str(exc), 200)}", key=".url",
                                       hint="check the URL, or download it and use 'spec:'"))
        return None
    if len(body) > limit:
        problems.append(origin.problem(f"the OpenAPI document at {cut(shown_url(url), 120)} "
                                       f"is over {limit:,} bytes", key=".url"))
        return None
    local.parent.mkdir(parents=True, exist_ok=True)
    partial = local.with_suffix(".part")
    partial.write_bytes(body)
    os.replace(partial, local)  # a reader never sees half a document
    return str(local)


class _SameOrigin(urllib.request.HTTPRedirectHandler):
    """Redirects within the URL's own scheme, host and port are followed (at most 5); one to
    another origin is refused: the document, and the URL's query and credentials, stay with
    the host the config names."""

    max_redirections = 5

    def redirect_request(self, req: Any, fp: Any, code: int, msg: str, headers: Any,
                         newurl: str) -> Any:
        old, new = urlsplit(req.full_url), urlsplit(newurl)
        if (old.scheme, old.hostname, old.port) != (new.scheme, new.hostname, new.port) \
                or new.username is not None:
            raise urllib.error.HTTPError(
                req.full_url, code, f"redirected to another host "
                f"({cut(shown_url(f'{new.scheme}://{new.netloc}'), 80)}), which is not "
                "followed", headers, None)
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def _opener() -> urllib.request.OpenerDirector:
    """urllib without proxies (``HTTP_PROXY`` and the like are ignored, as by the http
    backend) and without redirects to another origin."""
    return urllib.request.build_opener(urllib.request.ProxyHandler({}), _SameOrigin())
