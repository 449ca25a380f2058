"""Config model -> compiled tools: backends bound, schemas generated and checked, validators built.

``compile_tools(config)`` is the entry point; ``CompiledTool`` is what the MCP core lists and
calls.
"""

from toolhost.compile.build import CompiledTools, compile_tool, compile_tools
from toolhost.compile.tool import DEFAULT_MAX_OUTPUT_CHARS, CompiledTool

__all__ = ["DEFAULT_MAX_OUTPUT_CHARS", "CompiledTool", "CompiledTools", "compile_tool",
           "compile_tools"]
