"""CompiledTool.call hides the config's secrets in results (unless opted out) and in errors,
before the output cut."""

from __future__ import annotations

import gzip
import io
import json
import zipfile
import zlib
from collections.abc import Mapping
from typing import Any

import jsonschema
import pytest

from toolhost.backends.base import CallContext
from toolhost.compile.tool import CompiledTool
from toolhost.redaction import Redactor
from toolhost.results import ToolResult

SECRET = "s3cr3t-value-42"
REDACT = Redactor(frozenset({SECRET})).redact
SCHEMA: dict[str, Any] = {"type": "object"}


async def _leak(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
    if arguments.get("fail"):
        raise ValueError("upstream rejected token " + SECRET)
    return ToolResult.json({"token": SECRET, "pad": "x" * int(arguments.get("pad", 0))})


def _tool(**extra: Any) -> CompiledTool:
    return CompiledTool(name="t", server="s", description="d", input_schema=SCHEMA,
                        validator=jsonschema.Draft202012Validator(SCHEMA), invoke=_leak,
                        redact=REDACT, **{"output": "structured", **extra})


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_results_are_redacted_by_default() -> None:
    result = await _tool().call({}, CallContext())
    assert result.structured == {"token": "***", "pad": ""}
    assert SECRET not in str(result.to_mcp())


@pytest.mark.anyio
async def test_a_tool_may_opt_out_but_errors_stay_redacted() -> None:
    tool = _tool(redact_results=False)
    assert (await tool.call({}, CallContext())).structured == {"token": SECRET, "pad": ""}
    failed = await tool.call({"fail": True}, CallContext())
    assert failed.is_error and "upstream rejected token ***" in str(failed.to_mcp())


@pytest.mark.anyio
async def test_the_cut_comes_after_redaction() -> None:
    # the JSON text is cut at 20 characters: inside the secret, were it still there
    result = await _tool(max_output_chars=14, output="text").call({"pad": 40}, CallContext())
    text = str(result.to_mcp())
    assert SECRET[:3] not in text and "***" in text


LONG_SECRET = "sk-live-9f8e7d6c5b4a3921"


@pytest.mark.parametrize("pieces", [
    ["key: sk-live-", "9f8e7d6c", "5b4a3921 done"],  # no block holds 10 of its characters
    ["key: sk-live-9f8e7d", "6c5b4a3921 done"],
])
def test_a_secret_cut_over_text_blocks_is_hidden(pieces: list[str]) -> None:
    from toolhost.compile.tool import redact_result

    blocks = [{"type": "text", "text": piece} for piece in pieces]
    blocks.insert(1, {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"})
    shown = redact_result(ToolResult(content=tuple(blocks)),
                          Redactor(frozenset({LONG_SECRET})).redact)
    texts = [block["text"] for block in shown.content if "text" in block]
    assert texts[0] == "key: ***" and texts[-1] == "*** done"
    assert "9f8e" not in "".join(texts) and "3921" not in "".join(texts)
    assert shown.content[1]["data"] == "iVBORw0KGgo="  # binary data as it was
    # and the same blocks redacted as a value (a result passed on whole)
    assert Redactor(frozenset({LONG_SECRET})).value({"content": blocks})["content"][1] == \
        blocks[1]


def _b64(data: bytes) -> str:
    import base64

    return base64.b64encode(data).decode()


def _chunk(kind: bytes, body: bytes) -> bytes:
    return len(body).to_bytes(4, "big") + kind + body + zlib.crc32(kind + body).to_bytes(4, "big")


def _zipped(data: bytes) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("word/document.xml", b"<w:t>" + data + b"</w:t>")
    return out.getvalue()


_PNG = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR" + bytes(13)
BINARY_LEAKS = {
    "a PNG's text chunk": ("image", "image/png",
                           _PNG + b"\0\0\0\x1ftEXtComment\0token=" + LONG_SECRET.encode()),
    "an SVG's text": ("image", "image/svg+xml",
                      f"<svg><text>{LONG_SECRET}</text></svg>".encode()),
    "an SVG's text, percent-encoded": ("image", "image/svg+xml", (
        "<svg><a href='?k=" + "".join(f"%{b:02X}" for b in LONG_SECRET.encode())
        + "'/></svg>").encode()),
    "an MP3's tag": ("audio", "audio/mpeg", b"ID3\x04\0\0\0\0\0\x20TXXX" + LONG_SECRET.encode()),
    # secrets17: compressed inside the file (its base64 does not spell the secret)
    "a PNG's compressed text chunk": ("image", "image/png", _PNG + _chunk(
        b"zTXt", b"Comment\0\0" + zlib.compress(b"token=" + LONG_SECRET.encode()))),
    "a PNG's international text chunk": ("image", "image/png", _PNG + _chunk(
        b"iTXt", b"Comment\0\1\0en\0\0" + zlib.compress(LONG_SECRET.encode()))),
    "a PDF's stream": ("image", "application/pdf", b"%PDF-1.4\n1 0 obj <</Filter "
                       b"/FlateDecode>> stream\n" + zlib.compress(
                           b"BT (key " + LONG_SECRET.encode() + b") Tj ET") + b"\nendstream"),
    "a gzipped file": ("image", "application/gzip", gzip.compress(LONG_SECRET.encode())),
    "a zip (.docx)": ("image", "application/zip", _zipped(LONG_SECRET.encode())),
}


@pytest.mark.parametrize("kind, mime, data", BINARY_LEAKS.values(), ids=BINARY_LEAKS.keys())
def test_binary_data_holding_a_secret_is_hidden_whole(kind: str, mime: str,
                                                       data: bytes) -> None:
    # an image's or audio's base64 was left as it was: the model and the CLI's transcript
    # got the secret in it (its base64 at some alignment) (secrets16)
    from toolhost.compile.tool import redact_result

    clean = {"type": "image", "data": _b64(_PNG + b"\0\0\0\x00IEND"), "mimeType": "image/png"}
    blocks = ({"type": "text", "text": "here:"}, {"type": kind, "data": _b64(data),
                                                 "mimeType": mime}, clean)
    shown = redact_result(ToolResult(content=blocks), Redactor(frozenset({LONG_SECRET})).redact)
    assert shown.content[1] == {"type": "text",
                                "text": f"*** (this {kind} held a secret: hidden)"}
    assert shown.content[2] == clean  # another image's bytes as they were
    assert _b64(LONG_SECRET.encode())[:12] not in str(shown.to_mcp())


@pytest.mark.parametrize("secret", ["Xk9#2p", "hunter2!", "tok-ab"])
def test_an_image_holding_a_short_secret_as_it_is_is_hidden(secret: str) -> None:
    # 5 to 8 bytes: its base64 is too short to tell, its bytes are not (secrets17)
    from toolhost.compile.tool import redact_result

    image = {"type": "image", "mimeType": "image/png",
             "data": _b64(_PNG + _chunk(b"tEXt", b"Comment\0" + secret.encode()))}
    shown = redact_result(ToolResult(content=(image,)), Redactor(frozenset({secret})).redact)
    assert shown.content[0] == {"type": "text", "text": "*** (this image held a secret: hidden)"}


def test_an_image_holding_a_short_secret_by_chance_is_kept() -> None:
    # a PIN's digits are in the base64 of many images; only a secret's long spell counts
    from toolhost.compile.tool import redact_result

    image = {"type": "image", "data": _b64(_PNG) + "x1234Ab", "mimeType": "image/png"}
    shown = redact_result(ToolResult(content=(image,)), Redactor(frozenset({"1234"})).redact)
    assert shown.content[0] == image


@pytest.mark.parametrize("structured", [
    {"a": "sk-live-", "b": "9f8e7d6c", "c": "5b4a3921", "kept": "fine", "n": 3},
    {"rows": [{"k": "sk-live-"}, {"k": "9f8e7d6c"}, {"k": "5b4a3921"}], "kept": "fine"},
    {"head": {"x": "token sk-live-9f"}, "tail": {"y": "8e7d6c5b4a3921 end"}, "kept": "fine"},
], ids=["an object's values", "objects in a list", "nested objects"])
def test_a_secret_cut_over_a_structured_results_values_is_hidden(
        structured: dict[str, Any]) -> None:
    # each value held too little of it to be known; joined, the client read it (secrets17)
    from toolhost.compile.tool import redact_result

    result = ToolResult(content=({"type": "text", "text": "ok"},), structured=structured)
    shown = redact_result(result, Redactor(frozenset({LONG_SECRET})).redact).structured
    assert shown is not None and shown["kept"] == "fine"
    leaves = json.dumps(shown)
    assert not any(LONG_SECRET[i:i + 6] in leaves for i in range(len(LONG_SECRET) - 5))
    assert "***" in leaves
