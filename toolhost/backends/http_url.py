"""URL templates that cannot be steered off the host and path the config declared.

At compile time the URL (joined onto the server's ``base_url`` when relative) must have a
literal scheme, host and port: placeholders may only appear in the path, after the host, or in
the query. A query string written in the URL is kept: ``query:`` entries are appended after it
(``with_query``), and a key in both is a load error. A fragment (``#...``) is a load error: it
is never sent to the server. Every substituted value is percent-encoded
(``quote(value, safe="")``), so a value cannot add ``/``, ``?``, ``#`` or ``@``. At call time
the rendered URL is checked again before anything is sent: same scheme, host and port, the
path still starts with the declared base path, no ``.`` / ``..`` segments (nor ``..;x``, a
Java server's ``..``), no encoded slashes
or backslashes but the ones the config wrote (``/projects/group%2Fproject``), no empty
segments the template did not have; and none of these once a segment is decoded twice more
(overlong UTF-8 such as ``%c0%ae`` read as ``.``), trimmed or normalized (NFKC), as some
servers and proxies read it (``%2e%2e``, ``．．``, ``‥``, ``／``, ``%2e%2e%00``).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, quote, unquote, urljoin, urlsplit

from jinja2.environment import Template

from toolhost.backends import templating
from toolhost.config.template_values import as_set
from toolhost.config.url_secrets import shown_url
from toolhost.config.urlcheck import url_problem

__all__ = ["UnsafeURL", "UrlTemplate", "compile_url", "literal_query_keys", "shown_url",
           "with_query"]

_ENCODED_SLASH = re.compile(r"%(2f|5c)", re.I)
# overlong UTF-8 forms of '.', '/' and '\\' that old decoders accepted (IIS's "unicode" bug)
_OVERLONG_AS = {"%c0%ae": ".", "%e0%80%ae": ".", "%c0%af": "/", "%e0%80%af": "/",
                "%c1%9c": "\\", "%c1%1c": "\\"}
_OVERLONG = re.compile("|".join(map(re.escape, _OVERLONG_AS)), re.I)
# what servers strip around a segment: blanks, controls and zero-width characters
_BLANKS = "".join(map(chr, range(33))) + "\x7f\u00a0\u200b\u200c\u200d\u2060\ufeff"


class UnsafeURL(ValueError):
    """A rendered URL left the declared scheme, host or base path."""


@dataclass(frozen=True)
class UrlTemplate:
    """An http tool's URL template, split at load so a call can check what it builds."""

    template: Template
    source: str  # the full template, base URL joined
    scheme: str
    netloc: str
    base_path: str  # the literal path before the first placeholder, up to its last '/'
    literal_double_slash: bool
    segments: int = 0  # how many '/'-separated path segments the template has
    holes: tuple[int, ...] = ()  # indexes of the segments that hold a placeholder
    encoded_slashes: int = 0  # '%2F'/'%5C' the config wrote in the path itself

    def render(self, context: dict[str, Any]) -> str:
        """Render and check; raises ``UnsafeURL`` naming what was wrong."""
        url = self.template.render(context)
        parts = urlsplit(url)
        if (parts.scheme, parts.netloc) != (self.scheme, self.netloc):
            raise UnsafeURL(f"the URL would go to {shown_url(f'{parts.scheme}://{parts.netloc}')}"
                            f", not {shown_url(f'{self.scheme}://{self.netloc}')}")
        path = parts.path
        if not path.startswith(self.base_path):
            raise UnsafeURL(f"the URL path {path!r} leaves {self.base_path!r}")
        if len(_ENCODED_SLASH.findall(path)) > self.encoded_slashes:  # a value made one
            raise UnsafeURL("a path value contains an encoded '/' or '\\'")
        if "//" in path and not self.literal_double_slash:
            raise UnsafeURL("a path value is empty")
        segments = path.split("/")
        for segment in segments:
            # `..;x` too: Java servers (Tomcat, Jetty, Spring) drop a segment's ;parameters
            # and then read `..` (with ';' encoded as well, where they decode it first)
            if unquote(segment).split(";", 1)[0] in (".", ".."):
                raise UnsafeURL("a path value is '.' or '..'")
            if "%" in segment and (moved := _decoded_again(segment)) is not None:
                raise UnsafeURL(moved)
        if len(segments) == self.segments and any(not segments[i] for i in self.holes):
            raise UnsafeURL("a path value is empty")
        return url


