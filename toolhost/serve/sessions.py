"""Session ids of the 2025 revisions that any replica can check: signed, expiring tokens.

``toolhost serve --transport http`` gives a client of the 2025-11-25 revision (or older) an
``Mcp-Session-Id`` on ``initialize``. Behind a round-robin load balancer the client's next
POST may reach another replica, which never saw that ``initialize``. So the id carries what
a replica needs (the negotiated protocol version and which client capabilities were
declared), with an expiry, signed with HMAC-SHA256 under a secret the replicas share
(``TOOLHOST_SESSION_SECRET``). A replica that does not know an id checks the signature and
the expiry and serves it; a forged, altered or expired id is a 404 (the client starts a new
session, as the spec says).

Without ``TOOLHOST_SESSION_SECRET`` a replica serving config files signs with a built-in
key, so replicas agree without any setting: replicas of one config, and replicas of two
versions of it during a rolling deploy (a key derived from the config's content made every
session started on an old replica unknown to the new ones and the other way round, so a
2025-era client behind a round-robin balancer failed on every other call until the rollout
ended). That is safe because the signature protects nothing secret: an id carries no
authority (authentication is the bearer token's job; with OAuth an id is also bound to its
caller), and each id holds 128 random bits, so nobody can guess another client's id whatever
they know of the key; the signature only stops a replica from believing claims it did not
issue, and what an id claims (a protocol version, which capabilities the client declared,
an expiry) no config changes. A secret of your own separates deployments.

With OAuth access tokens (``--auth-issuer``) an id is also bound to the caller that started
the session (a digest of the token's ``iss`` and ``sub``, signed with the rest): another
caller presenting it, even with a good token of its own, finds the id unknown (404) on
every replica. So an id that leaks (a proxy's log) lets nobody else answer the session's
questions (asks, ``ctx.elicit``), cancel its calls, hear its notifications or end it.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import os
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["SECRET_ENV", "EndedSessions", "SessionClaims", "SessionTokens", "owner_of",
           "same_owner"]

SECRET_ENV = "TOOLHOST_SESSION_SECRET"
DEFAULT_TTL = 24 * 3600.0
MAX_TOKEN = 1024  # characters: a longer header is not one of ours
MAX_ENDED = 100_000  # ended ids remembered per replica (each until it expires)
MAX_ENDED_PER_OWNER = 10_000  # of them, ended by one OAuth caller
MAX_EXPIRES = 2 ** 53  # s since the epoch: the largest expiry an id may carry (exact in a float)
SWEEP_EVERY = 60.0  # seconds between two sweeps of the expired ones
# Only whether these were declared matters to a replica (ctx.elicit, ctx.sample, asks).
KNOWN_CAPABILITIES = ("elicitation", "roots", "sampling")
# the key of replicas without TOOLHOST_SESSION_SECRET: not a secret (see the module docstring)
BUILT_IN_KEY = hashlib.sha256(b"toolhost session ids\0v1").digest()


@dataclass(frozen=True)
class SessionClaims:
    """What a session id says: the protocol version and the client's capabilities."""

    version: str
    capabilities: Mapping[str, Any]
    expires: float
    owner: str = ""  # owner_of(the caller that started it); "" without OAuth callers


def owner_of(caller: Any) -> str:
    """Who a session belongs to: a digest of an authenticated caller's issuer and subject
    (``toolhost.permissions.callers.identity.Caller``), or "" when requests carry no caller."""
    if caller is None:
        return ""
    digest = hashlib.sha256(b"toolhost session owner\0" + str(caller.issuer).encode(
        "utf-8", "replace") + b"\0" + str(caller.subject).encode("utf-8", "replace"))
    return _b64(digest.digest()[:16])


