"""Production start refuses development secrets; security headers come from the environment."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from django.core.management.base import SystemCheckError

ROOT = Path(__file__).resolve().parents[2]
FERNET_KEY = "3q2-7wUJn5gGqY5Pp6bUu5fG4XQyq2cQd8y5Sx7s1hU="


def test_deploy_check_fails_with_the_dev_key(settings):
    settings.DEBUG = False
    with pytest.raises(SystemCheckError) as exc:
        call_command("check", deploy=True)
    assert "platform.E001" in str(exc.value) and "platform.E002" in str(exc.value)


def test_deploy_check_passes_our_rules_with_real_secrets(settings):
    from campaigns.platform.checks import check_production_secrets

    settings.SECRET_KEY = "a-real-production-secret-" + "x" * 40
    settings.FIELD_ENCRYPTION_KEY = FERNET_KEY
    settings.REDIS_URL = "redis://127.0.0.1:6379/1"
    assert check_production_secrets() == []


def test_deploy_check_web_refuses_to_start_with_the_dev_key(settings):
    from campaigns.platform.checks import refuse_insecure_start

    settings.DEBUG = False
    with pytest.raises(ImproperlyConfigured):
        refuse_insecure_start()
    settings.DEBUG = True
    refuse_insecure_start()  # development server: allowed


def _settings_in_subprocess(env: dict, expr: str) -> str:
    full = {k: v for k, v in os.environ.items() if k not in {"SECRET_KEY", "FIELD_ENCRYPTION_KEY", "DEBUG"}}
    full.update(env, DJANGO_SETTINGS_MODULE="config.settings")
    code = f"import django; django.setup(); from django.conf import settings; print({expr})"
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=full, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout.strip()


def test_deploy_check_wsgi_app_does_not_load_with_dev_key_and_debug_off():
    env = {k: v for k, v in os.environ.items() if k not in {"SECRET_KEY", "FIELD_ENCRYPTION_KEY"}}
    env.update(DEBUG="0", DJANGO_SETTINGS_MODULE="config.settings")
    result = subprocess.run(
        [sys.executable, "-c", "import config.wsgi"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode != 0 and "Refusing to start" in result.stderr
    env.update(SECRET_KEY="a-real-production-secret-" + "x" * 40, FIELD_ENCRYPTION_KEY=FERNET_KEY)
    env.pop("REDIS_URL", None)
    no_redis = subprocess.run(
        [sys.executable, "-c", "import config.wsgi"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    # a local-memory cache is per process and culls at 300 entries: the login throttle would not hold
    assert no_redis.returncode != 0 and "REDIS_URL is unset" in no_redis.stderr
    env.update(REDIS_URL="redis://127.0.0.1:6379/1")  # not connected at start
    ok = subprocess.run(
        [sys.executable, "-c", "import config.wsgi"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert ok.returncode == 0, ok.stderr[-2000:]


def test_hsts_ssl_redirect_and_proxy_header_come_from_the_environment():
    env = {
        "SECURE_HSTS_SECONDS": "31536000",
        "SECURE_SSL_REDIRECT": "1",
        "SECURE_HSTS_INCLUDE_SUBDOMAINS": "1",
        "TRUSTED_PROXY_COUNT": "1",
    }
    expr = (
        "settings.SECURE_HSTS_SECONDS, settings.SECURE_SSL_REDIRECT, settings.SECURE_HSTS_INCLUDE_SUBDOMAINS, "
        "settings.SECURE_PROXY_SSL_HEADER, settings.REST_FRAMEWORK['NUM_PROXIES']"
    )
    assert _settings_in_subprocess(env, expr) == ("31536000 True True ('HTTP_X_FORWARDED_PROTO', 'https') 1")
    assert _settings_in_subprocess({}, "settings.SECURE_PROXY_SSL_HEADER, settings.REST_FRAMEWORK['NUM_PROXIES']") == (
        "None 0"
    )


@pytest.mark.parametrize("program", ["worker", "beat"])
def test_deploy_check_celery_refuses_to_start_with_dev_key_and_debug_off(program, tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in {"SECRET_KEY", "FIELD_ENCRYPTION_KEY"}}
    env.update(DEBUG="0", DJANGO_SETTINGS_MODULE="config.settings", CELERY_BROKER_URL="memory://")
    command = [sys.executable, "-m", "celery", "-A", "config", program, "-l", "INFO"]
    if program == "beat":
        command += ["--schedule", str(tmp_path / "beat-schedule"), "--scheduler", "celery.beat:PersistentScheduler"]
    else:
        command += ["--pool=solo", "-Q", "default"]
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode != 0
    assert "Refusing to start with DEBUG=0" in result.stdout + result.stderr
