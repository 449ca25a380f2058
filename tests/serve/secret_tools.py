"""Tools that try to show the secret in ``SVC_TOKEN`` (tests/serve/test_secrets_on_the_wire)."""

from __future__ import annotations

import os
import sys

from toolhost.backends.base import CallContext


def long_dict(pad: int) -> dict[str, str]:
    """A structured result cut inside the secret (by the backend, before redaction)."""
    return {"a": "x" * pad + os.environ["SVC_TOKEN"] + "y" * 100}


def long_text(pad: int) -> str:
    """A text result cut inside the secret."""
    return "x" * pad + os.environ["SVC_TOKEN"] + "y" * 100


def pin() -> dict[str, int]:
    """A secret that is a number (its outputSchema says integer)."""
    return {"pin": int(os.environ["ACCOUNT_PIN"])}


def pin_any():  # type: ignore[no-untyped-def]
    """A secret that is a number (no outputSchema)."""
    return {"pin": int(os.environ["ACCOUNT_PIN"])}


async def progress(*, ctx: CallContext) -> str:
    """Progress, sampling and elicitation text with the secret in it."""
    await ctx.progress(1, 2, f"using {os.environ['SVC_TOKEN']}")
    return "ok"


def noisy(x: str) -> str:
    """Prints the secret, then fails with it (run in a worker process)."""
    print("stdout print " + os.environ["SVC_TOKEN"])
    sys.stderr.write("stderr " + os.environ["SVC_TOKEN"] + "\n")
    raise ValueError("bad " + os.environ["SVC_TOKEN"])
