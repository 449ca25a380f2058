"""An MCP server toolhost did not write (the official mcp package's MCPServer), to import.

    python upstream_server.py stdio            serve over stdio
    python upstream_server.py http PORT        serve Streamable HTTP on 127.0.0.1:PORT

UPSTREAM_LOG (a file) records every call's arguments, so a test can see what arrived.
UPSTREAM_CRASH_AFTER=N makes the process exit during its N-th call.
"""

from __future__ import annotations

import json
import os
import sys

from mcp.server.mcpserver import MCPServer

app = MCPServer("upstream", version="9.9.9")
_calls = 0


def _record(name: str, arguments: dict[str, object]) -> None:
    global _calls
    _calls += 1
    log = os.environ.get("UPSTREAM_LOG")
    if log:
        with open(log, "a") as handle:
            handle.write(json.dumps({"tool": name, "arguments": arguments}) + "\n")
    crash = os.environ.get("UPSTREAM_CRASH_AFTER")
    if crash and _calls >= int(crash):
        os._exit(3)


@app.tool(description=os.environ.get("UPSTREAM_SEARCH_DESCRIPTION") or
          "Search the issues of a repository")
def search_issues(repo: str, query: str, limit: int = 20) -> str:
    _record("search_issues", {"repo": repo, "query": query, "limit": limit})
    return f"{limit} issues in {repo} matching {query!r}"


@app.tool(description="Delete a repository (dangerous)")
def delete_repo(repo: str) -> str:
    _record("delete_repo", {"repo": repo})
    return f"deleted {repo}"


@app.tool(description="Echo a text")
def echo(text: str) -> str:
    _record("echo", {"text": text})
    return text


if __name__ == "__main__":
    if sys.argv[1:2] == ["http"]:
        app.run(transport="streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        app.run()
