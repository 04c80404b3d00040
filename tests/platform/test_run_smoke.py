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
        assert "۳۰۰" in home  # the demo targets
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
