"""Smoke test of `make run`'s embedded default: SQLite + filesystem broker, migrate, demo data,
a real server, the Persian home page and the admin login."""

import http.cookiejar
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def embedded_env(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "CELERY_BROKER_URL", "REDIS_URL"}}
    env.update({"VAR_DIR": str(tmp_path / "var"), "DEBUG": "1", "DJANGO_SETTINGS_MODULE": "config.settings"})
    return env


def manage(env, *args) -> str:
    result = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


@pytest.mark.slow
def test_embedded_default_starts_with_demo_data(embedded_env):
    manage(embedded_env, "migrate", "--noinput")
    out = manage(embedded_env, "demo_data")
    username, password = re.search(r"username=(\S+) password=(\S+)", out).groups()
    again = manage(embedded_env, "demo_data")  # idempotent, prints the same credentials
    assert f"password={password}" in again
    assert (Path(embedded_env["VAR_DIR"]) / "db.sqlite3").exists()

    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{port}"],
        cwd=ROOT,
        env=embedded_env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        jar = http.cookiejar.CookieJar()
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
        deadline = time.monotonic() + 60
        while True:
            try:
                login_page = opener.open(f"{base}/login/", timeout=5).read().decode()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.3)
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', login_page).group(1)
        body = urllib.parse.urlencode({"username": username, "password": password, "csrfmiddlewaretoken": token})
        request = urllib.request.Request(f"{base}/login/", data=body.encode(), headers={"Referer": f"{base}/login/"})
        home = opener.open(request, timeout=10).read().decode()
        assert 'dir="rtl"' in home and 'lang="fa"' in home
        assert "پیشخوان" in home
        assert 'data-testid="count-targets">۳۰۰<' in home  # the demo targets
        assert 'data-testid="count-campaigns">۲<' in home  # a journey and a browser campaign
        assert 'data-testid="count-workflows">۱<' in home
        admin_login = opener.open(f"{base}/admin/login/", timeout=10).read().decode()
        assert 'dir="rtl"' in admin_login
        css = opener.open(f"{base}/static/css/app.css", timeout=10).read().decode()
        assert "Vazirmatn" in css
        targets = opener.open(f"{base}/targets/", timeout=10).read().decode()
        assert "مخاطبان" in targets
    finally:
        server.terminate()
        server.wait(timeout=20)


