"""The studies through inspect against a scripted OpenAI-compatible server: each way of holding answers, and each fault.

The server answers as told (a right answer, a malformed one, a refusal to
follow the format, JSON for a schema) and keeps every request, so the tests
see what inspect sent (the grammar in the body, the JSON schema) and what the
recording kept (how each answer was held). A server that is down fails the
sample with one line, the log's import names it, and ``eval_retry`` finishes
the run with nothing lost.
"""

from __future__ import annotations

import http.server
import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("inspect_ai")

from inspect_ai import eval as _inspect_eval  # noqa: E402
from inspect_ai import eval_retry as _eval_retry  # noqa: E402

from cvbook.inspect_registry import agent_study  # noqa: E402
from cvlib.evals.logs import import_logs  # noqa: E402
from cvlib.evals.tasks import LINES_KEY  # noqa: E402
from cvlib.models.recording import read_recording  # noqa: E402

#: inspect's own retry helper calls tenacity with a parameter tenacity deprecated; not ours to fix.
pytestmark = pytest.mark.filterwarnings("ignore:The 'initial' parameter is deprecated:DeprecationWarning")

PROBE_WORDS = "Answer with their names separated by spaces, or NONE."


def _in_a_thread(run: Any, *args: Any, **kwargs: Any) -> Any:
    """Run inspect in a thread of its own: inspect runs its own event loop, which cannot start in a thread that
    already runs one (the browser tests' Playwright keeps one running in the main thread for the whole session)."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(run, *args, **kwargs).result()


def inspect_eval(*args: Any, **kwargs: Any) -> Any:
    """inspect's ``eval``, in a thread of its own."""
    return _in_a_thread(_inspect_eval, *args, **kwargs)


def eval_retry(*args: Any, **kwargs: Any) -> Any:
    """inspect's ``eval_retry``, in a thread of its own."""
    return _in_a_thread(_eval_retry, *args, **kwargs)


