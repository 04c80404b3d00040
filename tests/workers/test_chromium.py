"""The Makefile's Chromium step: the environment's path, a system Chromium, the distribution's package,
else Playwright's download — and the path it recorded is the one the settings use."""

import pytest

from workers import chromium


@pytest.fixture
def fake_binary(tmp_path):
    path = tmp_path / "chromium"
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return str(path)


def test_the_environment_wins_then_the_system_chromium(monkeypatch, fake_binary):
    monkeypatch.setenv("PLAYWRIGHT_CHROMIUM_PATH", fake_binary)
    assert chromium.choose() == fake_binary
    monkeypatch.delenv("PLAYWRIGHT_CHROMIUM_PATH")
    monkeypatch.setattr(chromium, "SYSTEM", ("/nonexistent/chromium", fake_binary))
    assert chromium.choose() == fake_binary


def test_without_a_system_chromium_the_package_then_playwright_is_tried(monkeypatch, fake_binary):
    monkeypatch.delenv("PLAYWRIGHT_CHROMIUM_PATH", raising=False)
    monkeypatch.setattr(chromium, "SYSTEM", ("/nonexistent/chromium",))
    tried = []
    monkeypatch.setattr(chromium, "_apt_install", lambda: tried.append("apt"))
    monkeypatch.setattr(chromium, "_playwright_download", lambda: tried.append("playwright") or fake_binary)
    assert chromium.choose() == fake_binary and tried == ["apt", "playwright"]
    monkeypatch.setattr(chromium, "_playwright_download", lambda: None)
    with pytest.raises(SystemExit):
        chromium.choose()


def test_the_recorded_path_is_read_back(monkeypatch, tmp_path, fake_binary):
    record = tmp_path / "chromium-path"
    monkeypatch.setattr(chromium, "RECORD", record)
    monkeypatch.setenv("PLAYWRIGHT_CHROMIUM_PATH", fake_binary)
    chromium.main()
    assert chromium.recorded() == fake_binary
    record.write_text("/nonexistent/chromium\n")
    assert chromium.recorded() is None  # gone since: the settings fall back to the system path
