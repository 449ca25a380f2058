"""Every ``format`` toolhost advertises is checked (hostname, uri, uri-reference, iri,
iri-reference, uri-template, json-pointer, relative-json-pointer, duration, date-time, time,
besides jsonschema's own), the quick check agrees with the validator, and ``validate`` warns
about a format nobody checks."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.inproc import run_cli
from toolhost import regex
from toolhost.backends.base import CallContext
from toolhost.compile.fastcheck import compile_check
from toolhost.compile.formats import CHECKERS
from toolhost.compile.validators import LazyValidator, real_validator

# format -> (valid, invalid)
CASES: dict[str, tuple[list[str], list[str]]] = {
    "hostname": (["example.com", "a", "a-b.c1", "xn--bcher-kva.example", "A" * 63 + ".io"],
                 ["-oProxyCommand=touch /tmp/x", "a b;c\n$(id)", "", "a..b", "-a.com",
                  "a-.com", "A" * 64 + ".io", "ex_ample.com", "example.", "ab--c.com",
                  "xn--X", "b\u00fccher.de", ".".join(["a" * 60] * 5)]),
    "uri": (["http://example.com/a?b=c#d", "urn:isbn:0451450523", "mailto:a@b.c",
             "http://[::1]:80/", "ftp://u:p@h:21/x%20y", "file:///etc/hosts"],
            ["not a uri", "/relative/path", "http://exa mple.com", "http://a/%zz",
             "1http://a", "http://[::1", "http://a:port/", "http://a/\u00e9", ""]),
    "uri-reference": (["/relative/path", "../up?q#f", "", "#frag", "http://a/b", "a/b:c"],
                      ["a b", "\\\\server\\share", "http://a/%g0", "a:b c", ":x"]),
    "iri": (["http://\u00e9x.com/\u00fc?q=\u00e0", "urn:x:\u4e2d"],
            ["\u00e9x.com/path", "http://a b", "http://a/\u0007"]),
    "iri-reference": (["/p\u00e4th", "\u00fc#f", ""], ["a b", "a\u0000b"]),
    "uri-template": (["http://x/{id}", "{+path}/here", "{?q,lang}", "{var:3}", "{list*}",
                      "plain", "{a.b}", "{%20x}"],
                     ["{", "}", "{}", "{a", "{a b}", "{var:0}", "{var:10000}", "a b",
                      "{$x}", "x{a}}"]),
    "json-pointer": (["", "/a/b", "/a~0b/~1c", "/", "/0"], ["a", "/a~2", "/~", "#/a"]),
    "relative-json-pointer": (["0", "1/a", "2#", "0/~0"], ["", "-1", "01", "/a", "1#/a"]),
    "duration": (["P1D", "PT1H", "P1Y2M3DT4H5M6S", "P2W", "PT36H", "P1M", "PT1M"],
                 ["P", "PT", "1D", "P1H", "P1DT", "P1W1D", "P1.5D", "p1d", "P\u0661D",
                  "P1S"]),
    "date-time": (["2024-01-31T10:00:00Z", "2024-01-31t10:00:00.123+02:00",
                   "1998-12-31T23:59:60Z", "1998-12-31T15:59:60-08:00"],
                  ["2024-01-31", "2024-02-30T10:00:00Z", "2024-01-31T25:00:00Z",
                   "2024-01-31T10:00:00", "2024-01-31T23:58:60Z", "2024-01-31 10:00:00Z",
                   "2024-01-31T10:00:00+24:00"]),
    "time": (["10:00:00Z", "23:59:60Z", "10:00:00.5+01:00"],
             ["10:00:00", "24:00:00Z", "10:60:00Z", "10:00Z", "12:00:60Z"]),
}


def _validator(fmt: str) -> LazyValidator:
    return LazyValidator({"type": "object", "properties": {"v": {"type": "string",
                                                                  "format": fmt}}},
                         formats=True)


@pytest.mark.parametrize("fmt", list(CASES))
def test_each_format_is_checked_and_the_quick_check_agrees(fmt: str) -> None:
    assert fmt in regex.validator_class().FORMAT_CHECKER.checkers
    validator = _validator(fmt)
    quick = compile_check(real_validator(validator))
    good, bad = CASES[fmt]
    for text in good:
        assert validator.is_valid({"v": text}), (fmt, text)
        assert quick is None or quick({"v": text}) in (True, False)
    for text in bad:
        assert not validator.is_valid({"v": text}), (fmt, text)
        assert quick is None or not quick({"v": text}), (fmt, text)  # never a wrong yes


@settings(max_examples=200, deadline=None)
@given(fmt=st.sampled_from(sorted(CHECKERS)),
       text=st.text(alphabet=st.sampled_from("aZ09-._~:/?#[]@!$&'()*+,;={}%PTWYMDHS\u00e9 "),
                    max_size=20))
def test_the_quick_check_never_says_yes_when_the_validator_says_no(fmt: str, text: str) -> None:
    validator = _validator(fmt)
    quick = compile_check(real_validator(validator))
    if quick is not None and quick({"v": text}):
        assert validator.is_valid({"v": text})


@pytest.mark.anyio
async def test_a_hostname_param_refuses_an_option_before_the_command_runs(
        tmp_path: Path) -> None:
    from toolhost.compile import compile_tools
    from toolhost.config.loader import load_config

    config = tmp_path / "fmt.yaml"
    config.write_text(textwrap.dedent("""\
        toolhost: 1
        permissions: {default: allow}
        servers:
          net:
            tools:
              ping:
                command: [printf, "%s", "{{ host }}"]
                params:
                  host: {type: string, format: hostname}
        """))
    async with compile_tools(load_config(str(config))) as compiled:
        tool = compiled.tool("net", "ping")
        refused = await tool.call({"host": "-oProxyCommand=touch /tmp/x"}, CallContext())
        assert refused.is_error and refused.text_content.startswith(
            "Invalid arguments for tool 'ping': host: ")
        ok = await tool.call({"host": "example.com"}, CallContext())
        assert not ok.is_error and ok.text_content == "example.com"


def test_validate_warns_about_a_format_nobody_checks(tmp_path: Path) -> None:
    config = tmp_path / "fmt.yaml"
    config.write_text(textwrap.dedent("""\
        toolhost: 1
        permissions: {default: allow}
        servers:
          net:
            tools:
              call:
                command: [echo, "--", "{{ phone }}", "{{ host }}"]
                params:
                  phone: {type: string, format: phone-number}
                  host: {type: string, format: hostname}
        """))
    done = run_cli(["validate", str(config)])
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if "format" in line]
    assert len(lines) == 1, done.stderr
    assert "fmt.yaml:6:" in lines[0] and "servers.net.tools.call" in lines[0]
    assert ("warning: inputSchema at properties.phone: format 'phone-number' is not checked "
            "by toolhost (any string passes it)") in lines[0]
    strict = run_cli(["validate", "--strict", str(config)])
    assert strict.returncode != 0


LONG_VALUES = {"chars": "a" * 1_000_000, "colons": "a:" * 500_000, "slashes": "a/" * 500_000,
               "escapes": "%41" * 300_000, "template": "{" + "a," * 300_000 + "a}",
               "pointer": "/" + "~0" * 500_000}


@pytest.mark.parametrize("fmt", ["uri", "uri-reference", "iri", "iri-reference",
                                 "uri-template", "json-pointer", "relative-json-pointer"])
def test_a_long_value_is_checked_in_little_memory(fmt: str) -> None:
    # the grammars' `(?:[chars]|%XX)*` kept a backtracking frame per character: a 5 MB
    # argument took a call to 640 MB; possessive repeats keep none
    import tracemalloc

    checker = CHECKERS[fmt]
    tracemalloc.start()
    try:
        for value in LONG_VALUES.values():
            checker("http://h/" + value if fmt.startswith(("uri", "iri")) else value)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20_000_000, f"{fmt}: {peak:,} bytes"
