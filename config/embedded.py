"""Folders of the embedded default (SQLite file, filesystem broker, collected static files).

Created when a process starts — ``manage.py``, the WSGI/ASGI application and the Celery app — never when
the settings are imported; a process pointed at PostgreSQL and Redis creates only ``STATIC_ROOT``.
"""

from pathlib import Path

from django.conf import settings

BROKER_FOLDER_OPTIONS = ("data_folder_in", "data_folder_out", "processed_folder", "control_folder")


def embedded_folders() -> list[Path]:
    folders = [Path(settings.STATIC_ROOT)]
    database = settings.DATABASES["default"]
    if database["ENGINE"] == "django.db.backends.sqlite3" and str(database["NAME"]) != ":memory:":
        folders.append(Path(database["NAME"]).parent)
    if settings.CELERY_BROKER_URL.startswith("filesystem://"):
        options = settings.CELERY_BROKER_TRANSPORT_OPTIONS
        folders += [Path(options[name]) for name in BROKER_FOLDER_OPTIONS if options.get(name)]
    return folders


def ensure_embedded_folders() -> None:
    for folder in embedded_folders():
        folder.mkdir(parents=True, exist_ok=True)
