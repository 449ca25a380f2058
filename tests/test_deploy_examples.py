"""examples/deploy: what can be checked without Docker or a cluster is checked here."""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

from tests.inproc import run_cli

DEPLOY = Path(__file__).resolve().parents[1] / "examples" / "deploy"


def _image_command() -> list[str]:
    text = (DEPLOY / "Dockerfile").read_text().replace("\\\n", " ")
    found = re.search(r"^CMD (\[.*\])$", text, re.M)
    assert found, "the Dockerfile has no exec-form CMD"
    command: list[str] = json.loads(found.group(1))
    return command


def test_the_image_command_is_one_toolhost_serve_accepts() -> None:
    from toolhost.cli import build_parser

    command = _image_command()
    assert command[:2] == ["toolhost", "serve"]
    args = build_parser().parse_args(command[1:])
    assert args.transport == "http" and args.host == "0.0.0.0"
    assert args.token_env == "MCP_TOKEN" and args.shutdown_grace == 20


def test_the_served_config_validates() -> None:
    done = run_cli(["validate", "--no-layers", str(DEPLOY / "team.yaml")])
    assert done.returncode == 0, done.stderr


def test_kubernetes_probes_secrets_and_grace() -> None:
    deployment, service = list(yaml.safe_load_all((DEPLOY / "kubernetes.yaml").read_text()))
    assert deployment["kind"] == "Deployment" and service["kind"] == "Service"
    pod = deployment["spec"]["template"]["spec"]
    container = pod["containers"][0]
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert {e["name"] for e in container["env"]} == {"MCP_TOKEN", "TOOLHOST_SESSION_SECRET"}
    assert pod["terminationGracePeriodSeconds"] > 20  # above --shutdown-grace
    assert pod["securityContext"]["runAsNonRoot"] is True


def test_compose_runs_two_replicas_with_the_shared_secret_behind_haproxy() -> None:
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    services = compose["services"]
    assert {"replica1", "replica2", "proxy"} <= set(services)
    for name in ("replica1", "replica2"):
        assert "TOOLHOST_SESSION_SECRET" in services[name]["environment"]
    haproxy = (DEPLOY / "haproxy.cfg").read_text()
    assert "server replica1 replica1:8765" in haproxy and "GET /readyz" in haproxy
