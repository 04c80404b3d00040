"""A database of its own, migrated from the migration files, for tests of a migration on rows.

The test database is built without migrations; these tests build one from the files, write rows at
the state before a migration and read them after it (and back).
"""

from contextlib import contextmanager

import pytest
from django.db import connections
from django.db.migrations.executor import MigrationExecutor
from django.test import override_settings


@contextmanager
def scratch_database(suffix: str):
    """Stands in as the default connection while the test runs (data migrations query through it)."""
    original = connections["default"]
    if original.vendor != "postgresql":
        pytest.skip("the migration check runs on PostgreSQL (the production database)")
    name = f"{original.settings_dict['NAME']}_{suffix}"
    server = original.__class__({**original.settings_dict, "NAME": "postgres"}, alias=f"{suffix}_server")
    with server.cursor() as cursor:
        cursor.execute(f'DROP DATABASE IF EXISTS "{name}"')
        cursor.execute(f'CREATE DATABASE "{name}"')
    connections["default"] = original.__class__({**original.settings_dict, "NAME": name}, alias="default")
    try:
        with override_settings(MIGRATION_MODULES={}):
            yield connections["default"]
    finally:
        connections["default"].close()
        connections["default"] = original
        with server.cursor() as cursor:
            cursor.execute(f'DROP DATABASE IF EXISTS "{name}"')
        server.close()


def migrate(connection, targets):
    """Migrate the scratch database to ``targets`` (``(app, None)`` unapplies an app); the models there."""
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    return executor.loader.project_state([node for node in targets if node[1]]).apps


def schema(connection) -> set[tuple]:
    """Every table, column, index and constraint of the database."""
    with connection.cursor() as cursor:
        tables = set(connection.introspection.table_names(cursor))
        constraints = {
            (table, name, tuple(info["columns"]), info["foreign_key"], info["unique"], info["index"])
            for table in tables
            for name, info in connection.introspection.get_constraints(cursor, table).items()
        }
        columns = {
            (table, column.name, column.type_code, column.null_ok)
            for table in tables
            for column in connection.introspection.get_table_description(cursor, table)
        }
    return constraints | columns
