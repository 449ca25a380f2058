"""Known ways the Claude CLI fails, and what to do about each.

The CLI reports an API failure as an assistant message with ``error`` set (e.g.
``authentication_failed``) and text such as "Not logged in · Please run /login", followed by a
``result`` whose subtype is still ``success`` (``is_error`` true). ``explain`` turns the error
kind and that text into one line a person can act on; None for failures it does not know.
"""

from __future__ import annotations

from toolhost.excerpt import cut
from toolhost.runner.command import DEFAULT_MAX_TURNS

__all__ = ["GIVE_UP_UNREACHABLE", "TESTED_NEWEST", "TESTED_OLDEST", "cli_version", "explain",
           "gives_up", "max_turns_hint", "retry_hint", "version_note"]

_LOGIN = ("toolhost: the Claude CLI has no credentials. Set ANTHROPIC_API_KEY, or log the CLI "
          "in once with `claude /login`, or play the model from a file with --script "
          "SCENARIO (no key needed; see docs/running.md).")
_UNREACHABLE = ("toolhost: the Claude CLI could not reach the API. Check the network and "
                "ANTHROPIC_BASE_URL (if set), or use --script SCENARIO to run without one.")
_MODEL = ("toolhost: the model was not found. Check --model (or `run.model` in the config); "
          "the CLI accepts aliases such as sonnet and opus, or a full model id.")
_TOO_OLD = ("toolhost: this Claude CLI is too old for toolhost (see the supported range in "
            "docs/running.md). Update it (`npm install -g @anthropic-ai/claude-code`) or point "
            "--cli at a newer one.")


def explain(error_kind: str | None, text: str) -> str | None:
    """What to do about a failed turn, from the CLI's error kind and its result text."""
    lowered = text.lower()
    if (error_kind in ("authentication_failed", "billing_error")
            or "not logged in" in lowered or "/login" in lowered
            or "invalid api key" in lowered or "x-api-key" in lowered):
        return _LOGIN
    if ("model" in lowered and ("not found" in lowered or "not_found" in lowered
                                or "issue with the selected model" in lowered
                                or "may not exist" in lowered)):
        return _MODEL
    if ("connection error" in lowered or "econnrefused" in lowered
            or "unable to connect" in lowered or "fetch failed" in lowered
            or "enotfound" in lowered or ("timed out" in lowered and "api" in lowered)):
        return _UNREACHABLE
    if "unknown option" in lowered or "unknown argument" in lowered:
        return _TOO_OLD
    return None


def max_turns_hint(errors: object) -> str:
    """What to do when the CLI stopped a turn at its turn limit (``error_max_turns``): the
    model was still calling tools. ``errors`` is the result's list (the CLI names the limit)."""
    said = [cut(str(e), 200) for e in errors if isinstance(e, str)][:3] \
        if isinstance(errors, list) else []
    return ("toolhost: " + (f"{'; '.join(said)}: " if said else "")
            + "the model was still calling tools when the turn limit stopped it. Raise "
            f"--max-turns (or run.max_turns; toolhost's default is {DEFAULT_MAX_TURNS} a "
            "turn) if the task needs more; a model that calls a denied tool again and again "
            "is stopped only by such a limit.")


def retry_hint(attempt: object, max_retries: object, delay_ms: object,
               status: object) -> str:
    """The status line for the CLI's ``api_retry`` message: what the API said (nothing, a
    refused key, a rate limit, an overload, an error) and what to do."""
    delay = f", next in {delay_ms / 1000:.1f} s" if isinstance(delay_ms, (int, float)) else ""
    tried = f"attempt {cut(str(attempt), 12)} of {cut(str(max_retries), 12)}{delay}"
    if not status:
        return (f"the API did not answer (no answer; {tried}); check the network and "
                "ANTHROPIC_BASE_URL, or use --script")
    code = cut(str(status), 12)
    if status in (401, 403):
        return (f"the API refused the credentials (HTTP {code}; {tried}); check "
                "ANTHROPIC_API_KEY (or log the CLI in with `claude /login`), or use --script")
    what = {429: "is rate limiting requests", 529: "is overloaded"}.get(
        status if isinstance(status, int) else 0, "answered with an error")
    return (f"the API {what} (HTTP {code}; {tried}); the CLI tries again, or "
            "Ctrl-C to stop")


# The CLI retries a request that got no answer at all (connection refused, unknown host), and
# one whose key the API refused (HTTP 401), ten times over about three minutes. Three
# attempts (about four seconds) tell a wrong ANTHROPIC_BASE_URL, a missing network or a
# wrong key well enough; other HTTP errors (429, 529, 5xx) are left to the CLI's own
# retries, and so is everything when CLAUDE_CODE_MAX_RETRIES is set.
GIVE_UP_UNREACHABLE = 3
_REFUSED_KEY = ("toolhost: the API refused the Claude CLI's credentials (HTTP 401). Check "
                "ANTHROPIC_API_KEY (a key of this API: ANTHROPIC_BASE_URL, if set), or log the "
                "CLI in once with `claude /login`, or play the model from a file with --script "
                "SCENARIO (no key needed; see docs/running.md).")


