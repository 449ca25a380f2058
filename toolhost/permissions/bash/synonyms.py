"""A command's other spellings, as the program itself reads them: forms deny and ask rules see.

``deny: Bash(npm install:*)`` named npm's install as a person writes it, and ``npm i x`` (or
``npm isntall x``: npm reads a dozen spellings) installed under it; ``Bash(docker rm:*)``
missed ``docker container rm``, ``Bash(pip install:*)`` missed ``pip3 install`` and
``python3 -m pip install``. Each group below holds command prefixes a program (or programs)
read as one command, from their own alias tables (npm's ``cmd-list``, cargo's built-in
aliases, docker's management commands, ...). A form starting with one member gets a form
starting with every other member: a deny or ask rule naming any spelling meets them all (an
allow rule still proves only the spelling it names).
"""

from __future__ import annotations

import re

from toolhost.permissions.bash.effects import effect_forms

__all__ = ["synonym_forms"]


def _same(program: str, *groups: str) -> list[tuple[tuple[str, ...], ...]]:
    """Groups of one program's subcommand spellings (each a space-separated list; a member
    with spaces is several words: ``container rm``)."""
    return [tuple((program, *member.split("+")) for member in group.split())
            for group in groups]


_DOCKER = (
    "rm container+rm container+remove", "rmi image+rm image+remove",
    "run container+run", "exec container+exec", "kill container+kill", "stop container+stop",
    "start container+start", "restart container+restart", "cp container+cp",
    "create container+create", "commit container+commit", "push image+push",
    "pull image+pull", "build image+build builder+build buildx+build", "load image+load",
    "volume+rm volume+remove", "network+rm network+remove",
)
_GROUPS: list[tuple[tuple[str, ...], ...]] = [
    *_same("npm", "install add i in ins inst insta instal isnt isnta isntal isntall",
           "uninstall unlink remove rm r un", "update up upgrade udpate",
           "run-script run rum urn", "test tst t run+test", "install-test it",
           "install-ci-test cit clean-install-test sit",
           "ci clean-install ic install-clean isntall-clean", "link ln", "config c",
           "view info show v", "rebuild rb", "dedupe ddp", "init create",
           "start run+start", "stop run+stop", "restart run+restart"),
    (("npm", "exec"), ("npm", "x"), ("npx",)),
    *_same("pnpm", "install i", "remove rm uninstall un", "update up upgrade",
           "run run-script", "install-test it"),
    *_same("bun", "add a", "remove rm", "install i"),
    (("bun", "x"), ("bunx",)),
    *_same("brew", "uninstall remove rm", "update up", "list ls", "link ln"),
    *_same("docker", *_DOCKER), *_same("podman", *_DOCKER),
    *_same("cargo", "build b", "check c", "doc d", "new n", "run r", "test t", "remove rm"),
    *_same("git", "add stage"),
    *_same("helm", "uninstall delete del un", "list ls"),
    *_same("composer", "install i", "update u upgrade", "remove rm uninstall",
           "dump-autoload dumpautoload"),
    *_same("dnf", "install in", "remove rm erase", "upgrade up update", "reinstall rei"),
    *_same("yum", "remove erase", "update upgrade"),
    *_same("conda", "remove uninstall"),
    # (not ``uv pip``: another program, which a ``Bash(uv:*)`` deny must not read into pip)
    (("pip",), ("pip3",), ("python", "-m", "pip"), ("python3", "-m", "pip")),
]
# first word -> (member, its group), every member of every group
_BY_FIRST: dict[str, list[tuple[tuple[str, ...], tuple[tuple[str, ...], ...]]]] = {}
for _group in _GROUPS:
    for _member in _group:
        _BY_FIRST.setdefault(_member[0], []).append((_member, _group))
# a versioned name is the program (``pip3.12``, ``python3.11``)
_VERSIONED = re.compile(r"(pip|python)3(?:\.\d+)*")


def synonym_forms(forms: list[tuple[str, ...]]) -> list[tuple[str, ...]]:
    """The forms of ``forms`` spelt with every other spelling of their command (their
    program named by its bare name already: ``forms`` hold that form too), twice over
    (``npm t`` is ``npm run test``, which is ``npm run-script test``), and the commands
    they imply (``bash.effects``: ``npm ci`` installs) in each of their spellings."""
    once = _respelt(forms)
    spelt = once + _respelt(once)
    implied = effect_forms(forms + spelt)
    if not implied:
        return spelt
    again = _respelt(implied)
    return spelt + implied + again + _respelt(again)


def _respelt(forms: list[tuple[str, ...]]) -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = []
    for form in forms:
        first = form[0] if form else ""
        entries = _BY_FIRST.get(first)
        if entries is None and (m := _VERSIONED.fullmatch(first)) is not None:
            form, entries = (m.group(1) + "3", *form[1:]), _BY_FIRST.get(m.group(1) + "3")
        for member, group in entries or ():
            if form[:len(member)] == member:
                rest = form[len(member):]
                out += [(*other, *rest) for other in group if other != member]
    return out
