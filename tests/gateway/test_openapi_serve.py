"""An OpenAPI service imported and served: the official MCP client sees the generated tools,
its calls reach the real service, and a rule on an argument is enforced before any request."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters

from .openapi_service import PetService, governed_config

pytestmark = pytest.mark.anyio


async def test_the_official_client_calls_a_governed_openapi_service(tmp_path: Path) -> None:
    with PetService() as service:
        config = governed_config(tmp_path, service)
        env = {**os.environ, "PETS_TOKEN": "tok-s3cret-value-1234",
               "TOOLHOST_CACHE": str(tmp_path / "cache")}
        params = StdioServerParameters(command=sys.executable,
                                       args=["-m", "toolhost", "serve", str(config)], env=env)
        async with Client(params, mode="legacy") as client:
            listed = await client.list_tools(cache_mode="bypass")
            names = sorted(t.name for t in listed.tools)
            assert names == ["createPet", "list_pets", "showPetById"]  # deletePet: tag admin
            result = await client.call_tool("list_pets", {"limit": 2})
            assert not result.is_error, result
            sent = service.requests[-1]
            assert sent["query"] == [("limit", "2"), ("dry_run", "true")]
            assert sent["headers"]["authorization"] == "Bearer tok-s3cret-value-1234"

            before = len(service.requests)
            denied = await client.call_tool("showPetById", {"petId": "ADMIN-1"})
            assert denied.is_error and denied.content[0].text == "Not the admin pet."
            assert len(service.requests) == before  # refused before any request
            shown = await client.call_tool("showPetById", {"petId": "7"})
            assert not shown.is_error and service.requests[-1]["path"] == "/v1/pets/7"
