"""The transport-free MCP core: ``McpServer.handle(message) -> response | None``."""

from toolhost.mcp.server import Guard, McpServer, Notify

__all__ = ["Guard", "McpServer", "Notify"]
