"""JSON Schema of the ``http`` block (the loader reports bad keys with it, by key path)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["IDEMPOTENT", "OPTIONS_SCHEMA"]

IDEMPOTENT = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE"})

_TEMPLATES: dict[str, Any] = {
    "type": "object",
    "additionalProperties": {"type": ["string", "number", "integer", "boolean"]},
}

OPTIONS_SCHEMA: Mapping[str, Any] = {
    "type": "object",
    "description": "Call an HTTP endpoint; the URL cannot leave the declared host and path.",
    "properties": {
        "method": {"enum": ["GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"],
                   "description": "HTTP method (default GET)."},
        "url": {"type": "string", "minLength": 1,
                "description": "Absolute URL, or a path joined onto the server's base_url. "
                               "{name} / {{ name }} parts are percent-encoded values; the "
                               "scheme, host and port must be literal; a query written here "
                               "is kept; no fragment."},
        "query": {**_TEMPLATES, "description": "Query parameters (templates), appended after a "
                                               "query written in url; an entry is left out "
                                               "only when its params were not given."},
        "headers": {**_TEMPLATES, "description": "Request headers (templates), over the "
                                                 "server's default headers."},
        "json": {"description": "JSON body: strings are templates; a string that is exactly "
                                "'{{ name }}' keeps the argument's JSON type."},
        "form": {**_TEMPLATES, "description": "Form body (application/x-www-form-urlencoded)."},
        "retries": {"type": "integer", "minimum": 0, "maximum": 10,
                    "description": "Retries of idempotent methods on connect errors, 429 and "
                                   "5xx, with exponential backoff (default 2)."},
        "backoff": {"type": "number", "minimum": 0, "maximum": 3600,
                    "description": "First retry delay in seconds, doubled each time "
                                   "(default 0.5)."},
        "max_retry_after": {"type": "number", "minimum": 0, "maximum": 86400,
                            "description": "Cap on a server's Retry-After, seconds "
                                           "(default 10)."},
        "max_response_bytes": {"type": "integer", "minimum": 1, "maximum": 2**31 - 1,
                               "description": "Stop reading the body after this many bytes "
                                              "(default 5,000,000)."},
        "select": {"type": "string",
                   "description": "Pick part of a JSON response: a JSON pointer ('/data/items') "
                                  "or a jinja2 expression over 'response' "
                                  "('response.items | map(attribute=\"name\") | list')."},
    },
    "required": ["url"],
    "additionalProperties": False,
    "not": {"required": ["json", "form"]},
}
