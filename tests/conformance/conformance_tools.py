"""The tools, prompts and resources the MCP conformance suite's server scenarios name,
written the way a toolhost user would (docs/backends.md, docs/config.md)."""

from __future__ import annotations

import json
from pathlib import Path

import anyio

from toolhost.backends.base import CallContext, ToolFailure
from toolhost.content import Content, Image, Resource

HERE = Path(__file__).parent
PNG = (HERE / "pixel.png").read_bytes()
WAV = (HERE / "silence.wav").read_bytes()


def simple_text() -> str:
    """A simple text response."""
    return "This is a simple text response for testing."


def custom_headers(region: str) -> str:
    """Which region a call was routed to."""
    return f"routed to {region}"


def image_content() -> bytes:
    """A 1x1 PNG (bytes are sniffed)."""
    return PNG


def audio_content() -> bytes:
    """A short WAV (bytes are sniffed)."""
    return WAV


def embedded_resource() -> Resource:
    """An embedded text resource."""
    return Resource("test://embedded-resource", text="This is an embedded resource content.")


def multiple_content_types() -> list[str | Content]:
    """Text, an image and an embedded resource, in that order."""
    return ["Multiple content types test:", Image(PNG),
            Resource("test://mixed-content-resource", text='{"test":"data","value":123}',
                     mime_type="application/json")]


async def tool_with_logging(*, ctx: CallContext) -> str:
    """Three log lines with pauses between them."""
    ctx.log.info("Tool execution started")
    await anyio.sleep(0.05)
    ctx.log.info("Tool processing data")
    await anyio.sleep(0.05)
    ctx.log.info("Tool execution completed")
    return "Tool with logging executed successfully"


def error_handling() -> str:
    """Always fails."""
    raise RuntimeError("This tool intentionally returns an error for testing")


async def tool_with_progress(*, ctx: CallContext) -> str:
    """Progress 0, 50 and 100 of 100."""
    for done in (0, 50, 100):
        await ctx.progress(done, 100, None)
        if done < 100:
            await anyio.sleep(0.05)
    return "Tool with progress executed successfully"


def template_data(id: str) -> str:
    """The templated resource's content for one id."""
    return f"Resource data for ID: {id}"


def prompt_with_embedded_resource(resourceUri: str) -> list[dict[str, object]]:
    """A prompt embedding a resource."""
    return [{"role": "user", "content": Resource(resourceUri,
                                                 text="Embedded resource content for "
                                                      "testing.").block()},
            {"role": "user", "content": "Please process the embedded resource above."}]


def prompt_with_image() -> list[dict[str, object]]:
    """A prompt with an image."""
    return [{"role": "user", "content": Image(PNG).block()},
            {"role": "user", "content": "Please analyze the image above."}]


async def sampling(prompt: str, *, ctx: CallContext) -> str:
    """Ask the client's model (sampling/createMessage).

    Args:
        prompt: The prompt to send to the LLM
    """
    reply = await ctx.sample(prompt, max_tokens=100)
    return f"LLM response: {reply.text}"


async def elicitation(message: str, *, ctx: CallContext) -> str:
    """Ask the person at the client for a username and an email (elicitation/create).

    Args:
        message: The message to show the user
    """
    answer = await ctx.elicit(message, {
        "type": "object",
        "properties": {
            "username": {"type": "string", "description": "User's response"},
            "email": {"type": "string", "description": "User's email address"},
        },
        "required": ["username", "email"],
    })
    return f"User response: action={answer.action}, content={json.dumps(answer.content)}"


async def elicitation_defaults(*, ctx: CallContext) -> str:
    """Elicit values of every primitive type, each with a default (SEP-1034)."""
    answer = await ctx.elicit("Please review and update the form fields with defaults", {
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "User name", "default": "John Doe"},
            "age": {"type": "integer", "description": "User age", "default": 30},
            "score": {"type": "number", "description": "User score", "default": 95.5},
            "status": {"type": "string", "description": "User status",
                       "enum": ["active", "inactive", "pending"], "default": "active"},
            "verified": {"type": "boolean", "description": "Verification status",
                         "default": True},
        },
    })
    return (f"Elicitation completed: action={answer.action}, "
            f"content={json.dumps(answer.content)}")


async def elicitation_enums(*, ctx: CallContext) -> str:
    """Elicit each of the five enum forms (SEP-1330)."""
    titled = [{"const": "value1", "title": "First Option"},
              {"const": "value2", "title": "Second Option"},
              {"const": "value3", "title": "Third Option"}]
    answer = await ctx.elicit("Please select options from the enum fields", {
        "type": "object",
        "properties": {
            "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
            "titledSingle": {"type": "string", "oneOf": titled},
            "legacyEnum": {"type": "string", "enum": ["opt1", "opt2", "opt3"],
                           "enumNames": ["Option One", "Option Two", "Option Three"]},
            "untitledMulti": {"type": "array",
                              "items": {"type": "string",
                                        "enum": ["option1", "option2", "option3"]}},
            "titledMulti": {"type": "array", "items": {"anyOf": titled}},
        },
    })
    return (f"Elicitation completed: action={answer.action}, "
            f"content={json.dumps(answer.content)}")


# The 2026-07-28 round trip (InputRequiredResult): the same ctx.elicit / ctx.sample, asked
# by a client that repeats the call with the answers (docs/serve.md).

