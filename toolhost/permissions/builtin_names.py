"""Claude Code's built-in tool names, for the checks that tell a built-in from a typo (kept
apart from ``lint`` so that ``serve`` and ``run`` can name them without importing the
authoring checks at start). ``GetMcpPromptTool`` is toolhost's own: the name rules give a
``prompts/get`` (the CLI has no tool for it)."""

from __future__ import annotations

__all__ = ["BUILTIN_TOOLS", "LATER_BUILTINS"]

# The rest of the bundled CLI's (2.1.330) tool names: PowerShell runs commands (judged apart:
# permissions.unread_tools), RemoteTrigger and others reach the network or other sessions
LATER_BUILTINS: tuple[str, ...] = (
    "PowerShell", "Artifact", "ClaudeDesign", "DesignSync", "EndConversation", "LSP",
    "OfferChromeSetup", "Projects", "PushNotification", "ReadMcpResourceDirTool",
    "ReadNotifications", "RemoteTrigger", "SendFeedback", "SendUserFile", "SendUserMessage",
    "SetGoal", "ShareOnboardingGuide", "ShowOnboardingRolePicker", "SubagentHandback",
    "TaskCreate", "TaskGet", "TaskList", "TaskUpdate", "ToolSearch", "WaitForMcpServers",
    "propose_skills",
    # its code runners (permissions.unread_tools), and the older names it still reads in a
    # rule (permissions.names: a rule naming one names the tool)
    "REPL", "Eval", "JavaScript", "ListPeers", "Brief", "ListMcpResources", "ReadMcpResource",
    "ReadMcpResourceDir", "ProposeGoal",
)

# Claude Code's built-in tool names (a bare name outside this list is probably a typo).
BUILTIN_TOOLS = frozenset({
    "Agent", "AskUserQuestion", "Bash", "BashOutput", "Edit", "ExitPlanMode", "Glob", "Grep",
    "KillShell", "LS", "MultiEdit", "NotebookEdit", "NotebookRead", "Read", "SlashCommand",
    "Skill", "Task", "TodoWrite", "WebFetch", "WebSearch", "Write", "ListMcpResourcesTool",
    "ReadMcpResourceTool", "KillBash", "Monitor", "EnterPlanMode", "CronCreate", "CronDelete",
    "CronList", "ScheduleWakeup", "SendMessage", "TaskStop", "TaskOutput", "Workflow",
    "EnterWorktree", "ExitWorktree", "ListAgents", "ReportFindings", "GetMcpPromptTool",
    *LATER_BUILTINS,
})
