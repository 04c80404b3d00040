"""The documents describe the code: a doc section naming a missing file or setting fails.

Reads ``README.md`` and ``docs/*.md``; every backticked repository file path (``sms/action/planning.py``,
``tests/chains/test_runs.py::test_x``, ``automation/engine/scheduler.py:run_tick``) must exist, and every
backticked UPPER_CASE name of a settings family (``AUTOMATION_…``, ``SMS_…``) must be a setting or an
environment variable that ``config/settings.py`` reads — or a code or constant the product defines.
"""

import re
from pathlib import Path

from django.conf import settings

ROOT = Path(settings.BASE_DIR)
TOP = {"automation", "campaigns", "sms", "workers", "config", "docs", "tests", "templates", "static"}
EXTENSIONS = {".py", ".md", ".html", ".txt", ".toml", ".json", ".yml", ".yaml", ".js", ".css", ".cfg"}
TOKEN = re.compile(r"`([^`\s]+)`")
UPPER = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")


def _documents():
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        yield path.relative_to(ROOT).as_posix(), path.read_text(encoding="utf-8").splitlines()


def _settings_names() -> tuple[set[str], set[str]]:
    text = (ROOT / "config" / "settings.py").read_text(encoding="utf-8")
    defined = set(re.findall(r"^([A-Z][A-Z0-9_]+)\s*=", text, re.M)) | set(
        re.findall(r"[\"']([A-Z][A-Z0-9_]+)[\"']", text)
    )
    families = {name.split("_")[0] + "_" for name in defined if "_" in name}
    return defined, families


def _product_codes() -> set[str]:
    """The product's UPPER_CASE string literals (error codes) and module constants (documented bounds)."""
    found = set()
    for app in ("automation", "campaigns", "sms", "workers"):
        for path in (ROOT / app).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            found |= set(re.findall(r"[\"']([A-Z][A-Z0-9_]+)[\"']", text))
            found |= set(re.findall(r"^([A-Z][A-Z0-9_]+)\s*[:=]", text, re.M))
    return found


def _file_path(token: str) -> str | None:
    path = re.split(r"::|:(?=[A-Za-z_])", token)[0]
    if "/" not in path or path.split("/")[0] not in TOP or any(c in path for c in "*{<…"):
        return None
    return path if Path(path).suffix in EXTENSIONS else None


def test_named_files_exist():
    missing = [
        f"{doc}:{number} {path}"
        for doc, lines in _documents()
        for number, line in enumerate(lines, 1)
        for token in TOKEN.findall(line)
        if (path := _file_path(token)) and not (ROOT / path).exists()
    ]
    assert not missing, "documents name files that do not exist:\n" + "\n".join(missing)


def test_named_settings_exist():
    defined, families = _settings_names()
    known = defined | _product_codes()
    missing = [
        f"{doc}:{number} {name}"
        for doc, lines in _documents()
        for number, line in enumerate(lines, 1)
        for token in TOKEN.findall(line)
        if UPPER.fullmatch(name := token.split("=")[0])
        and any(name.startswith(family) for family in families)
        and name not in known
    ]
    assert not missing, "documents name settings that config/settings.py does not define:\n" + "\n".join(missing)
