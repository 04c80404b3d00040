"""Live members per target list (``TargetListSize``), kept by the database in the same transaction as each write.

Every path that changes a list's size goes through one of four tables' writes — a membership added or removed
(services, the import, the admin, ``m2m`` add/remove/set/clear, cascades, a bulk ``COPY``), a target soft-deleted,
restored or deleted — so the counter is kept by triggers on those writes, not by each caller. PostgreSQL:
statement triggers over transition tables (one aggregate per statement, however many rows it wrote); the
targets are share-locked first, so a membership write and a concurrent (soft) delete of the same target
serialise and neither counts it twice. SQLite: row triggers (one writer at a time). Installed by migration
``campaigns.0010`` and again after every ``migrate`` (idempotent), so test databases built without migrations
have them too. ``recount`` repairs the stored numbers (``manage.py target_list_sizes``).
"""

from __future__ import annotations

from django.db import connections

from campaigns.platform.database import execute_for_database

PG_FUNCTIONS = """
CREATE OR REPLACE FUNCTION campaigns_list_size_created() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO campaigns_targetlistsize (target_list_id, workspace_id, members)
    SELECT id, workspace_id, 0 FROM created ON CONFLICT (target_list_id) DO NOTHING;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION campaigns_list_size_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM campaigns_target t WHERE t.id IN (SELECT target_id FROM added) ORDER BY t.id FOR SHARE;
    INSERT INTO campaigns_targetlistsize AS s (target_list_id, workspace_id, members)
    SELECT a.targetlist_id, l.workspace_id, count(*)
    FROM added a
    JOIN campaigns_target t ON t.id = a.target_id AND t.deleted_at IS NULL
    JOIN campaigns_targetlist l ON l.id = a.targetlist_id
    GROUP BY a.targetlist_id, l.workspace_id
    ORDER BY a.targetlist_id
    ON CONFLICT (target_list_id) DO UPDATE SET members = s.members + EXCLUDED.members;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION campaigns_list_size_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM campaigns_target t WHERE t.id IN (SELECT target_id FROM removed) ORDER BY t.id FOR SHARE;
    UPDATE campaigns_targetlistsize s SET members = s.members - d.n
    FROM (
        SELECT r.targetlist_id, count(*) AS n
        FROM removed r JOIN campaigns_target t ON t.id = r.target_id AND t.deleted_at IS NULL
        GROUP BY r.targetlist_id
    ) d
    WHERE s.target_list_id = d.targetlist_id;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION campaigns_list_size_target_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE campaigns_targetlistsize s SET members = s.members + d.n
    FROM (
        SELECT m.targetlist_id, sum(CASE WHEN n.deleted_at IS NULL THEN 1 ELSE -1 END) AS n
        FROM old_rows o
        JOIN new_rows n ON n.id = o.id
        JOIN campaigns_target_lists m ON m.target_id = n.id
        WHERE (o.deleted_at IS NULL) <> (n.deleted_at IS NULL)
        GROUP BY m.targetlist_id
    ) d
    WHERE s.target_list_id = d.targetlist_id AND d.n <> 0;
    RETURN NULL;
END $$;

DROP TRIGGER IF EXISTS campaigns_list_size_created ON campaigns_targetlist;
DROP TRIGGER IF EXISTS campaigns_list_size_added ON campaigns_target_lists;
DROP TRIGGER IF EXISTS campaigns_list_size_removed ON campaigns_target_lists;
DROP TRIGGER IF EXISTS campaigns_list_size_target_changed ON campaigns_target;
CREATE TRIGGER campaigns_list_size_created AFTER INSERT ON campaigns_targetlist
    REFERENCING NEW TABLE AS created FOR EACH STATEMENT EXECUTE FUNCTION campaigns_list_size_created();
CREATE TRIGGER campaigns_list_size_added AFTER INSERT ON campaigns_target_lists
    REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION campaigns_list_size_added();
CREATE TRIGGER campaigns_list_size_removed AFTER DELETE ON campaigns_target_lists
    REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION campaigns_list_size_removed();
CREATE TRIGGER campaigns_list_size_target_changed AFTER UPDATE ON campaigns_target
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION campaigns_list_size_target_changed();
"""
PG_DROP = """
DROP TRIGGER IF EXISTS campaigns_list_size_created ON campaigns_targetlist;
DROP TRIGGER IF EXISTS campaigns_list_size_added ON campaigns_target_lists;
DROP TRIGGER IF EXISTS campaigns_list_size_removed ON campaigns_target_lists;
DROP TRIGGER IF EXISTS campaigns_list_size_target_changed ON campaigns_target;
DROP FUNCTION IF EXISTS campaigns_list_size_created();
DROP FUNCTION IF EXISTS campaigns_list_size_added();
DROP FUNCTION IF EXISTS campaigns_list_size_removed();
DROP FUNCTION IF EXISTS campaigns_list_size_target_changed();
"""
SQLITE_TRIGGERS = [
    """CREATE TRIGGER IF NOT EXISTS campaigns_list_size_created AFTER INSERT ON campaigns_targetlist BEGIN
        INSERT OR IGNORE INTO campaigns_targetlistsize (target_list_id, workspace_id, members)
        VALUES (NEW.id, NEW.workspace_id, 0);
    END""",
    """CREATE TRIGGER IF NOT EXISTS campaigns_list_size_added AFTER INSERT ON campaigns_target_lists
    WHEN (SELECT deleted_at IS NULL FROM campaigns_target WHERE id = NEW.target_id) BEGIN
        INSERT OR IGNORE INTO campaigns_targetlistsize (target_list_id, workspace_id, members)
        SELECT id, workspace_id, 0 FROM campaigns_targetlist WHERE id = NEW.targetlist_id;
        UPDATE campaigns_targetlistsize SET members = members + 1 WHERE target_list_id = NEW.targetlist_id;
    END""",
    """CREATE TRIGGER IF NOT EXISTS campaigns_list_size_removed AFTER DELETE ON campaigns_target_lists
    WHEN (SELECT deleted_at IS NULL FROM campaigns_target WHERE id = OLD.target_id) BEGIN
        UPDATE campaigns_targetlistsize SET members = members - 1 WHERE target_list_id = OLD.targetlist_id;
    END""",
    """CREATE TRIGGER IF NOT EXISTS campaigns_list_size_target_changed AFTER UPDATE OF deleted_at ON campaigns_target
    WHEN (OLD.deleted_at IS NULL) <> (NEW.deleted_at IS NULL) BEGIN
        UPDATE campaigns_targetlistsize SET members = members + (CASE WHEN NEW.deleted_at IS NULL THEN 1 ELSE -1 END)
        WHERE target_list_id IN (SELECT targetlist_id FROM campaigns_target_lists WHERE target_id = NEW.id);
    END""",
]
SQLITE_DROP = [
    f"DROP TRIGGER IF EXISTS {name}"
    for name in (
        "campaigns_list_size_created",
        "campaigns_list_size_added",
        "campaigns_list_size_removed",
        "campaigns_list_size_target_changed",
    )
]
# Every list, its live members counted again (new lists get a row; existing rows are corrected).
RECOUNT = """
INSERT INTO campaigns_targetlistsize (target_list_id, workspace_id, members)
SELECT l.id, l.workspace_id, (
    SELECT count(*) FROM campaigns_target_lists m JOIN campaigns_target t ON t.id = m.target_id
    WHERE m.targetlist_id = l.id AND t.deleted_at IS NULL
)
FROM campaigns_targetlist l
WHERE %s IS NULL OR l.workspace_id = %s
ON CONFLICT (target_list_id) DO UPDATE SET members = EXCLUDED.members
RETURNING target_list_id, members
"""


