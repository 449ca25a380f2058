"""The environment that points the Claude CLI at the scripted model and nothing else.

protocol.md §7: with these variables the CLI opens exactly one connection, to the local
Messages API, and a fresh HOME keeps the user's own settings, hooks and MCP servers out.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType

__all__ = ["OFFLINE_DROP", "OFFLINE_ENV", "OfflineHome"]

OFFLINE_ENV: Mapping[str, str] = {
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_ERROR_REPORTING": "1",
    "DISABLE_AUTOUPDATER": "1",
    "ENABLE_TOOL_SEARCH": "false",  # every tool's schema goes to the model directly
}

# Variables that would send the CLI somewhere other than the scripted model.
OFFLINE_DROP: tuple[str, ...] = (
    "CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX", "CLAUDE_CODE_USE_FOUNDRY",
    "ANTHROPIC_AUTH_TOKEN", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy",
    "https_proxy", "all_proxy",
)


class OfflineHome:
    """A throw-away HOME for one scripted run; ``env(base_url)`` is what the CLI needs."""

    def __init__(self) -> None:
        self.path = Path(tempfile.mkdtemp(prefix="toolhost-home-"))
        (self.path / ".claude").mkdir()

    def env(self, base_url: str, environ: Mapping[str, str] | None = None) -> dict[str, str]:
        environ = os.environ if environ is None else environ
        return {
            **OFFLINE_ENV,
            "ANTHROPIC_BASE_URL": base_url,
            # The scripted model ignores the key; a user's real key is never needed nor sent
            # anywhere but to 127.0.0.1.
            "ANTHROPIC_API_KEY": environ.get("ANTHROPIC_API_KEY") or "test",
            "HOME": str(self.path),
            "CLAUDE_CONFIG_DIR": str(self.path / ".claude"),
        }

    def cleanup(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)

    def __enter__(self) -> OfflineHome:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.cleanup()
