"""Commands that do what another command does, as their programs document: forms deny and ask
rules see.

``bash.synonyms`` holds the spellings a program reads as *one* command (``npm i`` is ``npm
install``). This module holds commands that are not spellings of another but do its work, and
more: ``npm ci`` installs (it is a clean install), ``docker image prune`` removes images,
``git send-pack`` pushes, ``terraform apply -destroy`` destroys, ``kubectl replace --force``
deletes (and creates again). So ``deny: Bash(npm install:*)`` met ``npm i x`` but not ``npm
ci``; ``Bash(docker rmi:*)`` not ``docker image prune -a``; ``Bash(git push:*)`` not ``git
send-pack``. The link goes one way: a command *implies* the ones whose effect it has (a deny
of ``npm ci`` does not meet ``npm install``), and the closure is followed (``docker system
prune`` prunes images, which removes them: ``Bash(docker rmi:*)`` meets it). Where a command
has the effect only with an option (``-destroy``, ``--force``, ``--volumes``), the option must
be among its words (``--force=false`` does not count). An allow rule still proves only the
command it names.

The tables come from each program's own reference: npm's ``npm ci``/``install-test``/
``update`` pages, pnpm's and yarn's and bun's ``add``, docker's ``prune`` and ``compose down``
pages, git's ``send-pack``/``http-push``/``subtree``, Terraform's ``destroy`` ("an alias for
``terraform apply -destroy``"), kubectl's ``replace --force``/``apply --prune``/``drain``,
helm's ``upgrade --install``, APT's ``purge``/``autoremove``/``reinstall``, systemd's
``reboot``/``poweroff``/``halt``.
"""

from __future__ import annotations

__all__ = ["effect_forms"]

# (command prefix, options one of which it needs (empty: none), the commands it implies)
_Implies = tuple[tuple[str, ...], tuple[str, ...], tuple[tuple[str, ...], ...]]


def _w(text: str) -> tuple[str, ...]:
    return tuple(text.split())


def _imp(command: str, *implied: str, needs: str = "") -> _Implies:
    return _w(command), _w(needs), tuple(_w(i) for i in implied)


def _both(programs: tuple[str, ...], table: list[tuple[str, tuple[str, ...], str]]
          ) -> list[_Implies]:
    """The same table for programs sharing one command set (docker and podman, ...)."""
    return [_imp(f"{p} {command}", *(f"{p} {i}" for i in implied), needs=needs)
            for p in programs for command, implied, needs in table]


_DOCKER: list[tuple[str, tuple[str, ...], str]] = [
    ("image prune", ("image rm",), ""),
    ("container prune", ("container rm",), ""),
    ("volume prune", ("volume rm",), ""),
    ("network prune", ("network rm",), ""),
    ("system prune", ("container prune", "image prune", "network prune", "builder prune"), ""),
    ("system prune", ("volume prune",), "--volumes"),
    ("run", ("create",), ""),
    ("container run", ("container create",), ""),
    ("compose down", ("compose rm", "network rm"), ""),
    ("compose down", ("volume rm",), "-v --volumes"),
    ("compose down", ("image rm",), "--rmi"),
    ("compose rm", ("container rm",), ""),
    ("compose up", ("compose create",), ""),
    ("compose run", ("compose create",), ""),
]
_TERRAFORM: list[tuple[str, tuple[str, ...], str]] = [
    ("apply", ("destroy",), "-destroy --destroy"),
    ("destroy", ("apply",), ""),
]
_KUBECTL: list[tuple[str, tuple[str, ...], str]] = [
    ("replace", ("delete",), "--force"),
    ("apply", ("delete",), "--prune --force"),
    ("drain", ("delete",), ""),
]
_APT: list[tuple[str, tuple[str, ...], str]] = [
    ("reinstall", ("install",), ""),
    ("purge", ("remove",), ""),
    ("autoremove", ("remove",), ""),
    ("autopurge", ("purge",), ""),
    ("full-upgrade", ("upgrade",), ""),
    ("dist-upgrade", ("upgrade",), ""),
]