def gives_up(message: object, environ: dict[str, str] | None = None) -> str | None:
    """The line to show when toolhost should interrupt the turn of this CLI message (an
    ``api_retry`` with no HTTP status, or HTTP 401, for the third time); None otherwise."""
    import os

    if not isinstance(message, dict) or message.get("type") != "system" \
            or message.get("subtype") != "api_retry" \
            or message.get("error_status") not in (None, 0, 401):
        return None
    attempt = message.get("attempt")
    if not isinstance(attempt, int) or isinstance(attempt, bool) \
            or attempt < GIVE_UP_UNREACHABLE:
        return None
    if "CLAUDE_CODE_MAX_RETRIES" in (os.environ if environ is None else environ):
        return None  # the person chose how long to retry
    if message.get("error_status") == 401:
        return (f"{_REFUSED_KEY} (The API refused it {attempt} times: toolhost stopped the "
                "turn instead of waiting for the CLI's other retries; set "
                "CLAUDE_CODE_MAX_RETRIES to let it retry longer.)")
    return (f"{_UNREACHABLE} (The API gave no answer {attempt} times: toolhost stopped the "
            "turn instead of waiting for the CLI's other retries; set "
            "CLAUDE_CODE_MAX_RETRIES to let it retry longer.)")


# The CLI versions the end-to-end suite passes with (`make e2e-cli-oldest`, the pinned one;
# docs/running.md, "Which CLI versions").
TESTED_OLDEST = "2.1.200"
TESTED_NEWEST = "2.1.330"


def cli_version(text: object) -> tuple[int, ...] | None:
    """``(2, 1, 330)`` from ``2.1.330`` or ``2.1.330 (Claude Code)``; None if not a version."""
    if not isinstance(text, str):
        return None
    parts = text.strip().split(" ")[0].split(".")
    if len(parts) != 3 or not all(p.isdigit() and len(p) <= 6 for p in parts):
        return None
    return tuple(int(p) for p in parts)


def version_note(message: object) -> str | None:
    """A warning for the CLI's ``system/init`` message when its version is older than the
    oldest toolhost is tested with; None otherwise."""
    if not isinstance(message, dict) or message.get("type") != "system" \
            or message.get("subtype") != "init":
        return None
    found = message.get("claude_code_version")
    version = cli_version(found)
    oldest = cli_version(TESTED_OLDEST)
    if version is None or oldest is None or version >= oldest:
        return None
    return (f"toolhost: warning: this Claude CLI is {found}, older than the oldest toolhost "
            f"is tested with ({TESTED_OLDEST}; tested up to {TESTED_NEWEST}). If the session "
            "misbehaves, update it (`npm install -g @anthropic-ai/claude-code`, or `pip install "
            "-U claude-agent-sdk` for the bundled one) or point --cli at a newer one.")


def mode_note(message: object) -> str | None:
    """For the CLI's ``system/init`` message: a note when its permission mode is ``dontAsk``,
    in which the CLI denies every call its own settings do not allow instead of asking
    toolhost, so the config's allow rules and asks never apply (fail closed, but every call
    of a toolhost tool is denied, which is hard to tell from the transcript)."""
    if not isinstance(message, dict) or message.get("type") != "system" \
            or message.get("subtype") != "init" or message.get("permissionMode") != "dontAsk":
        return None
    return ("toolhost: note: the Claude CLI runs in permission mode dontAsk: it denies every "
            "tool call its own settings do not allow without asking toolhost, so the config's "
            "allow rules and asks do not apply and calls of toolhost's tools are denied. Drop "
            "`--permission-mode dontAsk` to let the rules decide")


def permission_mode_problem(message: object) -> str | None:
    """For the CLI's ``system/init`` message, and a ``system/status`` message saying its mode
    changed: why the session must not go on when the CLI runs in a permission mode that does
    not ask toolhost before a tool runs (a settings file's ``defaultMode``, an environment
    variable, a switch during the session); None when its mode asks (or a status says none)."""
    from toolhost.config.cli_args import ASKING_MODES

    if not isinstance(message, dict) or message.get("type") != "system" \
            or "permissionMode" not in message:
        return None
    mode = message["permissionMode"]
    asks = isinstance(mode, str) and mode in ASKING_MODES  # (a list is no mode: unhashable)
    if message.get("subtype") == "status":
        if mode is None or asks:
            return None
        return (f"the Claude CLI switched to permission mode {cut(repr(mode), 60)} during "
                "the session, in which it runs tools without asking toolhost, so the "
                "config's rules would not hold; stopped at once")
    if message.get("subtype") != "init" or asks:
        return None
    return (f"the Claude CLI started in permission mode {cut(repr(mode), 60)}, in which it "
            "runs tools without asking toolhost, so the config's rules would not hold; "
            "stopped before any tool ran. Look for `defaultMode` in the CLI's settings "
            "(~/.claude/settings.json, .claude/settings*.json of the working directory) "
            "and for a permission mode in its environment")