def test_demo_data_refuses_without_debug(embedded_env):
    env = {**embedded_env, "DEBUG": "0"}
    result = subprocess.run(
        [sys.executable, "manage.py", "demo_data"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode != 0
    assert "DEBUG" in result.stderr


# --- `make run` as a user runs it: one process manager, nothing left behind ---------------------------

DEMO_SITE_PORT = 8766  # fixed: the demo browser campaign's pages live there


def _stat(pid: int) -> tuple[int, str, int] | None:
    """(parent pid, state, start time) of a process from /proc, or None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return int(fields[1]), fields[0], int(fields[19])


def _alive(pid: int, started: int) -> bool:
    """Still running, and the same process (not a recycled pid); a zombie runs nothing."""
    stat = _stat(pid)
    return stat is not None and stat[2] == started and stat[1] not in ("Z", "X")


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


def process_tree(root: int) -> dict[int, int]:
    """pid → start time of ``root`` and all its descendants (children, grandchildren, …), from /proc."""
    children: dict[int, list[int]] = {}
    started: dict[int, int] = {}
    for name in os.listdir("/proc"):
        if name.isdigit() and (stat := _stat(int(name))) is not None:
            children.setdefault(stat[0], []).append(int(name))
            started[int(name)] = stat[2]
    found, stack = {}, [root]
    while stack:
        pid = stack.pop()
        if pid in started:
            found[pid] = started[pid]
            stack.extend(children.get(pid, []))
    return found


def port_is_free(port: int) -> bool:
    """Free for a server (which, like runserver and the demo site, sets SO_REUSEADDR)."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _stop_with_parent() -> None:
    """In the child before exec: SIGTERM when pytest dies, even by SIGKILL where no teardown runs (make then
    stops honcho, which stops everything else)."""
    import ctypes

    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


class MakeRuns:
    """Starts `make run` in its own session and remembers every process it ever saw under it, so the
    test can check them after a signal and the teardown can kill whatever is left, whatever happened."""

    def __init__(self, env: dict, port: int, logs: Path) -> None:
        self.env, self.port, self.logs = env, port, logs
        self.procs: list[subprocess.Popen] = []
        self.seen: dict[int, int] = {}  # pid → start time

    def start(self) -> subprocess.Popen:
        assert port_is_free(DEMO_SITE_PORT), f"port {DEMO_SITE_PORT} (demo site) is in use: another `make run`?"
        log = self.logs / f"make-run-{len(self.procs) + 1}.log"
        with log.open("w") as out:  # a file, not a pipe: a full pipe would stall the run
            proc = subprocess.Popen(
                ["make", "run", f"PORT={self.port}"],
                cwd=ROOT,
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=_stop_with_parent,
            )
        proc.log = log
        self.procs.append(proc)
        return proc

    def record(self, proc: subprocess.Popen) -> dict[int, int]:
        tree = process_tree(proc.pid)
        self.seen.update(tree)
        return tree

    def remaining(self, pids: dict[int, int]) -> dict[int, str]:
        return {pid: _cmdline(pid) for pid, started in pids.items() if _alive(pid, started)}

    def wait_until_gone(self, proc: subprocess.Popen, pids: dict[int, int], seconds: float) -> dict[int, str]:
        """Wait (bounded) for make and every recorded process to end; what is still running."""
        until = time.monotonic() + seconds
        while time.monotonic() < until:
            if proc.poll() is not None and not self.remaining(pids):
                return {}
            time.sleep(0.2)
        return self.remaining(pids)

    def output(self, proc: subprocess.Popen) -> str:
        return proc.log.read_text(errors="replace")[-4000:]

    def kill_all(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                self.record(proc)
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        for pid, started in self.seen.items():
            if _alive(pid, started):
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        for proc in self.procs:
            proc.wait(timeout=30)


@pytest.fixture
def make_runs(embedded_env, tmp_path):
    """`make run` processes of one test; on teardown (pass or fail) every process of them is killed."""
    env = dict(embedded_env)
    env.pop("DEBUG")
    runs = MakeRuns(env, free_port(), tmp_path)
    try:
        yield runs
    finally:
        runs.kill_all()
        assert not runs.remaining(runs.seen), "the teardown could not stop every process"


def wait_for_tree(runs: MakeRuns, proc: subprocess.Popen, *, seconds: float = 180) -> dict[int, int]:
    """Wait until the run is fully up: web answers and the worker's Chromium and embedded beat run."""
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        if proc.poll() is not None:
            pytest.fail(f"make run exited: {runs.output(proc)}")
        tree = runs.record(proc)
        commands = [_cmdline(pid) for pid in tree]
        chromium = any("chrom" in c and "--type=" not in c for c in commands)
        workers = sum(1 for c in commands if "celery -A config worker" in c and not c.startswith("/bin/sh"))
        if chromium and workers >= 2:  # the worker and its embedded beat process
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{runs.port}/login/", timeout=5).read()
                urllib.request.urlopen(f"http://127.0.0.1:{DEMO_SITE_PORT}/post/1", timeout=5).read()
                return runs.record(proc)
            except OSError:
                pass
        time.sleep(1)
    pytest.fail(f"make run did not come up: {runs.output(proc)}")


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.timeout(600)
def test_make_run_serves_pages_runs_the_demo_campaign_and_stops_cleanly(make_runs, embedded_env):
    """`make run` itself: web + worker (all queues) + beat + demo site under honcho; the demo Like campaign
    completes; Ctrl-C (SIGINT to the foreground process group) and SIGTERM stop every process of the run,
    grandchildren (beat, Playwright, Chromium) included, and a second run starts at once on the same port;
    one process dying stops the others."""
    import sqlite3

    proc = make_runs.start()
    db = Path(embedded_env["VAR_DIR"]) / "db.sqlite3"
    deadline = time.monotonic() + 240
    done = 0
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"make run exited: {make_runs.output(proc)}")
        make_runs.record(proc)
        if db.exists():
            try:
                with sqlite3.connect(db, timeout=5) as conn:
                    done = conn.execute(
                        "select count(*) from workers_browsertask where status = 'COMPLETED'"
                    ).fetchone()[0]
            except sqlite3.OperationalError:
                done = 0  # not migrated yet
        if done == 6:  # 3 accounts x 2 posts
            break
        time.sleep(1)
    assert done == 6
    page = urllib.request.urlopen(f"http://127.0.0.1:{make_runs.port}/login/", timeout=10).read().decode()
    assert 'dir="rtl"' in page

    # Ctrl-C: the terminal sends SIGINT to the whole foreground process group.
    tree = wait_for_tree(make_runs, proc)
    assert len(tree) >= 8, tree
    os.killpg(proc.pid, signal.SIGINT)
    left = make_runs.wait_until_gone(proc, tree, seconds=10)
    assert not left, f"still running 10 s after Ctrl-C: {left}"
    out = make_runs.output(proc)
    assert "web.1" in out and "worker.1" in out and "demo.1" in out  # log lines prefixed by process name
    assert out.rstrip().endswith("Stopped.") and "Error" not in out  # a requested stop is no failure

    # At once a second run on the same port; SIGTERM to make alone (as a service manager or `kill` does).
    proc = make_runs.start()
    tree = wait_for_tree(make_runs, proc)
    proc.terminate()
    left = make_runs.wait_until_gone(proc, tree, seconds=10)
    assert not left, f"still running 10 s after SIGTERM: {left}"

    # One process dying (here the demo site) stops the others.
    proc = make_runs.start()
    tree = wait_for_tree(make_runs, proc)
    demo = next(pid for pid in tree if _cmdline(pid) == "python manage.py demo_site")
    os.kill(demo, signal.SIGKILL)
    left = make_runs.wait_until_gone(proc, tree, seconds=10)
    assert not left, f"still running 10 s after the demo site died: {left}"
    assert proc.returncode != 0
