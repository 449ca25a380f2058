"""Every URI ``resources/list`` shows for a directory resource reads back, labelled with that
same URI, whatever characters its file name holds (spaces, ``%``, ``?``, ``#``, ``;``, a
line break, non-ASCII); a name a read would refuse (a backslash, a leading dot) is not
listed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio

from toolhost.compile import compile_tools
from toolhost.config import load_config
from toolhost.mcp import McpServer

NAMES = ["a b.md", "x%41.md", "q?.md", "h#.md", "\u00fc.md", "semi;colon.md", "nl\nx.md",
         "plus+.md", "tilde~.md", "colon:x.md", "dots...md", "sub/deep one.md"]
UNREADABLE = ["back\\slash.md", "..dots.md", ".hidden"]


def test_every_listed_uri_reads_back(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "sub").mkdir(parents=True)
    for name in NAMES + UNREADABLE:
        (root / name).write_text(name)
    (tmp_path / "kb.yaml").write_text("toolhost: 1\nservers:\n  kb:\n    resources:\n"
                                      "      docs: {directory: root/, uri: \"docs://kb\"}\n")
    compiled = compile_tools(load_config(tmp_path / "kb.yaml", layers=False))
    server = McpServer("kb", "1", compiled.servers["kb"], content=compiled.content["kb"])

    async def ask(method: str, params: Any) -> Any:
        answer = await server.handle({"jsonrpc": "2.0", "id": 1, "method": method,
                                      "params": params})
        assert answer is not None
        return answer

    async def go() -> list[str]:
        listed = (await ask("resources/list", {}))["result"]["resources"]
        texts = []
        for entry in listed:
            contents = (await ask("resources/read", {"uri": entry["uri"]}))["result"][
                "contents"]
            assert [c["uri"] for c in contents] == [entry["uri"]]
            texts.append(contents[0]["text"])
        return texts
    assert sorted(anyio.run(go)) == sorted(NAMES)
