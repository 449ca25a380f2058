"""Bytes and content objects become the right MCP content blocks, from python and command."""

from __future__ import annotations

import base64
import subprocess
import sys
from pathlib import Path

import pytest

from toolhost.backends.convert import to_result
from toolhost.backends.sniff import sniff
from toolhost.content import Audio, Image, Resource, ResourceLink

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16
WAV = b"RIFF\x24\x00\x00\x00WAVEfmt " + b"\x00" * 16


@pytest.mark.parametrize("data, kind, mime", [
    (PNG, "image", "image/png"), (b"\xff\xd8\xff\xe0xx", "image", "image/jpeg"),
    (b"GIF89a..", "image", "image/gif"), (b"RIFF\x00\x00\x00\x00WEBPVP8 ", "image", "image/webp"),
    (WAV, "audio", "audio/wav"), (b"OggS\x00\x02", "audio", "audio/ogg"),
    (b"ID3\x04\x00", "audio", "audio/mpeg"), (b"\xff\xfb\x90\x00", "audio", "audio/mpeg"),
    (b"fLaC\x00", "audio", "audio/flac"), (b"\x00\x00\x00\x20ftypM4A ", "audio", "audio/mp4"),
    (b"%PDF-1.7\n", "binary", "application/pdf"), (b"PK\x03\x04", "binary", "application/zip"),
    (b"BMW makes cars", "text", "text/plain"), ("héllo".encode(), "text", "text/plain"),
    (b"\xff\xfe\x00\x01", "binary", "application/octet-stream"),
    (b"a\x00b", "binary", "application/octet-stream"), (b"", "text", "text/plain"),
])
def test_sniffing(data: bytes, kind: str, mime: str) -> None:
    assert sniff(data) == (kind, mime)


def test_bytes_become_image_audio_text_or_a_blob_resource() -> None:
    assert to_result(PNG).content[0]["type"] == "image"
    audio = to_result(WAV).content[0]
    assert audio["type"] == "audio" and audio["mimeType"] == "audio/wav"
    assert base64.b64decode(audio["data"]) == WAV
    assert to_result(b"plain").content == ({"type": "text", "text": "plain"},)
    blob = to_result(b"%PDF-1.7 \xff\xfe").content[0]
    assert blob["type"] == "resource" and blob["resource"]["mimeType"] == "application/pdf"
    assert blob["resource"]["uri"].startswith("toolhost://result/")
    assert base64.b64decode(blob["resource"]["blob"]) == b"%PDF-1.7 \xff\xfe"


def test_content_objects_and_lists_of_them() -> None:
    one = to_result(Resource("r://x", text="hi")).content
    assert one == ({"type": "resource", "resource": {"uri": "r://x", "text": "hi",
                                                     "mimeType": "text/plain"}},)
    mixed = to_result(["a caption", Image(PNG), Audio(WAV, "audio/x-wav"),
                       ResourceLink("r://y", description="y"), {"k": 1}]).content
    assert [b["type"] for b in mixed] == ["text", "image", "audio", "resource_link", "text"]
    assert mixed[2]["mimeType"] == "audio/x-wav" and mixed[4]["text"] == '{"k": 1}'
    assert to_result(["just", "strings"]).structured == {"result": ["just", "strings"]}


def test_command_stdout_declared_binary(tmp_path: Path) -> None:
    (tmp_path / "pic.png").write_bytes(PNG)
    config = tmp_path / "c.yaml"
    config.write_text(f"""\
toolhost: 1
servers:
  s:
    tools:
      pic: {{command: {{argv: [cat, "{tmp_path / 'pic.png'}"], stdout: binary}}}}
      raw:
        command:
          {{argv: [printf, "\\\\001\\\\002"], stdout: binary, mime_type: application/x-thing}}
""")
    out = subprocess.run([sys.executable, "-m", "toolhost", "call", str(config), "s.pic",
                          "--json"], capture_output=True, text=True, timeout=60)
    assert '"type": "image"' in out.stdout and '"mimeType": "image/png"' in out.stdout
    raw = subprocess.run([sys.executable, "-m", "toolhost", "call", str(config), "s.raw",
                          "--json"], capture_output=True, text=True, timeout=60)
    assert '"mimeType": "application/x-thing"' in raw.stdout and '"blob": "AQI="' in raw.stdout