def _installed(connection) -> bool:
    return "campaigns_targetlistsize" in connection.introspection.table_names()


def install(connection) -> None:
    """Create (or replace) the triggers; a no-op before the table exists."""
    if not _installed(connection):
        return
    execute_for_database(connection, postgresql=PG_FUNCTIONS, sqlite=SQLITE_TRIGGERS)


def uninstall(connection) -> None:
    execute_for_database(connection, postgresql=PG_DROP, sqlite=SQLITE_DROP)


def stored_sizes(*, workspace_id: int | None = None, alias: str = "default") -> dict[int, int]:
    """list id → the stored number of live members."""
    with connections[alias].cursor() as cursor:
        cursor.execute(
            "SELECT target_list_id, members FROM campaigns_targetlistsize WHERE %s IS NULL OR workspace_id = %s",
            [workspace_id, workspace_id],
        )
        return dict(cursor.fetchall())


def recount(*, workspace_id: int | None = None, alias: str = "default") -> dict[int, int]:
    """Count every list's live members again and store it; list id → the number now stored."""
    with connections[alias].cursor() as cursor:
        cursor.execute(RECOUNT, [workspace_id, workspace_id])
        return dict(cursor.fetchall())


def install_after_migrate(sender, using: str = "default", **kwargs) -> None:
    """``post_migrate`` receiver: databases built from the models alone (tests) get the triggers too."""
    install(connections[using])
