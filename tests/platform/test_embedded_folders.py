"""The embedded default's folders (SQLite, filesystem broker, static files) are created when a process
starts, never when the settings are imported."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def embedded_env(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "CELERY_BROKER_URL", "REDIS_URL"}}
    env.update({"VAR_DIR": str(tmp_path / "var"), "DJANGO_SETTINGS_MODULE": "config.settings"})
    return env


def run(env, *args):
    result = subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]


def test_importing_the_settings_creates_no_folder(embedded_env):
    run(embedded_env, "-c", "import config.settings")
    assert not Path(embedded_env["VAR_DIR"]).exists()


def test_manage_py_creates_the_embedded_folders(embedded_env):
    run(embedded_env, "manage.py", "check")
    var = Path(embedded_env["VAR_DIR"])
    assert {p.name for p in (var / "broker").iterdir()} == {"queue", "processed", "control"}
    assert (var / "staticfiles").is_dir()


def test_the_celery_app_creates_the_broker_folders_when_configured(embedded_env):
    run(
        embedded_env,
        "-c",
        "import django; django.setup(); from config.celery import app; print(app.conf.broker_url)",
    )
    assert (Path(embedded_env["VAR_DIR"]) / "broker" / "queue").is_dir()