def _decoded_again(segment: str) -> str | None:
    """Why a server that decodes a path twice, or normalizes its text (NFKC), would read
    ``segment`` (as sent) as ``.``/``..`` or as more than one segment, or None. A value's
    ``%2e%2e`` is sent as ``%252e%252e``, ``．．`` (fullwidth) and ``‥`` as their UTF-8, and
    such a server reads ``..``; ``%2f`` and ``／`` read as ``/``."""
    once = unquote(segment)
    forms = {once}
    text = once
    for _ in range(2):  # two more decodings: a proxy's and the application's
        forms.add(_OVERLONG.sub(lambda m: _OVERLONG_AS[m.group().lower()], text))
        text = unquote(text)
        forms.add(text)
    forms |= {unicodedata.normalize("NFKC", form) for form in list(forms)}
    slashes = once.count("/") + once.count("\\")
    for form in forms:
        head = form.split("\0", 1)[0].split(";", 1)[0].strip(_BLANKS)
        if head in (".", ".."):
            return ("a path value is '.' or '..' once decoded again or normalized (NFKC), "
                    "as some servers read it")
        if form.count("/") + form.count("\\") > slashes:
            return ("a path value holds a '/' or '\\' once decoded again or normalized "
                    "(NFKC), as some servers read it")
    return None


def with_query(url: str, pairs: list[tuple[str, str]]) -> str:
    """``url`` with ``pairs`` appended to its query, in order, every key and value
    percent-encoded (a space is %20, never '+'); the URL's own query stays first."""
    if not pairs:
        return url
    extra = "&".join(f"{quote(k, safe='')}={quote(v, safe='')}" for k, v in pairs)
    if "?" not in url:
        return f"{url}?{extra}"
    return url + extra if url.endswith(("?", "&")) else f"{url}&{extra}"


def literal_query_keys(template: UrlTemplate) -> set[str]:
    """The query keys the URL template writes literally (``?dry_run=1&q={q}`` -> both)."""
    query = template.source.split("?", 1)[1] if "?" in template.source else ""
    return {k for k, _ in parse_qsl(query, keep_blank_values=True) if "{" not in k}


def compile_url(url: str, base_url: str | None) -> UrlTemplate:
    """Compile a URL template; raises ``ValueError`` when the host is not literal, the URL
    has a fragment, or a relative URL meets a base_url with a query."""
    if "#" in url:
        raise ValueError("the URL has a fragment ('#...'), which is never sent to the server; "
                         "remove it (a '#' in a value is always encoded as %23)")
    if base_url and ("?" in base_url or "#" in base_url) and not urlsplit(url).scheme:
        raise ValueError(f"the server's base_url {as_set(base_url)!r} has a query or fragment, "
                         "which joining a relative URL would drop; put query parameters in the "
                         "tool's url or query:")
    source = templating.url_source(url)
    first = source.find("{")
    static = source if first < 0 else source[:first]
    if not urlsplit(static).scheme:  # joined onto the base_url (checked there)
        if not base_url:
            raise ValueError(f"{url!r} is a relative URL and the server has no base_url")
        base = base_url if base_url.endswith("/") else base_url + "/"
        source = urljoin(base, source.lstrip("/")) if not source.startswith("{") else \
            base + source
        first = source.find("{")
        static = source if first < 0 else source[:first]
    parts = urlsplit(static)
    if parts.scheme not in ("http", "https"):
        raise ValueError(f"the URL must start with http:// or https://, not {static!r}")
    wrong = _host_problem(static, whole=first < 0)
    if wrong:
        raise ValueError(wrong)
    after_host = static[len(parts.scheme) + 3:]
    if first >= 0 and "/" not in after_host:
        raise ValueError("placeholders may only appear after the host: the scheme, host "
                         "and port must be written literally")
    base_path = parts.path[: parts.path.rfind("/") + 1] if first >= 0 else parts.path
    if "?" in static or "#" in static:
        base_path = urlsplit(static).path
    template = templating.guarded(templating.URL_ENV, source)
    path_source = source[len(parts.scheme) + 3 + len(parts.netloc):]
    path_source = path_source.split("?")[0].split("#")[0]
    segments = path_source.split("/")
    return UrlTemplate(template=template, source=source, scheme=parts.scheme,
                       netloc=parts.netloc, base_path=base_path or "/",
                       literal_double_slash="//" in urlsplit(static).path,
                       segments=len(segments),
                       holes=tuple(i for i, seg in enumerate(segments) if "{" in seg),
                       encoded_slashes=len(_ENCODED_SLASH.findall(path_source)))


def _host_problem(static: str, *, whole: bool) -> str | None:
    """Why the literal start of a URL template could be read as another host by the client
    (``toolhost.config.urlcheck``); None when it cannot, or its authority is not all literal
    (refused next)."""
    rest = static.partition("://")[2]
    if not whole and not any(c in rest for c in "/?#"):
        return None
    return url_problem(static)
