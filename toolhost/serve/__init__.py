"""``toolhost serve``: the compiled servers as a standard MCP server (stdio, Streamable HTTP)."""
