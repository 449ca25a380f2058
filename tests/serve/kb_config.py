"""The head of the small `kb` server the resource tests serve: one echo tool, so the server
is a tools server too; each test appends its own `resources:` and `permissions:`."""

KB_HEAD = """\
toolhost: 1
servers:
  kb:
    tools:
      echo:
        command: [echo, "{{ text }}"]
        params: {text: {type: string}}
"""
