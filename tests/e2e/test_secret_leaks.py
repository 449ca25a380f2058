"""Two secrets, every command and path, every captured byte searched for them in any encoding.

One secret has quotes, backslashes and non-ASCII letters (it is used in ``env`` and
``headers``); the other is the password of ``auth: {type: basic}``. Python tools raise, return,
print and log them; command tools echo them (raw, base64, on stdout and stderr); an HTTP tool
echoes the request headers back (``Authorization: Basic base64(alice:password)``); a rule
names one and a deny message the other. Then validate, tools (--json, --explain), permissions
list/check, call (text and --json), serve (stdio, with the official client) and run (scripted
model, text and JSON) are run, and stdout, stderr and the audit log must hold neither secret
in raw, repr, JSON-escaped, URL-encoded (%20 and +), base64/base64url (any alignment, padded
or not) or hex form, nor the first characters of either.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import quote, quote_plus, unquote, unquote_plus

import pytest

from .conftest import TOOLHOST

pytestmark = pytest.mark.e2e

TOKEN = 'q"uo\\te-ünï-cødé "x" tok3n'
PASSWORD = "b4sic-Pa55word!"
SECRETS = (TOKEN, PASSWORD)

TOOLS_PY = '''\
import base64, json, logging, os, sys
from urllib.parse import quote_plus


def _token() -> str:
    return os.environ["LEAK_API_TOKEN"]


def raise_it() -> str:
    """Fail the way a careless client library does."""
    raise ValueError("upstream rejected token " + _token())


def return_it() -> dict:
    """Return the secrets in several encodings."""
    pair = "alice:" + os.environ["LEAK_PASSWORD"]
    return {"raw": _token(), "basic": "Basic " + base64.b64encode(pair.encode()).decode(),
            "url": "https://x/?t=" + quote_plus(_token()), "json": json.dumps(_token()),
            "hex": _token().encode().hex(), "password": os.environ["LEAK_PASSWORD"]}


def print_it() -> str:
    """Print and log the secret."""
    print("printing", _token())
    print("stderr", repr(_token()), file=sys.stderr)
    logging.getLogger("leaky").warning("log %s", _token())
    return "printed " + "x" * 50 + _token()
'''

CONFIG = """\
toolhost: 1
servers:
  leaky:
    env: {{LEAK_API_TOKEN: "${{LEAK_API_TOKEN}}"}}
    tools:
      raise_it: {{python: "leaktools:raise_it"}}
      return_it: {{python: "leaktools:return_it"}}
      print_it: {{python: "leaktools:print_it"}}
      echo_env:
        command: [sh, -c, 'printf "%s\\n" "$LEAK_API_TOKEN"; printf %s "$LEAK_API_TOKEN" | base64']
      fail_env:
        command: [sh, -c, 'printf "boom %s" "$LEAK_API_TOKEN" >&2; exit 3']
      cut_env:
        max_output_chars: 30
        command: [sh, -c, 'printf "0123456789012345678901234%s" "$LEAK_API_TOKEN"']
      say:
        command: [echo, "{{{{ text }}}}"]
  web:
    base_url: "{base}"
    auth: {{type: basic, username: alice, password: "${{LEAK_PASSWORD}}"}}
    headers: {{X-Api-Key: "${{LEAK_PASSWORD}}"}}
    tools:
      headers: {{http: {{url: headers}}}}
permissions:
  default: allow
  audit_log: {audit}
  deny:
    - tool: mcp__leaky__say
      when: {{text: {{glob: "*${{LEAK_API_TOKEN}}*"}}}}
      message: "refused: ${{LEAK_PASSWORD}}"
"""

BAD = """\
toolhost: 1
servers:
  bad:
    timeout: "${LEAK_API_TOKEN}"
    tools:
      t: {command: [echo, "${LEAK_PASSWORD}"], max_output_chars: "${LEAK_PASSWORD}"}
