"""Which Chromium the app, the browser worker and the tests use (no Django here: the Makefile runs it).

Order: ``PLAYWRIGHT_CHROMIUM_PATH`` when it is set and executable; a system Chromium
(``/usr/bin/chromium``, ``chromium-browser``, Google Chrome); the distribution's package when this
machine can install one (apt-get as root, or passwordless sudo); else Playwright's own browser download.
``python -m workers.chromium`` picks one, records its path in ``var/chromium-path`` and prints it;
``config.settings`` reads that file when the environment names none.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

RECORD = Path(__file__).resolve().parent.parent / "var" / "chromium-path"
SYSTEM = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome", "/usr/bin/google-chrome-stable")


def _executable(path: str | None) -> bool:
    return bool(path) and os.path.isfile(path) and os.access(path, os.X_OK)


def recorded() -> str | None:
    """The path ``make`` chose earlier, if it is still there."""
    try:
        path = RECORD.read_text().strip()
    except OSError:
        return None
    return path if _executable(path) else None


def _system() -> str | None:
    return next((p for p in SYSTEM if _executable(p)), None)


def _apt_install() -> str | None:
    if not shutil.which("apt-get"):
        return None
    prefix = [] if os.geteuid() == 0 else ["sudo", "-n"]
    if prefix and (not shutil.which("sudo") or subprocess.run([*prefix, "true"], capture_output=True).returncode):  # noqa: S603 (fixed argv)
        return None
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for command in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", "chromium"]):
        if subprocess.run([*prefix, *command], env=env).returncode:  # noqa: S603 (fixed argv)
            return None
    return _system()


def _playwright_download() -> str | None:
    if subprocess.run([sys.executable, "-m", "playwright", "install", "chromium"]).returncode:
        return None
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        path = p.chromium.executable_path
    return path if _executable(path) else None


def choose() -> str:
    """Find or provide a Chromium; raises SystemExit with what to do when none can be had."""
    wanted = os.environ.get("PLAYWRIGHT_CHROMIUM_PATH")
    if _executable(wanted):
        return wanted
    for source in (_system, _apt_install, _playwright_download):
        path = source()
        if path:
            return path
    raise SystemExit("No Chromium: install the distribution's chromium package or run `playwright install chromium`.")


def main() -> None:
    path = choose()
    RECORD.parent.mkdir(parents=True, exist_ok=True)
    RECORD.write_text(path + "\n")
    print(f"Chromium: {path} (recorded in {RECORD})")


if __name__ == "__main__":
    main()