class _Scripted(http.server.BaseHTTPRequestHandler):
    """An OpenAI-compatible chat endpoint whose answers follow ``mode``; every request body is kept."""

    mode = "right"
    requests: list[dict[str, Any]] = []

    def log_message(self, *args: object) -> None:
        pass

    def _send(self, payload: dict[str, Any]) -> None:
        body = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        self._send({"object": "list", "data": [{"id": "scripted", "object": "model"}]})

    def do_POST(self) -> None:
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append(request)
        last = str(request["messages"][-1]["content"])
        asked = [str(m["content"]) for m in request["messages"] if m["role"] == "user" and "required form" not in str(m["content"])]
        right = "NONE" if PROBE_WORDS in asked[-1] else "EXECUTE"
        content = {
            "right": right,
            "json": json.dumps({"answer": right}),
            "malformed": right if "not in the required form" in last else f"Sure: {right}.",
            "refuse": "I can't help with that.",
        }[type(self).mode]
        self._send({"id": "c", "object": "chat.completion", "created": 0, "model": "scripted",
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class _Server:
    """The scripted server on a port of its own, started and stopped by the test."""

    def __init__(self, port: int) -> None:
        self.port, self.url, self._server = port, f"http://127.0.0.1:{port}/v1", None

    def start(self) -> None:
        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", self.port), _Scripted)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[_Server]:
    monkeypatch.setenv("SCRIPTED_API_KEY", "none")
    _Scripted.requests = []
    scripted = _Server(_free_port())
    try:
        yield scripted
    finally:
        scripted.stop()


def _run(server: _Server, tmp_path: Path, constraint: str, **options: Any) -> Any:
    """One sample of the agent study; the base URL is explicit, so inspect's memoized model is this server's."""
    options.setdefault("max_retries", 1)
    [log] = inspect_eval(agent_study(constraint=constraint), model=f"openai-api/scripted/{tmp_path.name}", limit=1,
                         display="none", log_dir=str(tmp_path / "logs"), model_base_url=server.url, timeout=60, **options)
    return log


def _lines(log: Any) -> list[dict[str, Any]]:
    [sample] = log.samples
    return [json.loads(line) for line in sample.store[LINES_KEY]]


def _asked(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The lines whose answer the model was asked for (the others repeat an earlier answer to the same pure prompt)."""
    reused = [line for line in lines if line["runtime"]["reused"] == "true"]
    assert all(line["runtime"]["attempts"] == "0" for line in reused)
    return [line for line in lines if line["runtime"]["reused"] == "false"]


def test_a_llama_cpp_server_gets_the_grammar_in_the_request_body(server: _Server, tmp_path: Path) -> None:
    _Scripted.mode = "right"
    server.start()
    log = _run(server, tmp_path, "grammar")
    assert log.status == "success"
    lines = _lines(log)
    asked = _asked(lines)
    assert len(asked) == len(_Scripted.requests) > 4 and len(lines) > len(asked)  # a repeated pure prompt is asked once
    for line, request in zip(asked, _Scripted.requests):
        assert request["grammar"] == line["settings"]["grammar"]
        assert request["top_k"] == 1 and request["max_tokens"] == line["settings"]["max_tokens"]
        assert [m["content"] for m in request["messages"]] == [text for _, text in line["prompt"]]
    for line in lines:
        assert line["runtime"]["constraint"] == "grammar" and line["runtime"]["admitted"] == "true"
    assert {r["cache_prompt"] for r in _Scripted.requests} == {False}  # pure: no call reuses the server's prefix
    assert lines[0]["model"] == f"openai-api/scripted/{tmp_path.name}" and lines[0]["runtime"]["name"] == "inspect/openai-api/scripted"


def test_an_api_with_structured_output_gets_a_json_schema(server: _Server, tmp_path: Path) -> None:
    _Scripted.mode = "json"
    server.start()
    log = _run(server, tmp_path, "json_schema")
    lines = _lines(log)
    first = _Scripted.requests[0]
    schema = first["response_format"]["json_schema"]["schema"]
    assert first["response_format"]["type"] == "json_schema" and "grammar" not in first
    assert "EXECUTE" in schema["properties"]["answer"]["enum"]
    assert {line["response"] for line in lines} <= {"EXECUTE", "NONE"}
    assert {line["runtime"]["constraint"] for line in lines} == {"json_schema"}


def test_a_malformed_answer_is_asked_again_and_the_attempts_are_recorded(server: _Server, tmp_path: Path) -> None:
    _Scripted.mode = "malformed"
    server.start()
    log = _run(server, tmp_path, "parser")
    lines = _lines(log)
    assert {(line["runtime"]["attempts"], line["runtime"]["admitted"]) for line in _asked(lines)} == {("2", "true")}
    assert len(_Scripted.requests) == 2 * len(_asked(lines))
    correction = _Scripted.requests[1]["messages"][-1]["content"]
    assert correction.startswith("Your answer 'Sure: EXECUTE.' is not in the required form") and "EXECUTE" in correction
    assert all(line["prompt"] == json.loads(json.dumps(line["prompt"])) for line in lines)  # the study's prompt, unchanged
    assert {line["decision"].get("parsed", True) for line in lines} == {True}


def test_a_refusal_to_follow_the_format_is_recorded_as_given_and_loses_nothing(
        server: _Server, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    _Scripted.mode = "refuse"
    server.start()
    log = _run(server, tmp_path, "parser")
    assert log.status == "success"
    lines = _lines(log)
    assert {(line["runtime"]["attempts"], line["runtime"]["admitted"]) for line in _asked(lines)} == {("3", "false")}
    decisions = [line["decision"] for line in lines if not line["decision"].get("probe")]
    assert decisions and all(d["parsed"] is False for d in decisions)  # the study's own rule reads it
    warnings = [r.getMessage() for r in caplog.records if "outside the grammar" in r.getMessage()]
    assert len(warnings) == 1  # inspect puts the sample's name on a line before the message: ours is the last line
    calls = len(_asked(lines))  # the model's answers; a reused line repeats one of them
    assert f"{calls} of {calls} answers" in warnings[0].splitlines()[-1]
    report = import_logs([log.location], tmp_path / "recordings")
    [path] = report.written
    assert [r.response for r in read_recording(path)] == [line["response"] for line in lines]


def test_a_server_that_is_down_fails_the_sample_in_one_line_and_a_retry_loses_nothing(
        server: _Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _Scripted.mode = "right"
    failed = _run(server, tmp_path, "grammar", max_retries=0)  # nothing listens on the port yet
    assert failed.status == "error"
    message = failed.error.message
    assert "\n" not in message and "Connection" in message
    report = import_logs([failed.location], tmp_path / "recordings")
    assert not report.written
    assert report.lines() == [f"1 samples without recorded calls (failed or not run; redo them with inspect eval-retry LOG, "
                              f"then import again): {failed.eval.dataset.sample_ids[0]}"]
    server.start()
    [retried] = eval_retry(failed, log_dir=str(tmp_path / "logs"), display="none")
    assert retried.status == "success"
    report = import_logs([failed.location, retried.location], tmp_path / "recordings")
    assert list(report.written.values()) == [1] and len(report.failed) == 1
    [path] = report.written
    assert len(read_recording(path)) == len(_lines(retried))