"""


class _Echo(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = json.dumps({"headers": dict(self.headers.items()),
                           "raw": str(self.headers)}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def echo_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Echo)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


# -- the search: written independently of toolhost.redaction --------------------------------

_B64_RUN = re.compile(r"[A-Za-z0-9+/_-]{6,}={0,2}")
_HEX_RUN = re.compile(r"(?:[0-9a-fA-F]{2}){4,}")


def _decoded_base64(text: str) -> Iterator[bytes]:
    for run in _B64_RUN.findall(text):
        body = run.rstrip("=").replace("-", "+").replace("_", "/")
        for skip in range(4):  # every alignment of the run
            part = body[skip:]
            part = part[:len(part) - len(part) % 4 if len(part) % 4 != 1 else len(part) - 1]
            try:
                yield base64.b64decode(part + "=" * (-len(part) % 4))
            except (binascii.Error, ValueError):
                continue


def leaks(text: str) -> list[str]:
    """Each way a secret shows in ``text`` (empty when none does)."""
    found = []
    views = {"raw": text, "url": unquote(text), "url+": unquote_plus(text)}
    with contextlib.suppress(ValueError):
        views["json"] = json.loads(f'"{text}"') if '"' not in text else text
    for secret in SECRETS:
        data = secret.encode()
        wanted = {secret, json.dumps(secret)[1:-1], json.dumps(secret, ensure_ascii=False)[1:-1],
                  repr(secret)[1:-1], quote(secret, safe=""), quote_plus(secret), data.hex(),
                  data.hex().upper(), secret[:6]}
        for name, view in views.items():
            found += [f"{name}: {w!r}" for w in wanted if w in view]
        for blob in _decoded_base64(text):
            if data in blob or secret[:6].encode() in blob:
                found.append(f"base64 of {secret[:3]}…")
        for run in _HEX_RUN.findall(text):
            if data in bytes.fromhex(run):
                found.append(f"hex of {secret[:3]}…")
    return found


def test_the_search_finds_what_it_looks_for() -> None:
    pair = base64.b64encode(("alice:" + PASSWORD).encode()).decode()
    for sample in (f"x {TOKEN} y", json.dumps({"t": TOKEN}), json.dumps(TOKEN, ensure_ascii=True),
                   quote_plus(TOKEN), f"Authorization: Basic {pair}", pair.rstrip("="),
                   "prefix" + base64.urlsafe_b64encode(b"ab" + TOKEN.encode()).decode(),
                   PASSWORD.encode().hex(), PASSWORD[:7] + "…12 more characters"):
        assert leaks(sample), sample
    assert not leaks("Authorization: Basic *** and *** and a plain sentence")


# -- every command ------------------------------------------------------------------------


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "leaktools.py").write_text(TOOLS_PY)
    return {**os.environ, "LEAK_API_TOKEN": TOKEN, "LEAK_PASSWORD": PASSWORD,
            "PYTHONPATH": str(tmp_path), "HOME": str(tmp_path)}


@pytest.fixture
def config(tmp_path: Path, echo_server: str) -> Path:
    path = tmp_path / "leak.yaml"
    path.write_text(CONFIG.format(base=echo_server, audit=tmp_path / "audit.jsonl"))
    (tmp_path / "bad.yaml").write_text(BAD)
    return path


def _toolhost(env: dict[str, str], *args: str, stdin: str | None = None
              ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(TOOLHOST), *args], capture_output=True, text=True, env=env,
                          input=stdin, timeout=120, check=False)


def _in_process(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                env: dict[str, str], args: list[str]) -> subprocess.CompletedProcess[str]:
    """``toolhost ARGS`` run by ``cli.main`` in this process, with ``env``."""
    from toolhost.cli import main

    with monkeypatch.context() as patch:
        for name, value in env.items():
            patch.setenv(name, value)
        code = main(args)
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess(args, code, out, err)


CALLS = [("leaky.raise_it", []), ("leaky.return_it", []), ("leaky.print_it", []),
         ("leaky.echo_env", []), ("leaky.fail_env", []), ("leaky.cut_env", []),
         ("leaky.say", [f"text={TOKEN}"]), ("web.headers", [])]


def test_no_command_shows_a_secret(config: Path, env: dict[str, str], tmp_path: Path,
                                   capsys: pytest.CaptureFixture[str],
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    # The commands that run no tool run in this process (a process's start-up was most of
    # this test's time); the calls run as processes of their own, side by side. Each is
    # recorded under its name.
    c = str(config)
    bad = str(tmp_path / "bad.yaml")
    here: dict[str, list[str]] = {
        "validate": ["validate", c], "validate bad": ["validate", bad],
        "tools": ["tools", c], "tools --json": ["tools", c, "--json"],
        "tools --explain": ["tools", c, "--explain"],
        "tools --explain --json": ["tools", c, "--explain", "--json"],
        "permissions list": ["permissions", "list", c]}
    for extra in ([], ["--json"]):
        here[f"check {extra}"] = [
            "permissions", "check", c, "mcp__leaky__say", "--input",
            json.dumps({"text": f"a {TOKEN} b"}), *extra]
        here[f"check token {extra}"] = [
            "permissions", "check", c, "mcp__leaky__say", "--input",
            json.dumps({"text": "fine", "token": PASSWORD}), *extra]
    commands: dict[str, list[str]] = {}
    for tool, args in CALLS:
        for extra in ([], ["--json"]):
            commands[f"call {tool} {extra}"] = ["call", c, tool, *args, *extra]
    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        running = pool.map(lambda a: _toolhost(env, *a), commands.values())
        done = {name: _in_process(monkeypatch, capsys, env, args)
                for name, args in here.items()}
        done.update(zip(commands, running, strict=True))
    outputs = {name: f"{run.stdout}\n{run.stderr}" for name, run in done.items()}
    bad_run = done["validate bad"]
    assert bad_run.returncode != 0 and "bad.yaml:" in bad_run.stderr  # located, still
    explain = done["tools --explain"]
    assert "LEAK_API_TOKEN" in explain.stdout or "***" in explain.stdout
    assert "***" in done["permissions list"].stdout
    for extra in ([], ["--json"]):
        assert "deny" in done[f"check {extra}"].stdout
    headers = done["call web.headers ['--json']"]
    # the headers were sent, and are hidden on the way back ("alice:" stays readable)
    assert "X-Api-Key: ***" in headers.stdout and "Basic YWxpY2U6***" in headers.stdout
    raised = done["call leaky.raise_it []"]
    assert "upstream rejected token ***" in raised.stdout + raised.stderr
    outputs["audit log"] = (tmp_path / "audit.jsonl").read_text() \
        if (tmp_path / "audit.jsonl").exists() else ""
    found = {name: hits for name, text in outputs.items() if (hits := leaks(text))}
    assert not found, json.dumps({n: (h, outputs[n][:2000]) for n, h in found.items()},
                                 indent=1, ensure_ascii=False)


@pytest.mark.anyio
async def test_serve_stdio_shows_no_secret(config: Path, env: dict[str, str],
                                           tmp_path: Path) -> None:
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    log = tmp_path / "serve.log"
    params = StdioServerParameters(command=str(TOOLHOST), args=["serve", str(config), "--all"],
                                   env=env)
    seen: list[str] = []
    with open(log, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), \
                ClientSession(read, write) as session:
            await session.initialize()
            listed = await session.list_tools()
            seen.append(listed.model_dump_json())
            for tool in listed.tools:
                args = {"text": TOKEN} if tool.name.endswith("say") else {}
                result = await session.call_tool(tool.name, args)
                seen.append(result.model_dump_json())
    seen.append(log.read_text())
    assert any("***" in s for s in seen)
    found = [(hits, s[:1500]) for s in seen if (hits := leaks(s))]
    assert not found, found


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.parametrize("output", ["text", "json"])
def test_run_shows_no_secret(cli: str, config: Path, env: dict[str, str],
                             scenario: Callable[[str], Path], output: str) -> None:
    calls = "\n".join(f"      - {{tool: mcp__{t.replace('.', '__')}, input: {{}}}}"
                      for t, a in CALLS if not a)
    script = scenario(f"""\
turns:
  - text: "calling"
    tool_calls:
{calls}
      - {{tool: mcp__leaky__say, input: {{text: "plain", token: {json.dumps(PASSWORD)}}}}}
  - text: "done"
""")
    done = subprocess.run([str(TOOLHOST), "run", str(config), "--script", str(script),
                           "-p", "go", "--output", output],
                          capture_output=True, text=True, timeout=180, check=False,
                          env={**env, "TOOLHOST_CLI": cli})
    text = done.stdout + "\n" + done.stderr
    assert "mcp__leaky__raise_it" in text, text[-3000:]
    assert not leaks(text), (leaks(text), text[-4000:])
    assert sys.version_info >= (3, 10)
