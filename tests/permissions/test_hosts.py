"""WebFetch(domain:...) rules and ``{host: ...}`` conditions compare canonical hosts: every
spelling of an address or a domain (WHATWG host parsing) is the same host on both sides."""

from __future__ import annotations

import re

import pytest

from toolhost.config.model import PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy
from toolhost.permissions.urls import canonical_host, url_host

META = "169.254.169.254"
META_SPELLINGS = [
    "http://169.254.169.254/", "http://2852039166/", "http://0xa9fea9fe/", "http://0XA9FEA9FE/",
    "http://169.254.43518/", "http://169.16689662/", "http://0251.0376.0251.0376/",
    "http://0xa9.0xfe.0xa9.0xfe/", "http://0xa9.254.0251.254/", "http://169.254.169.254./",
    "http://[::ffff:169.254.169.254]/", "http://[::ffff:a9fe:a9fe]/",
    "http://[0:0:0:0:0:ffff:a9fe:a9fe]/", "http://[0000::ffff:169.254.169.254]:80/",
    "http://[64:ff9b::a9fe:a9fe]/", "http://[::169.254.169.254]/", "http://%31%36%39.254.169.254/",
    "http://169%2e254%2e169%2e254/", "http://user:pw@169.254.169.254:8080/latest",
    "http://example.com@169.254.169.254/", "http:\\\\169.254.169.254\\x", "http:169.254.169.254/",
    "HTTP://169.254.169.254/", " http://169.254.169.254/ ", "http://169.254.169.254:/",
    "http://１６９.２５４.１６９.２５４/", "http://169。254。169。254/", "http://16\t9.254.169.254/",
    "https:///169.254.169.254/", "http://169.254.169.254#@example.com",
    "http://169.254.169.254?@example.com",
]
LOOPBACK_SPELLINGS = ["http://127.0.0.1/", "http://127.1/", "http://0177.0.0.1/",
                      "http://0x7f.0.0.1/", "http://2130706433/", "http://0x7f000001/",
                      "http://127.0.1/", "http://017700000001/", "http://[::ffff:7f00:1]/"]
UNPARSABLE = ["http://1.2.3.4.5/", "http://256.1.1.1/", "http://1.2.3.256/x",
              "http://example.123/", "http://exa mple.com/", "http://host:port/",
              "http://host:99999/", "http://[fe80::1%25eth0]/", "http://[::1/",
              "http://0x100000000/", "http://4294967296/", "http://ex%ample.com/",
              "http://%ff.com/", "http:///", "http://", "ftp://example.com/", "example.com",
              "//example.com/", "http://a..b.123/", "http://x" + "a" * 70_000 + ".com/",
              "http://xn--zz.%00/", "http://exa<mple.com/", "http://exa^mple.com/",
              # an xn-- label that is no Punycode of a non-ASCII name (the WHATWG parser
              # refuses these hosts)
              "http://xn--a.com/", "http://xn--.com/", "http://api.XN--A.example/",
              "http://xn--abc.com/"]


def policy(*rules: tuple[str, str]) -> object:
    return compile_policy(PermissionsConfig(rules=[RuleConfig(effect=e, tool=t)
                                                   for e, t in rules]))


def decide(p: object, url: object) -> str:
    return p.decide("WebFetch", {"url": url}).behavior  # type: ignore[attr-defined]


@pytest.mark.parametrize("url", META_SPELLINGS)
def test_every_spelling_of_the_metadata_address_is_denied(url: str) -> None:
    assert url_host(url) == META
    p = policy(("deny", f"WebFetch(domain:{META})"), ("allow", "WebFetch"))
    assert decide(p, url) == "deny"


@pytest.mark.parametrize("rule_host", ["127.0.0.1", "127.1", "0x7f.1", "2130706433",
                                       "0177.0.0.1", "[::ffff:127.0.0.1]"])
@pytest.mark.parametrize("url", LOOPBACK_SPELLINGS)
def test_rule_and_request_are_both_canonical(rule_host: str, url: str) -> None:
    p = policy(("deny", f"WebFetch(domain:{rule_host})"), ("allow", "WebFetch"))
    assert decide(p, url) == "deny"
    allow = policy(("allow", f"WebFetch(domain:{rule_host})"))
    assert decide(allow, url) == "allow"
    assert decide(allow, "http://127.0.0.2/") == "ask"


