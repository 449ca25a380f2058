"""What the access log of ``serve --transport http`` costs: sequential ``tools/list`` POSTs on
one keep-alive connection to a real server, with the access log on (the default) and off
(``--no-access-log``). Run: ``.venv/bin/python bench/bench_access_log.py [N]``."""

from __future__ import annotations

import http.client
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CONFIG = """\
toolhost: 1
servers:
  kb:
    tools:
      echo: {command: [echo, hi]}
permissions: {default: allow}
"""
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}}


def run(count: int, *extra: str) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "kb.yaml"
        config.write_text(CONFIG)
        log = Path(tmp) / "server.log"
        with open(log, "wb") as err:
            proc = subprocess.Popen([sys.executable, "-m", "toolhost", "serve", str(config),
                                     "--transport", "http", "--port", "0", *extra],
                                    stdout=subprocess.DEVNULL, stderr=err,
                                    env={**os.environ, "TOOLHOST_SHUTDOWN_QUIET": "0"})
        try:
            while not (found := re.search(r"http://127\.0\.0\.1:(\d+)/mcp", log.read_text())):
                time.sleep(0.05)
            conn = http.client.HTTPConnection("127.0.0.1", int(found.group(1)))
            body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list",
                               "params": {"_meta": META}}).encode()
            headers = {"content-type": "application/json", "accept": "application/json",
                       "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list"}
            for _ in range(50):  # warm up
                conn.request("POST", "/mcp", body, headers)
                conn.getresponse().read()
            start = time.perf_counter()
            for _ in range(count):
                conn.request("POST", "/mcp", body, headers)
                conn.getresponse().read()
            return (time.perf_counter() - start) / count
        finally:
            proc.terminate()
            proc.wait(30)


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    for _ in range(2):
        on, off = run(count), run(count, "--no-access-log")
        print(f"{count} requests: access log on {on * 1e6:.0f} us/request, "
              f"off {off * 1e6:.0f} us/request ({(on - off) * 1e6:+.0f} us)")


if __name__ == "__main__":
    main()
