"""Starting the server: `bash scripts/start.sh`, the README's first command, serves with the
production server, and its worker processes agree on one signing key."""

from __future__ import annotations

import os
import select
import signal
import socket
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WAIT = 90  # seconds: the script first checks the installed packages


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Output:
    """The server's standard output, read as it comes (no buffer hides a line from select)."""

    def __init__(self, proc: subprocess.Popen):
        self.fd = proc.stdout.fileno()
        self.text = ""

    def line_with(self, text: str, limit: float) -> str:
        while True:
            for line in self.text.splitlines(keepends=True):
                if text in line and line.endswith("\n"):
                    return line
            left = limit - time.monotonic()
            assert left > 0, f"{text!r} was never printed: {self.text!r}"
            ready, _, _ = select.select([self.fd], [], [], left)
            if ready:
                data = os.read(self.fd, 65536)
                assert data, f"the server exited before printing {text!r}: {self.text!r}"
                self.text += data.decode()


def test_the_start_script_serves_with_gunicorn_and_one_gevent_worker(tmp_path):
    port = _free_port()
    env = dict(os.environ, FOREST_TABLE_HOST="127.0.0.1", FOREST_TABLE_PORT=str(port),
               FOREST_TABLE_DATABASE=str(tmp_path / "start.sqlite"), FOREST_TABLE_SECRET_KEY="test-key")
    env.pop("FOREST_TABLE_WORKERS", None)
    env.pop("FOREST_TABLE_WORKER_CLASS", None)
    errors = open(tmp_path / "stderr.log", "w+")
    proc = subprocess.Popen(["bash", "scripts/start.sh"], cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=errors, start_new_session=True)
    try:
        limit = time.monotonic() + WAIT
        output = Output(proc)
        assert "(gunicorn, 1 gevent worker)" in output.line_with("Forest Table is running", limit)
        assert f":{port}" in output.line_with("http://", limit)
        # The table screen's address, for the TV or the host's laptop.
        assert output.line_with("/screen", limit).strip().endswith(f":{port}/screen")
        with socket.create_connection(("127.0.0.1", port), timeout=WAIT) as sock:
            sock.sendall(b"GET /screen HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            assert sock.recv(65536).startswith(b"HTTP/1.1 200")
        with socket.create_connection(("127.0.0.1", port), timeout=WAIT) as sock:
            sock.sendall(b"GET /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            answer = b""
            while chunk := sock.recv(65536):
                answer += chunk
        head = answer.partition(b"\r\n\r\n")[0].decode("latin-1")
        assert head.startswith("HTTP/1.1 200")
        assert "\r\nserver: gunicorn" in head.lower()
    finally:
        os.killpg(proc.pid, signal.SIGTERM)  # the script became gunicorn's master: it stops its worker
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(5)
        proc.stdout.close()
    errors.seek(0)
    log = errors.read()
    errors.close()
    assert "Using worker: gevent" in log
    assert "development server" not in log


def test_worker_processes_starting_together_share_one_signing_key(tmp_path, monkeypatch):
    from companion import _secret_key

    first = _secret_key(str(tmp_path))
    # A second worker that looked before the first had written, and so makes a key too.
    monkeypatch.setattr(Path, "exists", lambda self: False)
    assert _secret_key(str(tmp_path)) == first
    monkeypatch.undo()
    assert (tmp_path / "secret_key").stat().st_mode & 0o777 == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["secret_key"]  # nothing left behind
