"""An HTTP client's '@file' (and curl's '<file') from a value: curl -F 'doc={{ v }}' with
'@/home/me/.ssh/id_rsa' uploaded the key; the call is refused, the config's own '@' kept."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from toolhost.backends.file_values import file_read

from .conftest import Server
from .test_command_backend import Config, cmd, run

pytestmark = pytest.mark.anyio


@pytest.mark.skipif(shutil.which("curl") is None, reason="needs curl")
@pytest.mark.parametrize(("argv", "value"), [
    (["-F", "doc={{ v }}"], "@{secret}"),
    (["-F", "doc={{ v }}"], "<{secret}"),
    (["-F", "{{ v }}"], "doc=@{secret}"),
    (["-d{{ v }}"], "@{secret}"),
    (["--data-urlencode", "{{ v }}"], "q@{secret}"),
    (["-H", "X-A: 1", "--json", "{{ v }}"], "@{secret}"),
    (["-b", "{{ v }}"], "{secret}"),  # no '=': a cookie file, sent as Cookie
    (["--cookie", "{{ v }}"], "{secret}"),
    (["-sb{{ v }}"], "{secret}"),  # bundled: -s -b
    (["-sd", "{{ v }}"], "@{secret}"),
    # curl takes any unambiguous start of a long option (backends25)
    (["--data-b", "{{ v }}"], "@{secret}"),
    (["--data-urlen", "{{ v }}"], "q@{secret}"),
    (["--cook", "{{ v }}"], "{secret}"),
])
async def test_a_value_never_makes_curl_send_a_file(config: Config, tmp_path: Path,
                                                   server: Server, argv: list[str],
                                                   value: str) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("127.0.0.1\tFALSE\t/\tFALSE\t0\ts\tTOPSECRET\n")  # a cookie file too
    full = ["curl", "-sS", "--max-time", "10", *argv, f"{server.url}/api/echo"]
    cfg = config({"t": cmd(full, options={"allow_dash": ["v"]})})
    result = await run(cfg, "t", {"v": value.format(secret=secret)})
    assert result.is_error
    assert "a file the config never named" in result.text_content, result.text_content
    assert not any(b"TOPSECRET" in seen.body or "TOPSECRET" in str(seen.headers)
                   for seen in server.seen)


@pytest.mark.skipif(shutil.which("curl") is None, reason="needs curl")
async def test_values_as_data_and_the_configs_own_file_still_run(config: Config,
                                                                tmp_path: Path,
                                                                server: Server) -> None:
    (tmp_path / "doc.txt").write_text("FILEBODY")
    url = f"{server.url}/api/echo"
    data = config({"t": cmd(["curl", "-sS", "-F", "doc={{ v }}", url])})
    result = await run(data, "t", {"v": "plain @text"})
    assert not result.is_error, result.text_content
    assert b"plain @text" in server.seen[-1].body
    own = config({"t": cmd(["curl", "-sS", "-F", "doc=@{{ name }}", url],
                           options={"cwd": str(tmp_path)})})
    result = await run(own, "t", {"name": "doc.txt"})
    assert not result.is_error, result.text_content
    assert b"FILEBODY" in server.seen[-1].body


@pytest.mark.parametrize(("out", "valued", "read"), [
    (["curl", "-d", "@f", "u"], [(2, 0)], "@f"),
    (["curl", "-d", "@f", "u"], [(2, 1)], None),  # "@{{ name }}": the config's '@'
    (["curl", "-d", "a@f", "u"], [(2, 0)], None),
    (["curl", "-dx@f", "u"], [(1, 2)], None),
    (["curl", "-F", "a=<f", "u"], [(2, 2)], "a=<f"),
    (["curl", "-F", "a=b@f", "u"], [(2, 2)], None),
    (["curl", "--data-urlencode", "a=x@f", "u"], [(2, 0)], None),
    (["curl", "--url-query", "@f", "u"], [(2, 0)], "@f"),
    (["timeout", "5", "curl", "-H", "@f", "u"], [(4, 0)], "@f"),
    (["http", "POST", "u", "a=@f"], [(3, 2)], "a=@f"),
    (["xh", "u", "a@f"], [(2, 0)], "a@f"),
    (["http", "u", "a:=@f"], [(2, 4)], None),  # the config wrote ":=@"
    (["http", "u", "a:=@f"], [(2, 3)], "a:=@f"),
    (["http", "u", "a=b@f"], [(2, 0)], None),  # data: '=' comes first
    (["http", "u", "X-A:@f"], [(2, 0)], "X-A:@f"),
    (["echo", "curl", "-d", "@f"], [(3, 0)], None),
    (["curl", "-b", "/etc/f", "u"], [(2, 0)], "/etc/f"),  # a cookie file
    (["curl", "-b", "a=b", "u"], [(2, 0)], None),  # a cookie
    (["curl", "-b", "./f", "u"], [(2, 2)], None),  # "./{{ jar }}": the config's file
    (["curl", "-b", "", "u"], [(2, 0)], None),  # the cookie engine, no file
    (["curl", "-sbf", "u"], [(1, 3)], "f"),
    (["curl", "-sSd", "@f", "u"], [(2, 0)], "@f"),
    (["curl", "-sSo", "@f", "u"], [(2, 0)], None),  # -o writes: an output name
    (["curl", "--variable", "n@f", "u"], [(2, 0)], "n@f"),
    (["curl", "--variable", "n=@f", "u"], [(2, 0)], None),
    (["curl", "--data-b", "@f", "u"], [(2, 0)], "@f"),  # --data-binary, abbreviated
    (["curl", "--url", "@f"], [(2, 0)], None),  # --url is no --url-query
    (["curl", "--head", "@f", "u"], [(2, 0)], None),  # nor --head a --header
])
def test_which_arguments_read_a_file(out: list[str], valued: list[tuple[int, int]],
                                     read: Any) -> None:
    assert file_read(out, valued) == read


@pytest.mark.skipif(shutil.which("curl") is None, reason="needs curl")
@pytest.mark.parametrize("url", ["file://{secret}", "FILE://{secret}",
                                 "dict://127.0.0.1:9/x", "scp://127.0.0.1/x"])
async def test_a_value_never_chooses_curls_scheme(config: Config, tmp_path: Path,
                                                  url: str) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOPSECRET")
    cfg = config({"t": cmd(["curl", "-sS", "--max-time", "5", "{{ url }}"])})
    result = await run(cfg, "t", {"url": url.format(secret=secret)})
    assert result.is_error
    assert "a URL of a scheme other than http or https" in result.text_content
    assert "TOPSECRET" not in result.text_content


@pytest.mark.skipif(shutil.which("curl") is None, reason="needs curl")
async def test_http_urls_and_the_configs_scheme_still_run(config: Config,
                                                         server: Server) -> None:
    cfg = config({"t": cmd(["curl", "-sS", "--max-time", "5", "{{ url }}"])})
    result = await run(cfg, "t", {"url": f"{server.url}/api/text"})
    assert not result.is_error, result.text_content
    fixed = config({"t": cmd(["curl", "-sS", "-d", "{{ body }}",
                              f"{server.url}/api/echo?u={{{{ q }}}}"])})
    result = await run(fixed, "t", {"body": "file:///etc/passwd", "q": "ftp://x"})
    assert not result.is_error, result.text_content  # data and a query, not the URL
