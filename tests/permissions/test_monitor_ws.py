"""The CLI's Monitor opens a WebSocket to ``ws.url`` (its second form): the WebFetch domain
rules judge that address as they judge a fetch. Before, ``deny: WebFetch(domain:evil.com)``
beside ``default: allow`` (or ``allow: Monitor``) let ``Monitor {"ws": {"url":
"wss://evil.com/"}}`` connect."""

from __future__ import annotations

from typing import Any

import pytest

from toolhost.config.model import PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy


def policy(rules: list[tuple[str, str]], default: str = "ask") -> Any:
    return compile_policy(PermissionsConfig(
        rules=tuple(RuleConfig(effect=e, tool=t) for e, t in rules),
        default=default))  # type: ignore[arg-type]


GUARDS = [
    ([("deny", "WebFetch(domain:evil.com)")], "allow"),
    ([("deny", "WebFetch(domain:*.evil.com)"), ("allow", "Monitor")], "ask"),
    ([("deny", "WebFetch(domain:evil.com)"), ("allow", "*")], "deny"),
    ([("deny", "WebFetch(domain:evil.com)"), ("allow", "Mon*")], "deny"),
]

URLS = ["wss://evil.com/feed", "ws://evil.com:8080/x", "WSS://EVIL.COM./", "wss://evil.com",
        " wss://evil.com", "w\tss://evil.com/", "wss://user@evil.com/",
        "wss://evil.com#@ok.com", "wss:evil.com", "wss:\\\\evil.com", "https://evil.com/",
        "wss://ｅｖｉｌ.com/"]


@pytest.mark.parametrize(("rules", "default"), GUARDS)
@pytest.mark.parametrize("url", URLS)
def test_a_webfetch_deny_meets_the_websocket_monitor_opens(
        rules: list[tuple[str, str]], default: str, url: str) -> None:
    decision = policy(rules, default).decide("Monitor", {"ws": {"url": url},
                                                         "description": "feed"})
    assert decision.behavior == "deny", (rules, url, decision)
    assert "Monitor opens a WebSocket" in decision.message
    assert "evil.com" in (decision.rule or "")


@pytest.mark.parametrize("ws", [{"url": 5}, {"url": None}, {}, "wss://evil.com", ["x"], 7,
                                {"url": "not a url"}, {"url": "wss://[bad"}])
def test_an_unreadable_websocket_meets_the_deny(ws: Any) -> None:
    decision = policy(GUARDS[0][0], "allow").decide("Monitor", {"ws": ws})
    assert decision.behavior == "deny", (ws, decision)


@pytest.mark.parametrize(("rules", "default"), GUARDS)
@pytest.mark.parametrize("url", ["wss://ok.com/feed", "ws://notevil.com/", "wss://evil.com.ok.com/"])
def test_another_host_is_left_to_monitor_s_own_rules(
        rules: list[tuple[str, str]], default: str, url: str) -> None:
    decision = policy(rules, default).decide("Monitor", {"ws": {"url": url}})
    assert decision.behavior == "allow", (url, decision)


def test_a_webfetch_ask_asks_unless_monitor_s_own_rules_deny() -> None:
    ask = [("ask", "WebFetch(domain:evil.com)")]
    decision = policy(ask, "allow").decide("Monitor", {"ws": {"url": "wss://evil.com/"}})
    assert decision.behavior == "ask" and "WebFetch rules ask" in decision.message
    assert policy([*ask, ("deny", "Monitor")], "allow").decide(
        "Monitor", {"ws": {"url": "wss://evil.com/"}}).behavior == "deny"


def test_a_call_with_a_command_and_a_websocket_is_judged_both_ways() -> None:
    p = policy([("deny", "WebFetch(domain:evil.com)"), ("deny", "Bash(rm:*)")], "allow")
    call = {"command": "tail -f log", "ws": {"url": "wss://evil.com/"}}
    assert p.decide("Monitor", call).behavior == "deny"
    call = {"command": "rm -rf ~", "ws": {"url": "wss://ok.com/"}}
    assert p.decide("Monitor", call).behavior == "deny"
    call = {"command": "tail -f log", "ws": {"url": "wss://ok.com/"}}
    assert p.decide("Monitor", call).behavior == "allow"


def test_a_whole_tool_webfetch_deny_denies_every_websocket() -> None:
    p = policy([("deny", "WebFetch")], "allow")
    assert p.decide("Monitor", {"ws": {"url": "wss://ok.com/"}}).behavior == "deny"
    assert p.decide("Monitor", {"command": "tail -f log"}).behavior == "allow"


ALLOW_LIST = [("allow", "WebFetch(domain:ok.com)"), ("allow", "WebFetch(domain:*.ok.org)"),
              ("allow", "Monitor")]


@pytest.mark.parametrize("default", ["deny", "ask"])
@pytest.mark.parametrize("url", ["wss://evil.com/", "ws://127.0.0.1:9222/devtools",
                                 "wss://ok.com.evil.com/", "wss://ok.com@evil.com/",
                                 "ws://evil.com/#ok.com", "ws://0x7f000001/", "wss://[::1]/",
                                 "not a url", "wss://evil.com:443/ok.com"])
def test_a_webfetch_allow_list_under_a_strict_default_bounds_the_websocket(
        default: str, url: str) -> None:
    # before: ``allow: Monitor`` let the WebSocket reach a host no fetch may reach
    decision = policy(ALLOW_LIST, default).decide("Monitor", {"ws": {"url": url}})
    assert decision.behavior == default, (url, decision)
    assert "Monitor opens a WebSocket" in decision.message


@pytest.mark.parametrize("default", ["deny", "ask"])
@pytest.mark.parametrize("url", ["wss://ok.com/", "ws://ok.com/", "ws://OK.COM.:8080/x",
                                 "wss://api.ok.org/feed"])
def test_a_host_the_allow_list_names_is_reached_by_the_allowed_monitor(
        default: str, url: str) -> None:
    decision = policy(ALLOW_LIST, default).decide("Monitor", {"ws": {"url": url}})
    assert decision.behavior == "allow", (url, decision)
    assert policy(ALLOW_LIST[:2], default).decide(
        "Monitor", {"ws": {"url": url}}).behavior == default  # a fetch allow is no Monitor's


def test_without_a_webfetch_allow_list_an_allowed_monitor_stays_whole() -> None:
    p = policy([("allow", "Monitor"), ("deny", "WebFetch(domain:evil.com)")], "deny")
    assert p.decide("Monitor", {"ws": {"url": "wss://other.com/"}}).behavior == "allow"
    assert p.decide("Monitor", {"ws": {"url": "wss://evil.com/"}}).behavior == "deny"
    p = policy([*ALLOW_LIST], "allow")  # the default allows every host: as before
    assert p.decide("Monitor", {"ws": {"url": "wss://other.com/"}}).behavior == "allow"
