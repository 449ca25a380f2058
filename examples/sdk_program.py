"""A claude_agent_sdk program whose tools and permission rules come from a toolhost config.

    pip install 'toolhost[sdk]'
    python examples/sdk_program.py examples/configs/serve-demo.yaml "What is 2 + 3?"

toolhost.load() compiles the config once; its servers go to ClaudeAgentOptions(mcp_servers=...)
and its rules to can_use_tool, so the model sees the same tools, with the same schemas and the
same allow/deny decisions, as under `toolhost run` or `toolhost serve`.
"""

from __future__ import annotations

import sys

import anyio
from claude_agent_sdk import (
    AssistantMessage,
    ClaudeAgentOptions,
    ClaudeSDKClient,
    ResultMessage,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
)

import toolhost.sdk


async def main(config: str, prompt: str) -> int:
    async with toolhost.sdk.load(config) as host:
        # toolhost's compiled servers (in-process), its permission rules (can_use_tool),
        # the tools denied whatever the input, and permission mode default; options()
        # refuses what would let the CLI run tools without the rules (bypassPermissions...)
        options: ClaudeAgentOptions = host.options(max_turns=8)
        # can_use_tool needs streaming mode: ClaudeSDKClient (or query() with an async
        # iterable prompt).
        async with ClaudeSDKClient(options=options) as client:
            await client.query(prompt)
            async for message in client.receive_response():
                if isinstance(message, AssistantMessage):
                    for block in message.content:
                        if isinstance(block, TextBlock):
                            print(f"assistant: {block.text}")
                        elif isinstance(block, ToolUseBlock):
                            print(f"tool call: {block.name} {block.input}")
                elif isinstance(message, UserMessage) and isinstance(message.content, list):
                    for block in message.content:
                        if isinstance(block, ToolResultBlock):
                            flag = " (error)" if block.is_error else ""
                            print(f"tool result{flag}: {block.content}")
                elif isinstance(message, ResultMessage):
                    print(f"result: {message.subtype}")
                    return 1 if message.is_error else 0
    return 1


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: sdk_program.py CONFIG PROMPT")
    sys.exit(anyio.run(main, sys.argv[1], sys.argv[2]))
