"""What ``validate`` says about a declared prompt's templates beyond parsing: a name a
template reads that is not one of the prompt's arguments."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from toolhost.config.model import HostConfig
    from toolhost.errors import Problem

__all__ = ["prompt_name_warnings"]


def prompt_name_warnings(config: HostConfig) -> list[Problem]:
    """A located warning for each template prompt that reads a name it does not declare
    under ``arguments`` (nor a sandbox global such as ``range``): every ``prompts/get`` of it
    fails with "'x' is undefined" unless the template guards the name (``is defined``, the
    ``default`` filter), and a client can never pass it (an undeclared argument is refused)."""
    templated = [prompt for server in config.servers.values()
                 for prompt in getattr(server, "prompts", {}).values() if prompt.messages]
    if not templated:  # (jinja2 is loaded only for a config that has templates)
        return []
    from jinja2 import TemplateSyntaxError

    from toolhost.backends.templating import GLOBALS, placeholders, template_budget

    found: list[Problem] = []
    with template_budget():  # (a template past it: the compile said so already)
        for prompt in templated:
            declared = {argument.name for argument in prompt.arguments}
            for index, message in enumerate(prompt.messages):
                try:
                    unknown = sorted(placeholders([message.template]) - declared - GLOBALS)
                except TemplateSyntaxError:  # an error of its own (compile says where)
                    continue
                if not unknown:
                    continue
                key = (".template" if len(prompt.messages) == 1 else
                       f".messages[{index}].content")
                names = ", ".join(repr(name) for name in unknown[:5])
                found.append(prompt.origin.problem(
                    f"prompt '{prompt.name}': the template reads {names}, not an argument of "
                    "the prompt: prompts/get fails unless the template guards it",
                    key=key, hint="declare it under arguments; an optional argument left "
                    "out renders as empty"))
    return found