@pytest.mark.parametrize("url", UNPARSABLE)
def test_a_url_that_cannot_be_parsed_matches_deny_and_ask_never_allow(url: str) -> None:
    assert url_host(url) is None
    assert decide(policy(("deny", "WebFetch(domain:example.com)"), ("allow", "WebFetch")),
                  url) == "deny"
    assert decide(policy(("ask", "WebFetch(domain:example.com)")), url) == "ask"
    assert decide(policy(("allow", "WebFetch(domain:example.com)")), url) == "ask"


@pytest.mark.parametrize("url,host", [
    ("https://EXAMPLE.com/", "example.com"), ("https://example.com./", "example.com"),
    ("https://ex%61mple.com/", "example.com"), ("https://ＥＸＡＭＰＬＥ。com/", "example.com"),
    ("https://exa\u200bmple.com/", "example.com"), ("https://bücher.de/", "xn--bcher-kva.de"),
    ("https://BÜCHER.de/", "xn--bcher-kva.de"), ("https://faß.de/", "xn--fa-hia.de"),
    ("https://a@b.example.com/", "b.example.com"), ("https://evil.net\\@example.com/", "evil.net"),
    ("https://example.com:443@evil.net/", "evil.net"), ("https://[::1]:8080/", "[::1]"),
    ("https://[0:0::1]/", "[::1]"), ("https://[2001:DB8::0:1]/", "[2001:db8::1]"),
    ("https://under_score.example.com/", "under_score.example.com"),
])
def test_canonical_hosts(url: str, host: str) -> None:
    assert url_host(url) == host


@pytest.mark.parametrize("rule,url,expected", [
    ("WebFetch(domain:example.com)", "https://EXAMPLE.COM./x", "allow"),
    ("WebFetch(domain:EXAMPLE.com.)", "https://example.com/x", "allow"),
    ("WebFetch(domain:example.com)", "https://api.example.com/", "ask"),
    ("WebFetch(domain:example.com)", "https://example.com.evil.net/", "ask"),
    ("WebFetch(domain:example.com)", "https://example.com@evil.net/", "ask"),
    ("WebFetch(domain:*.example.com)", "https://a.b.example.com/", "allow"),
    ("WebFetch(domain:*.example.com)", "https://example.com/", "allow"),
    ("WebFetch(domain:*.example.com)", "https://badexample.com/", "ask"),
    ("WebFetch(domain:bücher.de)", "https://xn--bcher-kva.de/", "allow"),
    ("WebFetch(domain:xn--bcher-kva.de)", "https://BÜCHER.de/", "allow"),
    ("WebFetch(domain:fass.de)", "https://faß.de/", "ask"),
    ("WebFetch(domain:[::1])", "http://[0::1]:80/", "allow"),
    ("WebFetch(domain:*.example.com)", "http://127.0.0.1/", "ask"),
])
def test_allow_rules(rule: str, url: str, expected: str) -> None:
    assert decide(policy(("allow", rule)), url) == expected


@pytest.mark.parametrize("bad", ["*.127.0.0.1", "*.[::1]", "exa*mple.com", "a b", "1.2.3.4.5",
                                 "*", "[::1", "", "http://x.com"])
def test_a_domain_rule_that_names_no_host_is_a_load_error(bad: str) -> None:
    with pytest.raises(Exception, match="not a host"):
        policy(("deny", f"WebFetch(domain:{bad})"))


@pytest.mark.parametrize("listed", ["x.com,y.com", "x.com, y.com", "*.x.com,y.com", "x.com,,y.com",
                                    "x.com;y.com", "x.com; *.y.com"])
def test_a_domain_rule_listing_hosts_is_a_load_error_naming_each_rule(listed: str) -> None:
    # a ',' is a host character to a URL parser: the rule would name one host nobody has
    with pytest.raises(Exception, match=r"one rule per host \(domain:\S*x\.com, "):
        policy(("deny", f"WebFetch(domain:{listed})"))