def same_owner(claimed: str, owner: str) -> bool:
    """Whether a session started by ``claimed`` may be used by ``owner`` (constant time)."""
    return hmac.compare_digest(claimed.encode(), owner.encode())


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class SessionTokens:
    """Issue and check signed session ids (see the module docstring)."""

    def __init__(self, secret: str | bytes | None = None, *, ttl: float = DEFAULT_TTL) -> None:
        if isinstance(secret, str):
            secret = secret.encode()
        self.shared = bool(secret)
        self._key = secret or secrets.token_bytes(32)
        self.ttl = ttl

    @classmethod
    def from_environ(cls, environ: Mapping[str, str] | None = None, *,
                     config_files: Sequence[str] = ()) -> SessionTokens:
        """Tokens under ``$TOOLHOST_SESSION_SECRET``; unset, the built-in key when serving
        ``config_files`` (every replica, whichever version of the config it serves), or a
        per-process key (nothing served from files: an embedding program)."""
        env = os.environ if environ is None else environ
        secret = env.get(SECRET_ENV)
        if secret:
            from toolhost.redaction import remember_own

            remember_own([secret])  # a secret to the scrubber from the moment it is read
            return cls(secret)
        if config_files:
            return cls(BUILT_IN_KEY)
        return cls(None)

    def issue(self, version: str, capabilities: Mapping[str, Any] | None = None, *,
              owner: str = "", now: float | None = None) -> str:
        """A new signed id; ``owner`` (``owner_of``) binds it to the caller starting it."""
        declared = sorted(k for k in KNOWN_CAPABILITIES
                          if isinstance((capabilities or {}).get(k), Mapping))
        expires = int((time.time() if now is None else now) + self.ttl)
        fields: dict[str, Any] = {"v": version[:40], "c": declared, "e": expires,
                                  "n": secrets.token_hex(16)}
        if owner:
            fields["u"] = owner
        body = json.dumps(fields, separators=(",", ":")).encode()
        payload = _b64(body)
        return f"{payload}.{self._sign(payload)}"

    def check(self, token: str, *, now: float | None = None) -> SessionClaims | None:
        """The claims of a genuine, unexpired id; None for anything else."""
        if len(token) > MAX_TOKEN or token.count(".") != 1:
            return None
        payload, signature = token.split(".")
        # bytes: compare_digest refuses non-ASCII text, and a header may carry anything
        if not hmac.compare_digest(signature.encode("utf-8", "replace"),
                                   self._sign(payload).encode()):
            return None
        try:
            body = json.loads(_unb64(payload))
        except (ValueError, binascii.Error):
            return None
        if not isinstance(body, dict):
            return None
        version, declared, expires = body.get("v"), body.get("c"), body.get("e")
        owner = body.get("u", "")
        # an expiry past what a float holds exactly (10**400: float() raised, a 500 and a
        # traceback) is no id we issued; with the built-in key anybody can sign one
        if not isinstance(version, str) or not isinstance(declared, list) \
                or not isinstance(expires, int) or isinstance(expires, bool) \
                or not 0 <= expires <= MAX_EXPIRES or not isinstance(owner, str):
            return None
        if expires < (time.time() if now is None else now):
            return None
        return SessionClaims(version, {k: {} for k in declared if k in KNOWN_CAPABILITIES},
                             float(expires), owner)

    def _sign(self, payload: str) -> str:
        data = payload.encode("utf-8", "replace")
        return _b64(hmac.new(self._key, data, hashlib.sha256).digest()[:24])


class EndedSessions:
    """Ids of sessions ended (``DELETE``) on this replica: their signatures stay valid until
    they expire, so without this list the replica would take them back.

    Bounded in time, count and bytes: an id is kept until it expires (at most the 24 hours a
    session lives), as a 16-byte digest; at most ``limit`` ids in all and ``per_owner`` ids of
    one OAuth caller. A caller past its own share pushes out only its own oldest ended ids,
    so one caller ending sessions in bulk cannot bring another's back; past ``limit`` (many
    callers, or callers without OAuth, who all share one share) the oldest go. Expired ids
    are swept at most once every ``SWEEP_EVERY`` seconds; every operation is O(1) besides."""

    def __init__(self, limit: int = MAX_ENDED, per_owner: int = MAX_ENDED_PER_OWNER,
                 clock: Callable[[], float] = time.time) -> None:
        self._limit = limit
        self._per_owner = per_owner
        self._clock = clock
        # digest -> (expires, owner), oldest first; and each owner's digests, oldest first
        self._entries: OrderedDict[bytes, tuple[float, str]] = OrderedDict()
        self._owners: dict[str, OrderedDict[bytes, None]] = {}
        self._swept = clock()

    @staticmethod
    def _key(session_id: str) -> bytes:
        return hashlib.sha256(session_id.encode("utf-8", "replace")).digest()[:16]

    def __contains__(self, session_id: object) -> bool:
        if not isinstance(session_id, str):
            return False
        entry = self._entries.get(self._key(session_id))
        return entry is not None and entry[0] >= self._clock()

    def __len__(self) -> int:
        return len(self._entries)

    def add(self, session_id: str, expires: float, *, owner: str = "") -> None:
        """Remember an ended id until ``expires``; ``owner`` (``owner_of``) started it."""
        now = self._clock()
        if now - self._swept >= SWEEP_EVERY:
            self._sweep(now)
        key = self._key(session_id)
        self._drop(key)
        mine = self._owners.setdefault(owner, OrderedDict())
        share = self._per_owner if owner else self._limit
        while len(mine) >= share:
            self._drop(next(iter(mine)))
        while len(self._entries) >= self._limit:
            self._drop(next(iter(self._entries)))
        self._entries[key] = (expires, owner)
        self._owners.setdefault(owner, mine)[key] = None

    def _drop(self, key: bytes) -> None:
        entry = self._entries.pop(key, None)
        if entry is None:
            return
        mine = self._owners.get(entry[1])
        if mine is not None:
            mine.pop(key, None)
            if not mine:
                del self._owners[entry[1]]

    def _sweep(self, now: float) -> None:
        self._swept = now
        for key in [k for k, (expires, _) in self._entries.items() if expires < now]:
            self._drop(key)
