"""Real processes for fault injection: a Celery worker, a private Redis and a private PostgreSQL cluster.

Everything here is started by the test that uses it and ended by its own process id (never by name);
the shared PostgreSQL (5432) and Redis (6379) of the machine are never touched — the private ones
listen on a free loopback port.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from django.conf import settings

ROOT = Path(settings.BASE_DIR)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def database_url(db: dict | None = None) -> str:
    """The URL of Django's current database (the test database under pytest)."""
    db = db or settings.DATABASES["default"]
    auth = db["USER"] + (f":{db['PASSWORD']}" if db.get("PASSWORD") else "")
    return f"postgres://{auth}@{db['HOST']}:{db['PORT']}/{db['NAME']}"


def children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as handle:
            return [int(p) for p in handle.read().split()]
    except OSError:
        return []


def descendants(pid: int) -> list[int]:
    found, stack = [], children(pid)
    while stack:
        child = stack.pop()
        found.append(child)
        stack.extend(children(child))
    return found


def pid_of_client(port: int, candidates: list[int]) -> int | None:
    """Which of these processes owns the loopback TCP socket whose local port is ``port`` (/proc, Linux)."""
    inode = None
    with open("/proc/net/tcp") as table:
        for line in table.readlines()[1:]:
            fields = line.split()
            if int(fields[1].split(":")[1], 16) == port:
                inode = fields[9]
                break
    if inode is None:
        return None
    target = f"socket:[{inode}]"
    for pid in candidates:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(f"/proc/{pid}/fd/{fd}") == target:
                    return pid
            except OSError:
                continue
    return None


def running(pid: int) -> bool:
    """The process exists and is not a zombie (a killed orphan may wait for its reaper; it runs nothing)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except (OSError, IndexError):
        return False


def kill_pids(pids: list[int]) -> None:
    """SIGKILL processes this test started (directly or through a process it started), by id."""
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


class CeleryWorker:
    """One ``celery -A config worker`` process on the given queues, logging to a file under ``tmp_path``."""

    def __init__(self, tmp_path: Path, env: dict, *, queues: str = "engine", pool: str = "solo") -> None:
        self.log_path = tmp_path / f"worker-{uuid.uuid4().hex[:6]}.log"
        self.log = open(self.log_path, "w")  # closed by stop()
        command = [sys.executable, "-m", "celery", "-A", "config", "worker", "-Q", queues, f"--pool={pool}"]
        if pool == "prefork":
            command += ["-c", "1"]
        command += ["-n", f"fault-{uuid.uuid4().hex[:8]}@%h", "--without-heartbeat", "--without-gossip"]
        command += ["--without-mingle", "-l", "INFO"]
        self.process = subprocess.Popen(
            command,
            cwd=ROOT,
            # DEBUG=1: the tests run with the development secrets, which a DEBUG=0 worker refuses
            env=dict(os.environ, PYTHONPATH=str(ROOT), **{"DEBUG": "1", **env}),
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        self.pid = self.process.pid

    def text(self) -> str:
        return self.log_path.read_text()

    def ready(self) -> bool:
        return " ready." in self.text()

    def wait_ready(self, timeout: float = 60) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self.alive():
            if self.ready():
                return True
            time.sleep(0.1)
        return False

    def alive(self) -> bool:
        return self.process.poll() is None

    def kill(self) -> None:
        """SIGKILL the worker process itself (what an OOM kill or a lost machine does)."""
        if self.alive():
            os.kill(self.pid, signal.SIGKILL)
            self.process.wait()

    def stop(self) -> None:
        left = descendants(self.pid)
        if self.alive():
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        kill_pids(left)  # a pool child or a browser orphaned by a kill
        self.log.close()


class RedisServer:
    """A private ``redis-server`` (no persistence, like the CI's) on a free port; ``restart`` keeps the port."""

    def __init__(self, tmp_path: Path) -> None:
        self.binary = shutil.which("redis-server")
        self.port = free_port()
        self.dir = tmp_path / f"redis-{self.port}"
        self.dir.mkdir()
        self.process: subprocess.Popen | None = None
        self.restarts = 0

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        command = [self.binary, "--bind", "127.0.0.1", "--port", str(self.port), "--save", "", "--appendonly", "no"]
        command += ["--dir", str(self.dir)]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as sock:
                    sock.sendall(b"PING\r\n")
                    if sock.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def stop(self, *, hard: bool = True) -> None:
        """SIGKILL (everything in memory is lost: queued messages included) or SIGTERM."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL if hard else signal.SIGTERM)
            self.process.wait(timeout=20)

    def restart(self, *, down_seconds: float = 0.5, hard: bool = True) -> None:
        self.stop(hard=hard)
        time.sleep(down_seconds)
        self.start()
        self.restarts += 1


class PostgresCluster:
    """A private PostgreSQL cluster (``initdb`` in a temporary folder, ``pg_ctl`` on a free port).

    initdb refuses to run as root, so as root the cluster belongs to the ``postgres`` system user.
    """

    def __init__(self) -> None:
        self.bin = self._bin_dir()
        self.port = free_port()
        # Its own folder right under /tmp: pytest's tmp_path is private to root, the server user could not enter.
        self.dir = Path(tempfile.mkdtemp(prefix=f"faults-pg-{self.port}-"))
        self.data = self.dir / "data"
        self.log = self.dir / "server.log"
        self.restarts = 0
        self.as_user: list[str] = []
        if os.geteuid() == 0:
            self.as_user = ["runuser", "-u", "postgres", "--"]
            shutil.chown(self.dir, "postgres")

    @staticmethod
    def _bin_dir() -> Path | None:
        initdb = shutil.which("initdb")
        if initdb:
            return Path(os.path.realpath(initdb)).parent
        versions = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))
        return versions[-1].parent if versions else None

    @property
    def url(self) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/faults"

    def _run(self, *args: str, timeout: float = 120) -> None:
        subprocess.run(
            [*self.as_user, *args], check=True, timeout=timeout, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )

    def init(self) -> None:
        self._run(str(self.bin / "initdb"), "-D", str(self.data), "-U", "postgres", "-A", "trust", "--no-sync")
        self.start()
        self._run(str(self.bin / "createdb"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "faults")

    def start(self) -> None:
        options = f"-p {self.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories='' -c fsync=off"
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-o", options, "-w", "start")

    def stop(self, *, mode: str = "fast") -> None:
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop")

    def restart(self, *, mode: str = "immediate", down_seconds: float = 0.5) -> None:
        """``immediate`` is a crash (no checkpoint, WAL replay at start); ``fast`` a clean shutdown."""
        self.stop(mode=mode)
        time.sleep(down_seconds)
        self.start()
        self.restarts += 1

    def destroy(self) -> None:
        try:
            self.stop(mode="immediate")
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired):
            pass
        shutil.rmtree(self.dir, ignore_errors=True)
