"""Which database runs is asked in one place, ``campaigns.platform.database`` (migrations excepted)."""

import re
from pathlib import Path

from django.conf import settings
from django.db import connection

from campaigns.platform.database import is_postgresql, is_sqlite

ROOT = Path(settings.BASE_DIR)
APPS = ("config", "campaigns", "automation", "sms", "workers")
VENDOR = re.compile(r"\.vendor\b")


def vendor_reads(root: Path = ROOT) -> list[str]:
    found = []
    for app in APPS:
        for path in sorted((root / app).rglob("*.py")):
            relative = path.relative_to(root).as_posix()
            if "/migrations/" in relative or relative == "campaigns/platform/database.py":
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if VENDOR.search(line):
                    found.append(f"{relative}:{number}")
    return found


def test_no_product_module_reads_the_database_vendor_itself():
    assert vendor_reads() == []


def test_the_scan_sees_a_vendor_read(tmp_path):
    (tmp_path / "sms").mkdir()
    (tmp_path / "sms" / "action.py").write_text('if connection.vendor == "postgresql":\n    pass\n')
    assert vendor_reads(tmp_path) == ["sms/action.py:1"]


def test_the_answers_follow_the_connection():
    assert is_postgresql() == (connection.vendor == "postgresql")
    assert is_sqlite(connection) == (connection.vendor == "sqlite")
    assert is_postgresql() != is_sqlite()