NAME_FORM = {"type": "object", "properties": {"name": {"type": "string"}},
             "required": ["name"]}


async def asks_a_name(*, ctx: CallContext) -> str:
    """Ask the person at the client for their name."""
    answer = await ctx.elicit("What is your name?", NAME_FORM, key="user_name")
    return f"Hello, {(answer.content or {}).get('name', 'nobody')}"


async def asks_the_model(*, ctx: CallContext) -> str:
    """Ask the client's model a question."""
    reply = await ctx.sample("What is the capital of France?", max_tokens=50)
    return f"The model says: {reply.text}"


async def asks_what_it_can(*, ctx: CallContext) -> str:
    """Ask the person if the client can; else its model."""
    try:
        answer = await ctx.elicit("Confirm?", {"type": "object", "properties": {
            "ok": {"type": "boolean"}}})
        return f"confirmed: {answer.action}"
    except ToolFailure:  # the client did not declare elicitation
        reply = await ctx.sample("Say yes.", max_tokens=10)
        return f"the model says: {reply.text}"


async def prompt_with_context(*, ctx: CallContext) -> str:
    """A prompt built from what the person says."""
    answer = await ctx.elicit("What context should the prompt use?", {
        "type": "object", "properties": {"context": {"type": "string"}},
        "required": ["context"]})
    return f"Use this context: {(answer.content or {}).get('context', '')}"


# Tasks (SEP-2663): the tools the suite's tasks-* scenarios name. Each is a plain python
# tool; its config's ``task_support`` lets a 2026-07-28 client run it as a task.

def greet(name: str) -> str:
    """Greet someone (never a task)."""
    return f"Hello, {name}!"


async def slow_compute(seconds: float, label: str = "") -> str:
    """Wait ``seconds``, then answer."""
    await anyio.sleep(seconds)
    return f"computed {label} after {seconds:g} s"


async def failing_job() -> str:
    """Fail after a moment (a tool error, not a protocol error)."""
    await anyio.sleep(0.5)
    raise ToolFailure("the job failed")


CONFIRM_FORM = {"type": "object", "properties": {"confirm": {"type": "boolean"}},
                "required": ["confirm"]}


async def confirm_delete(filename: str, *, ctx: CallContext) -> str:
    """Ask the person before deleting ``filename`` (nothing is deleted)."""
    answer = await ctx.elicit(f"Delete {filename}?", CONFIRM_FORM)
    confirmed = answer.action == "accept" and (answer.content or {}).get("confirm")
    return f"{filename}: {'deleted' if confirmed else 'kept'}"


async def multi_input(*, ctx: CallContext) -> str:
    """Ask two questions at once."""
    form = {"type": "object", "properties": {"name": {"type": "string"},
                                             "confirm": {"type": "boolean"}}}
    answers: list[object] = []

    async def ask(text: str) -> None:
        answers.append((await ctx.elicit(text, form)).content)

    async with anyio.create_task_group() as group:
        group.start_soon(ask, "First?")
        group.start_soon(ask, "Second?")
    return f"answers: {json.dumps(answers, sort_keys=True)}"


async def lists_roots(*, ctx: CallContext) -> str:
    """Name the client's roots."""
    roots = await ctx.roots(key="client_roots")
    return "roots: " + ", ".join(root["uri"] for root in roots)


async def asks_three_at_once(*, ctx: CallContext) -> str:
    """Ask the person, the model and the client's roots, all at once."""
    said: dict[str, str] = {}

    async def name() -> None:
        answer = await ctx.elicit("What is your name?", NAME_FORM, key="user_name")
        said["name"] = str((answer.content or {}).get("name"))

    async def greeting() -> None:
        said["greeting"] = (await ctx.sample("Generate a greeting", max_tokens=50,
                                             key="greeting")).text

    async def roots() -> None:
        said["roots"] = ", ".join(r["uri"] for r in await ctx.roots(key="client_roots"))

    async with anyio.create_task_group() as group:
        for ask in (name, greeting, roots):
            group.start_soon(ask)
    return json.dumps(said, sort_keys=True)


async def asks_in_two_steps(*, ctx: CallContext) -> str:
    """Ask a name, then a colour: two rounds."""
    name = await ctx.elicit("Step 1: What is your name?", NAME_FORM, key="step1")
    color = await ctx.elicit("Step 2: What is your favorite color?", {
        "type": "object", "properties": {"color": {"type": "string"}},
        "required": ["color"]}, key="step2")
    return f"{(name.content or {}).get('name')} likes {(color.content or {}).get('color')}"


async def asks_to_confirm(*, ctx: CallContext) -> str:
    """Ask the person to confirm."""
    answer = await ctx.elicit("Please confirm", {
        "type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]},
        key="confirm")
    return f"confirmed: {(answer.content or {}).get('ok')}"


async def needs_the_roots(*, ctx: CallContext) -> str:
    """Work in the client's roots. A client that did not declare ``roots`` gets the
    protocol error -32021 (its task fails), not a tool error."""
    roots = await ctx.roots()
    return f"{len(roots)} roots"


async def asks_then_works(*, ctx: CallContext) -> str:
    """Ask the person's name in the request, then greet them as a task."""
    answer = await ctx.elicit("What is your name?", NAME_FORM, key="user_name")
    await ctx.become_task()
    await anyio.sleep(0.05)  # the long part
    return f"Hello, {(answer.content or {}).get('name', 'nobody')}"
