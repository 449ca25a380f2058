"""A local OAuth/OIDC issuer for the token tests: a real HTTP server on loopback that
publishes metadata (discovery documents) and a key set, and signs tokens with the keys it
publishes. One class for every test that needs an issuer; each test shapes it through plain
attributes (which keys are published, what metadata sits where, a broken answer)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import ec, rsa

KEY_SET_PATHS = ("/jwks", "/keys")


def new_rsa_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def public_jwk(key: Any, kid: str | None) -> dict[str, Any]:
    """The public JWK of a private key (RSA, EC or Ed25519), naming ``kid`` when given."""
    public = key.public_key()
    if isinstance(key, rsa.RSAPrivateKey):
        data = jwt.algorithms.RSAAlgorithm.to_jwk(public, as_dict=True)
    elif isinstance(key, ec.EllipticCurvePrivateKey):
        data = jwt.algorithms.ECAlgorithm.to_jwk(public, as_dict=True)
    else:
        data = jwt.algorithms.OKPAlgorithm.to_jwk(public, as_dict=True)
    return {**data, **({"kid": kid} if kid is not None else {})}


class LocalIssuer:
    """Serves the key set at /jwks and /keys and each ``metadata`` document at its path
    (by default the OIDC discovery document at the root, pointing at /jwks); 404 elsewhere.

    ``keys`` maps key ids to private keys; ``published`` names those in the set (``None``: a
    key published without a ``kid``). ``body``/``status``/``delay`` break the key set's
    answer; ``hits`` counts key-set fetches and ``asked`` records every path asked for."""

    def __init__(self, key: Any = None) -> None:
        self.keys: dict[str | None, Any] = {"k1": key if key is not None else new_rsa_key()}
        self.published: list[str | None] = ["k1"]
        self.body: bytes | None = None
        self.status = 200
        self.delay = 0.0
        self.drip = 0.0
        self.hits = 0
        self.asked: list[str] = []
        issuer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                issuer.asked.append(self.path)
                status, body = issuer._answer(self.path)
                self.send_response(status)
                if 300 <= status < 400:
                    self.send_header("location", "http://127.0.0.1:1/elsewhere")
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                if not issuer.drip:
                    self.wfile.write(body)
                    return
                for byte in body:  # until the client gives up (a reset ends it)
                    try:
                        self.wfile.write(bytes([byte]))
                        self.wfile.flush()
                    except OSError:
                        return
                    time.sleep(issuer.drip)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.metadata: dict[str, dict[str, Any]] = {
            "/.well-known/openid-configuration": {"issuer": self.url,
                                                  "jwks_uri": self.url + "/jwks"}}
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()

    def _answer(self, path: str) -> tuple[int, bytes]:
        if path in KEY_SET_PATHS:
            self.hits += 1
            time.sleep(self.delay)
            if self.body is not None:
                return self.status, self.body
            return self.status, json.dumps({"keys": [
                public_jwk(self.keys[kid], kid) for kid in self.published]}).encode()
        found = self.metadata.get(path)
        return (200, json.dumps(found).encode()) if found is not None else (404, b"{}")

    def publish(self, *pairs: tuple[str | None, Any]) -> None:
        """Publish exactly these (kid, private key) pairs, in this order."""
        self.keys.update(pairs)
        self.published = [kid for kid, _ in pairs]

    def sign(self, claims: dict[str, Any], kid: str | None = "k1", alg: str = "RS256",
             key: Any = None) -> str:
        """``claims`` signed by the key ``kid`` (or ``key``), the header naming ``kid``."""
        return jwt.encode(claims, key if key is not None else self.keys[kid], algorithm=alg,
                          headers={"kid": kid} if kid is not None else None)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@contextmanager
def local_issuer(key: Any = None) -> Iterator[LocalIssuer]:
    made = LocalIssuer(key)
    try:
        yield made
    finally:
        made.close()
