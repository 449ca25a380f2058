"""Two real ``toolhost serve`` replicas of one config: a task started on one, polled on the
other (a round-robin balancer), is answered -32602 naming the replica that keeps it and
saying it may still run there; before, "unknown task": a client took it for lost and could
call the tool again while it still ran. Polled where it lives, it is found."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.serve.conftest import HERE, http_servers, server_env
from tests.serve.test_shutdown_tasks import CONFIG, _get, _post, _start_task


def test_a_task_polled_on_another_replica_is_said_to_live_on_its_own(tmp_path: Path) -> None:
    config = tmp_path / "s.yaml"
    config.write_text(CONFIG)
    env = server_env()
    env["PYTHONPATH"] = f"{HERE}:{env['PYTHONPATH']}"
    argv = [sys.executable, "-m", "toolhost", "serve", str(config), "--transport", "http",
            "--port", "0"]
    with http_servers([(argv, tmp_path / f"r{i}.log", env) for i in (0, 1)]) as (one, two):
        task_id = _start_task(one, 30)
        tag = task_id.split(".")[0]
        status, answer = _get(two, task_id)
        assert status == 400 and answer["error"]["code"] == -32602, answer
        said = answer["error"]["message"]
        assert f"replica '{tag}' started it" in said and "still be running" in said, said
        status, answer = _get(one, task_id)
        assert status == 200 and answer["result"]["status"] == "working", answer
        # cancelled: the replica's shutdown need not wait for it
        assert _post(one, "tasks/cancel", {"taskId": task_id}, task_id)[0] == 200
