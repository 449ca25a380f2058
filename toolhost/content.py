"""Content a python tool can return besides text and JSON: images, audio, embedded resources
and resource links, as plain value objects.

::

    from toolhost.content import Audio, Image, Resource, ResourceLink

    def chart() -> list:
        return ["Sales by month:", Image(png_bytes)]          # text block, then an image

    def report() -> Resource:
        return Resource("reports://q3", text=csv_text, mime_type="text/csv")

A single object, or a list mixing them with strings, becomes the call's content blocks in
order. Raw ``bytes`` are sniffed instead (see ``toolhost.backends.sniff``).
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any

__all__ = ["Audio", "Content", "Image", "Resource", "ResourceLink", "is_content"]


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


@dataclass(frozen=True)
class Image:
    """An image; ``mime_type`` is sniffed from the bytes when not given."""

    data: bytes
    mime_type: str | None = None

    def block(self) -> dict[str, Any]:
        from toolhost.backends.sniff import sniff

        mime = self.mime_type or sniff(self.data)[1]
        return {"type": "image", "data": _b64(self.data), "mimeType": mime}


@dataclass(frozen=True)
class Audio:
    """Audio; ``mime_type`` is sniffed from the bytes when not given."""

    data: bytes
    mime_type: str | None = None

    def block(self) -> dict[str, Any]:
        from toolhost.backends.sniff import sniff

        mime = self.mime_type or sniff(self.data)[1]
        return {"type": "audio", "data": _b64(self.data), "mimeType": mime}


@dataclass(frozen=True)
class Resource:
    """An embedded resource: its URI and either ``text`` or ``blob`` bytes."""

    uri: str
    text: str | None = None
    blob: bytes | None = None
    mime_type: str | None = None

    def block(self) -> dict[str, Any]:
        inner: dict[str, Any] = {"uri": self.uri}
        if self.blob is not None:
            inner["blob"] = _b64(self.blob)
            inner["mimeType"] = self.mime_type or "application/octet-stream"
        else:
            inner["text"] = self.text or ""
            inner["mimeType"] = self.mime_type or "text/plain"
        return {"type": "resource", "resource": inner}


@dataclass(frozen=True)
class ResourceLink:
    """A link to a resource the client can read (``resources/read``) when it wants to."""

    uri: str
    name: str | None = None
    description: str | None = None
    mime_type: str | None = None

    def block(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "resource_link", "uri": self.uri,
                               "name": self.name or self.uri}
        if self.description:
            out["description"] = self.description
        if self.mime_type:
            out["mimeType"] = self.mime_type
        return out


Content = Image | Audio | Resource | ResourceLink


def is_content(value: object) -> bool:
    return isinstance(value, (Image, Audio, Resource, ResourceLink))
