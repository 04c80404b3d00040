"""Which database runs, asked in one place.

PostgreSQL in production and CI; SQLite as the embedded default (``make run`` without ``DATABASE_URL``). The
product asks ``is_postgresql()`` / ``is_sqlite()`` and never reads ``connection.vendor`` itself
(``tests/platform/test_database_vendor.py``); what differs per database (COPY, ``SKIP LOCKED``, month
partitions, trigger dialects …) stays beside the code that needs it, behind these answers. Migrations keep
their own checks (they run against historical state).
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db import connection as default_connection


def _vendor(connection) -> str:
    return (default_connection if connection is None else connection).vendor


def is_postgresql(connection=None) -> bool:
    """The connection (default: the default database's) is PostgreSQL."""
    return _vendor(connection) == "postgresql"


def is_sqlite(connection=None) -> bool:
    """The connection (default: the default database's) is SQLite, the embedded default."""
    return _vendor(connection) == "sqlite"


def execute_for_database(connection, *, postgresql: str, sqlite: Sequence[str]) -> None:
    """Run the connection's own dialect of a set of statements (trigger sets: one PostgreSQL script, SQLite
    one statement at a time); other databases get nothing."""
    with connection.cursor() as cursor:
        if is_postgresql(connection):
            cursor.execute(postgresql)
        elif is_sqlite(connection):
            for statement in sqlite:
                cursor.execute(statement)
