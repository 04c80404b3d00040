"""Smoke test of `make run`'s embedded default: SQLite + filesystem broker, migrate, demo data,
a real server, the Persian home page and the admin login."""

import http.cookiejar
import os
import re
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


@pytest.mark.slow
@pytest.mark.browser
def test_make_run_serves_pages_and_runs_the_demo_browser_campaign(embedded_env):
    """`make run` itself: web + worker (all queues) + beat + demo site; the demo Like campaign completes."""
    import signal
    import sqlite3

    port = free_port()
    env = {**embedded_env, "PORT": str(port)}
    env.pop("DEBUG")
    proc = subprocess.Popen(
        ["make", "run", f"PORT={port}"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    db = Path(embedded_env["VAR_DIR"]) / "db.sqlite3"
    try:
        deadline = time.monotonic() + 240
        done = 0
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                pytest.fail(f"make run exited: {proc.stdout.read()[-3000:]}")
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
        page = urllib.request.urlopen(f"http://127.0.0.1:{port}/login/", timeout=10).read().decode()
        assert 'dir="rtl"' in page
    finally:
        os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C does
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    time.sleep(1)
    leftovers = subprocess.run(["pgrep", "-f", f"runserver --noreload 127.0.0.1:{port}"], capture_output=True)
    assert leftovers.returncode != 0, "Ctrl-C must stop the web server too"
