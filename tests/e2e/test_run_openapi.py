"""The real Claude CLI calls tools generated from an OpenAPI document under `toolhost run`:
the request reaches a real local service with its fixed argument, and a deny rule on an
argument stops the other call before any request is made."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from ..gateway.openapi_service import PetService, governed_config
from .conftest import TOOLHOST

pytestmark = pytest.mark.e2e

SCENARIO = """\
description: an OpenAPI operation, once allowed and once denied on its argument
turns:
  - text: Looking.
    tool_calls:
      - {tool: mcp__pets__list_pets, input: {limit: 3}}
      - {tool: mcp__pets__showPetById, input: {petId: admin-1}}
  - expect_results:
      - {contains: '"path":"/v1/pets"'}
      - {is_error: true, contains: "Not the admin pet."}
    text: done
"""


def test_cli_calls_a_governed_openapi_operation(cli: str, tmp_path: Path,
                                                scenario: Callable[[str], Path]) -> None:
    with PetService() as service:
        config = governed_config(tmp_path, service)
        env = {**os.environ, "TOOLHOST_CLI": cli, "PETS_TOKEN": "tok-e2e-0123456789",
               "TOOLHOST_CACHE": str(tmp_path / "cache")}
        done = subprocess.run([str(TOOLHOST), "run", str(config), "--script",
                               str(scenario(SCENARIO)), "-p", "go"], capture_output=True,
                              text=True, env=env, timeout=240, check=False)
        assert done.returncode == 0, done.stdout + done.stderr
        assert [(r["method"], r["path"], r["query"]) for r in service.requests] == [
            ("GET", "/v1/pets", [("limit", "3"), ("dry_run", "true")])]
        assert service.requests[0]["headers"]["authorization"] == "Bearer tok-e2e-0123456789"