IMPLIES: list[_Implies] = [
    # npm: ci is a clean install; install-test and install-ci-test install and test; update
    # installs newer versions; prune removes packages
    _imp("npm ci", "npm install"),
    _imp("npm install-test", "npm install", "npm test"),
    _imp("npm install-ci-test", "npm ci", "npm test"),
    _imp("npm update", "npm install"),
    _imp("npm prune", "npm uninstall"),
    _imp("pnpm add", "pnpm install"),
    _imp("pnpm update", "pnpm install"),
    _imp("pnpm install-test", "pnpm install", "pnpm test"),
    _imp("pnpm prune", "pnpm remove"),
    _imp("yarn add", "yarn install"),
    _imp("yarn upgrade", "yarn install"),
    _imp("yarn up", "yarn upgrade"),
    _imp("yarn global add", "yarn add"),
    _imp("yarn global remove", "yarn remove"),
    _imp("yarn global upgrade", "yarn upgrade"),
    _imp("bun add", "bun install"),
    _imp("bun update", "bun install"),
    _imp("brew reinstall", "brew install"),
    _imp("brew upgrade", "brew install"),
    # git: the plumbing and the porcelain that push
    _imp("git send-pack", "git push"),
    _imp("git http-push", "git push"),
    _imp("git subtree push", "git push"),
    _imp("git stash clear", "git stash drop"),
    _imp("git gc", "git prune", needs="--prune"),
    *_both(("docker", "podman"), _DOCKER),
    _imp("docker-compose down", "docker compose down"),
    _imp("docker-compose rm", "docker compose rm"),
    _imp("docker-compose up", "docker compose up"),
    _imp("docker-compose run", "docker compose run"),
    *_both(("terraform", "tofu"), _TERRAFORM),
    *_both(("kubectl", "oc"), _KUBECTL),
    _imp("helm upgrade", "helm install", needs="--install -i"),
    *_both(("apt", "apt-get", "aptitude"), _APT),
    # one package manager, three front ends: each implies the others' same command
    *(_imp(f"{a} {c}", *(f"{b} {c}" for b in ("apt", "apt-get", "aptitude") if b != a))
      for a in ("apt", "apt-get", "aptitude")
      for c in ("install", "remove", "purge", "update", "upgrade", "autoremove",
                "full-upgrade", "dist-upgrade", "reinstall")),
    # yum is dnf (RHEL 8 on, Fedora): the same commands
    *(_imp(f"{a} {c}", f"{b} {c}") for a, b in (("yum", "dnf"), ("dnf", "yum"))
      for c in ("install", "remove", "erase", "update", "upgrade", "reinstall", "downgrade",
                "autoremove", "distro-sync", "swap")),
    # files removed (not rmdir: it removes only an empty directory)
    _imp("unlink", "rm"),
    _imp("shred", "rm", needs="-u --remove"),
    _imp("find", "rm", needs="-delete"),
    # the machine stopped or restarted
    _imp("reboot", "shutdown"),
    _imp("poweroff", "shutdown"),
    _imp("halt", "shutdown"),
    _imp("systemctl reboot", "reboot"),
    _imp("systemctl poweroff", "poweroff"),
    _imp("systemctl halt", "halt"),
    _imp("systemctl kexec", "reboot"),
    _imp("systemctl soft-reboot", "reboot"),
]
_BY_FIRST: dict[str, list[_Implies]] = {}
for _entry in IMPLIES:
    _BY_FIRST.setdefault(_entry[0][0], []).append(_entry)
_DEPTH = 3  # (docker system prune -> image prune -> image rm, then its spellings)
_OFF = frozenset({"false", "0", "no"})


def _has(words: tuple[str, ...], needs: tuple[str, ...]) -> bool:
    """Whether one of the options ``needs`` is among ``words`` (``--opt`` or ``--opt=V``
    with V not false, a one-letter ``-u`` in a bundle such as ``-zu`` too). Past ``--`` as
    well: what it ends differs between programs (``find -- . -delete`` deletes)."""
    letters = "".join(n[1] for n in needs if len(n) == 2 and n[0] == "-" and n != "--")
    for word in words:
        name, eq, value = word.partition("=")
        if name in needs and not (eq and value.lower() in _OFF):
            return True
        if letters and word[:1] == "-" and word[1:2] not in ("-", "") and any(
                c in letters for c in word[1:]):
            return True
    return False


def effect_forms(forms: list[tuple[str, ...]]) -> list[tuple[str, ...]]:
    """The forms of the commands ``forms`` imply, with the words after the command kept,
    followed to ``_DEPTH`` (their other spellings are for ``bash.synonyms``)."""
    out: list[tuple[str, ...]] = []
    level = forms
    for _ in range(_DEPTH):
        found: list[tuple[str, ...]] = []
        for form in level:
            for command, needs, implied in _BY_FIRST.get(form[0] if form else "", ()):
                if form[:len(command)] != command:
                    continue
                rest = form[len(command):]
                if needs and not _has(rest, needs):
                    continue
                found += [(*i, *rest) for i in implied]
        if not found:
            break
        out += found
        level = found
    return out
