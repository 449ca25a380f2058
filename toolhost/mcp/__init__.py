"""The transport-free MCP core: ``McpServer.handle(message) -> response | None``."""

from toolhost.mcp.server import Cancel, Guard, McpServer, Notify

__all__ = ["Cancel", "Guard", "McpServer", "Notify"]
