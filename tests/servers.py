"""Starting MLflow's servers (`mlflow server`, `mlflow models serve`) on a free loopback port for a
test, and stopping them with everything they spawned."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

MLFLOW = str(Path(sys.executable).parent / "mlflow")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server(str):
    """A server's base URL, which also knows the server's process id."""

    pid: int

    def memory(self) -> int:
        """Resident bytes of the server and every process it started (uvicorn and its workers)."""
        import psutil

        root = psutil.Process(self.pid)
        return sum(p.memory_info().rss for p in [root, *root.children(recursive=True)])


@contextmanager
def serving(args: list[str], health: str, cwd: Path, env: dict[str, str], log: Path,
            timeout: float = 90) -> Iterator[Server]:
    """Run `mlflow <args> --host 127.0.0.1 --port <free port>` until the block ends; yields its
    base URL once `health` answers 200. Its output goes to `log`, quoted if it never comes up."""
    port = free_port()
    with open(log, "wb") as out:
        process = subprocess.Popen([MLFLOW, *args, "--host", "127.0.0.1", "--port", str(port)], cwd=cwd, env=env,
                                   stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    base = Server(f"http://127.0.0.1:{port}")
    base.pid = process.pid
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                with urllib.request.urlopen(base + health, timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"mlflow {' '.join(args)} did not come up:\n{log.read_text()[-3000:]}")
            time.sleep(0.3)
        yield base
    finally:
        stop(process)


# MLflow's tracking server also starts a job runner and seven huey consumers for its GenAI jobs
# (LLM judges, trace roll-ups), which this project never submits: about 25 s of CPU time at each
# start, on a machine whose two cores the suite keeps busy.
NO_JOBS = {"MLFLOW_SERVER_ENABLE_JOB_EXECUTION": "false"}


def without_tracking_env() -> dict[str, str]:
    """This process' environment without MLflow's and DVC's variables (a server of a test's own)."""
    return {k: v for k, v in os.environ.items() if not k.startswith(("MLFLOW_", "DVC_"))}


def tracking_server(root: Path, log: str = "server.log"):
    """`mlflow server` on loopback over the store in `root`, proxying artifacts into `root/artifacts`:
    started again over the same `root`, it is the same server (its runs and artifacts) at another port."""
    env = {**without_tracking_env(), **NO_JOBS}
    args = ["server", "--backend-store-uri", f"sqlite:///{root / 'server.db'}",
            "--artifacts-destination", str(root / "artifacts"), "--workers", "1"]
    return serving(args, "/health", root, env, root / log)


class Relay:
    """A TCP relay from a free loopback port to the server at `base`. `close()` drops its
    connections and refuses new ones, as a server that went away would, while the server behind it
    runs on: a test of a lost server then starts one server, not two (seconds of CPU each)."""

    def __init__(self, base: str) -> None:
        target = urllib.parse.urlsplit(base)
        self.target = (target.hostname, target.port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.sockets: list[socket.socket] = []
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:  # close() shut the listener
                return
            upstream = socket.create_connection(self.target)
            with self.lock:
                self.sockets += [client, upstream]
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        for sock in (source, sink):  # either side's end ends the connection (and the other pump)
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def close(self) -> None:
        self.listener.shutdown(socket.SHUT_RDWR)  # wakes the blocked accept(); connects are refused
        self.listener.close()
        with self.lock:
            for sock in self.sockets:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                sock.close()


def stop(process: subprocess.Popen) -> None:
    """SIGTERM to the server's process group (its workers too), SIGKILL if it lingers."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:  # the group is gone already
            return
        try:
            process.wait(timeout=20)
            return
        except subprocess.TimeoutExpired:
            pass


def post(url: str, body: bytes | str | dict, content_type: str = "application/json") -> tuple[int, dict | str]:
    """(status, parsed JSON or text) of a POST, error statuses included."""
    data = json.dumps(body).encode() if isinstance(body, dict) else body.encode() if isinstance(body, str) else body
    request = urllib.request.Request(url, data=data, method="POST", headers={"Content-Type": content_type})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            status, text = response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        status, text = exc.code, exc.read().decode()
    try:
        return status, json.loads(text)
    except ValueError:
        return status, text