@pytest.mark.parametrize("value,effect,expected", [
    ("http://0xa9fea9fe/latest", "deny", "deny"), ("169.254.43518", "deny", "deny"),
    ("http://example.com/", "deny", "ask"), ("not a url at all", "deny", "deny"),
    (["http://169.254.169.254/"], "deny", "deny"), (None, "deny", "deny"), (7, "deny", "deny"),
    ("http://example.com/", "allow", "ask"), ("http://2852039166/", "allow", "allow"),
    ("not a url", "allow", "ask"), (["http://169.254.169.254/"], "allow", "ask"),
])
def test_host_condition(value: object, effect: str, expected: str) -> None:
    rule = RuleConfig(effect=effect, tool="mcp__web__get", when={"url": {"host": [META]}})
    p = compile_policy(PermissionsConfig(rules=[rule]))
    assert p.decide("mcp__web__get", {"url": value}).behavior == expected


def test_canonical_host_is_idempotent() -> None:
    for url in META_SPELLINGS + LOOPBACK_SPELLINGS:
        host = url_host(url)
        assert host is not None and canonical_host(host) == host


# --- properties -----------------------------------------------------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


def _spellings(address: int) -> list[str]:
    b = [(address >> s) & 0xFF for s in (24, 16, 8, 0)]
    return [".".join(map(str, b)), str(address), hex(address), "0" + oct(address)[2:],
            ".".join(hex(x) for x in b), ".".join("0" + oct(x)[2:] for x in b),
            f"{b[0]}.{address & 0xFFFFFF}", f"{b[0]}.{b[1]}.{address & 0xFFFF}",
            f"[::ffff:{'.'.join(map(str, b))}]", f"[::ffff:{address >> 16:x}:{address & 0xFFFF:x}]",
            ".".join(map(str, b)) + ".", hex(address).upper().replace("0X", "0x")]


@settings(max_examples=300, deadline=None)
@given(address=st.integers(min_value=0x01000000, max_value=0xFFFFFFFF),
       scheme=st.sampled_from(["http", "https", "HTTP"]),
       userinfo=st.sampled_from(["", "a@", "x:y@", "example.com@"]),
       port=st.sampled_from(["", ":80", ":8080"]))
def test_every_spelling_of_an_address_is_one_host(address: int, scheme: str, userinfo: str,
                                                  port: str) -> None:
    hosts = {url_host(f"{scheme}://{userinfo}{h}{port}/x") for h in _spellings(address)}
    assert len(hosts) == 1 and None not in hosts
    dotted = hosts.pop()
    assert dotted is not None
    p = policy(("deny", f"WebFetch(domain:{dotted})"), ("allow", "WebFetch"))
    for h in _spellings(address):
        assert decide(p, f"{scheme}://{userinfo}{h}{port}/") == "deny"


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=60))
def test_any_text_as_url_is_never_allowed_by_a_domain_rule_unless_its_host_is_that_domain(
        text: str) -> None:
    p = policy(("allow", "WebFetch(domain:example.com)"))
    if decide(p, text) == "allow":
        assert url_host(text) == "example.com"
    assert decide(policy(("deny", "WebFetch(domain:example.com)"), ("allow", "WebFetch")),
                  text) in ("deny" if url_host(text) in (None, "example.com") else "allow")


@pytest.mark.parametrize(("rule", "says"), [
    ("WebFetch(domain:example.com:443)", "write domain:example.com"),
    ("WebFetch(domain:*.example.com:8080)", "write domain:*.example.com"),
    ("WebFetch(domain:[::1]:80)", "write domain:[::1]"),
    ("WebFetch(domain:::1)", "write domain:[::1]"),
    ("WebFetch(domain:2001:db8::1)", "write domain:[2001:db8::1]"),
    ("WebFetch(domain:a:b)", "is not a host name or address"),
    ("WebFetch(domain:*.127.0.0.1:80)", "is not a host name or address"),
    # round 7: an empty label named no host, silently (a deny that denied nothing)
    ("WebFetch(domain:.example.com)", "write domain:example.com for the host, "
     "domain:*.example.com"),
    ("WebFetch(domain:..example.com)", "write domain:example.com"),
    ("WebFetch(domain:*..example.com)", "write domain:example.com"),
    ("WebFetch(domain:a..example.com)", "write domain:a.example.com"),
    ("WebFetch(domain: .EXAMPLE.com)", "write domain:example.com"),
])
def test_a_rule_host_with_a_port_or_bare_ipv6_says_what_to_write(rule: str, says: str) -> None:
    with pytest.raises(Exception, match=re.escape(says)):
        policy(("allow", rule))
