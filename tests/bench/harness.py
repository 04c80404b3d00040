"""What every ``bench_*`` command shares: its own database, clean tables, real Celery workers, goals.

``bench_database()`` runs the benchmark in a database of its own, ``<name>_bench_<random>``, cloned from a
migrated template (``<name>_benchtpl_<digest of the migrations>``, built once by ``migrate`` and rebuilt
when a migration changes) and dropped at the end, so no run leaves rows behind and every run measures
equally clean tables. ``CeleryWorkers`` starts real ``celery -A config worker`` processes pointed at that
database and stops them at the end. ``GoalTable`` prints each ratio next to its target and the goal
given on the command line, and says whether the run failed one.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.db import DatabaseError, connections

TEMPLATE_LOCK_KEY = 0x62656E6368  # "bench"
MAX_NAME = 63  # PostgreSQL identifiers


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _migration_files() -> dict[str, str]:
    """``app.name`` → a digest of its file, for every migration on disk (a package's: its name only)."""
    from django.db.migrations.loader import MigrationLoader

    loader = MigrationLoader(None, ignore_no_migrations=True)
    files = {}
    for app_label, name in sorted(loader.disk_migrations):
        module = sys.modules.get(loader.disk_migrations[(app_label, name)].__module__)
        path = getattr(module, "__file__", None)
        content = b""
        if path and Path(path).is_relative_to(settings.BASE_DIR):
            content = Path(path).read_bytes()
        files[f"{app_label}.{name}"] = hashlib.sha256(content).hexdigest()[:16]
    return files


def _migrations_digest() -> str:
    """Changes whenever a migration is added or edited (project apps) or a package brings new ones."""
    from django.db.migrations.loader import MigrationLoader

    loader = MigrationLoader(None, ignore_no_migrations=True)
    digest = hashlib.sha256()
    for app_label, name in sorted(loader.disk_migrations):
        digest.update(f"{app_label}.{name}\n".encode())
        module = sys.modules.get(loader.disk_migrations[(app_label, name)].__module__)
        path = getattr(module, "__file__", None)
        if path and Path(path).is_relative_to(settings.BASE_DIR):
            digest.update(Path(path).read_bytes())
    return digest.hexdigest()[:10]


def _switch(alias: str, name: str) -> None:
    """Point the connection (and the settings) at another database of the same server."""
    from django.contrib.contenttypes.models import ContentType

    connection = connections[alias]
    connection.close()
    connection.settings_dict["NAME"] = name
    settings.DATABASES[alias]["NAME"] = name
    ContentType.objects.clear_cache()  # ids are per database


def _template(alias: str, base: str) -> str:
    """The migrated template to clone, built once per state of the migrations."""
    prefix = f"{base[: MAX_NAME - 21]}_benchtpl_"
    template = prefix + _migrations_digest()
    connection = connections[alias]
    with connection._nodb_cursor() as cursor:
        cursor.execute("SELECT pg_advisory_lock(%s)", [TEMPLATE_LOCK_KEY])
        try:
            cursor.execute("SELECT 1 FROM pg_database WHERE datname = %s", [template])
            if cursor.fetchone():
                return template
            building = f"{prefix}new_{uuid.uuid4().hex[:6]}"
            cursor.execute(f"CREATE DATABASE {_quote(building)}")
            _switch(alias, building)
            try:
                call_command("migrate", verbosity=0, interactive=False)
            finally:
                _switch(alias, base)
            # renamed only once complete: a half-migrated template is never cloned
            cursor.execute(f"ALTER DATABASE {_quote(building)} RENAME TO {_quote(template)}")
            cursor.execute(
                "SELECT datname FROM pg_database WHERE datname LIKE %s AND datname <> %s", [prefix + "%", template]
            )
            for (stale,) in cursor.fetchall():  # (data templates: "_benchdat_", not this prefix)
                with contextlib.suppress(DatabaseError):  # still being cloned by another run: next time
                    cursor.execute(f"DROP DATABASE IF EXISTS {_quote(stale)}")
            return template
        finally:
            cursor.execute("SELECT pg_advisory_unlock(%s)", [TEMPLATE_LOCK_KEY])


def _forward_source(cursor, stale_prefix: str, files: dict[str, str]) -> str | None:
    """A data template of the same rows under older migrations that the current ones only extend: every
    migration it recorded is on disk unchanged (an edited migration, or one removed, means a fresh build)."""
    cursor.execute(
        "SELECT datname, shobj_description(oid, 'pg_database') FROM pg_database "
        "WHERE datname LIKE %s AND datname NOT LIKE %s ORDER BY oid DESC",
        [stale_prefix + "%", "%\\_new\\_%"],
    )
    for datname, comment in cursor.fetchall():
        try:
            recorded = json.loads(comment or "")["migrations"]
        except (ValueError, KeyError, TypeError):
            continue
        if isinstance(recorded, dict) and all(files.get(label) == digest for label, digest in recorded.items()):
            return datname
    return None


def _data_template(alias: str, base: str, migrated: str, key: str, seed: Callable[[], None], rebuild: bool) -> str:
    """A template holding the rows ``seed`` writes (cloned from the migrated one), built once per key.

    When the migrations only grew since a data template of the same key was built, that template is cloned and
    migrated forward (as a production database would be) instead of seeded again; ``rebuild`` always seeds."""
    name = f"{base[: MAX_NAME - 34]}_benchdat_{key[:13]}_{migrated[-10:]}"
    stale_prefix = name[: -len(migrated[-10:])]  # the same rows under other migrations
    files = _migration_files()
    connection = connections[alias]
    with connection._nodb_cursor() as cursor:
        cursor.execute("SELECT pg_advisory_lock(%s)", [TEMPLATE_LOCK_KEY + 1])
        try:
            cursor.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name])
            if cursor.fetchone():
                if not rebuild:
                    return name
                cursor.execute(f"DROP DATABASE {_quote(name)} WITH (FORCE)")
            building = f"{name[: MAX_NAME - 11]}_new_{uuid.uuid4().hex[:6]}"
            source = None if rebuild else _forward_source(cursor, stale_prefix, files)
            template = _quote(source or migrated)
            cursor.execute(f"CREATE DATABASE {_quote(building)} TEMPLATE {template}{_file_copy(connection)}")
            _switch(alias, building)
            try:
                if source:
                    call_command("migrate", verbosity=0, interactive=False)
                    with connection.cursor() as inner:
                        inner.execute("VACUUM ANALYZE")
                else:
                    seed()
            except BaseException:
                _switch(alias, base)
                cursor.execute(f"DROP DATABASE IF EXISTS {_quote(building)} WITH (FORCE)")
                raise
            _switch(alias, base)
            comment = json.dumps({"migrations": files, "forward_from": source})
            cursor.execute(f"COMMENT ON DATABASE {_quote(building)} IS %s", [comment])
            cursor.execute(f"ALTER DATABASE {_quote(building)} RENAME TO {_quote(name)}")
            cursor.execute(
                "SELECT datname FROM pg_database WHERE datname LIKE %s AND datname <> %s", [stale_prefix + "%", name]
            )
            for (stale,) in cursor.fetchall():
                with contextlib.suppress(DatabaseError):
                    cursor.execute(f"DROP DATABASE IF EXISTS {_quote(stale)}")
            return name
        finally:
            cursor.execute("SELECT pg_advisory_unlock(%s)", [TEMPLATE_LOCK_KEY + 1])


def _file_copy(connection) -> str:
    """PostgreSQL 15+: clone by copying the files (one checkpoint) instead of writing the template through WAL."""
    return " STRATEGY FILE_COPY" if connection.pg_version >= 150000 else ""


@contextlib.contextmanager
def bench_database(
    alias: str = "default", *, data: tuple[str, Callable[[], None]] | None = None, rebuild: bool = False
) -> Iterator[str]:
    """Run the block in a fresh, migrated database of its own; dropped afterwards (PostgreSQL).

    ``data=(key, seed)`` (key: up to 13 characters): the database also holds the rows ``seed()`` wrote once into a
    second template (one per key and state of the migrations, kept for the next run; ``rebuild`` writes it again).
    """
    connection = connections[alias]
    if connection.vendor != "postgresql":
        raise RuntimeError("benchmarks need PostgreSQL (DATABASE_URL=postgres://…)")
    base = connection.settings_dict["NAME"]
    template = _template(alias, base)
    if data is not None:
        template = _data_template(alias, base, template, *data, rebuild=rebuild)
    name = f"{base[: MAX_NAME - 15]}_bench_{uuid.uuid4().hex[:8]}"
    with connection._nodb_cursor() as cursor:
        cursor.execute(f"CREATE DATABASE {_quote(name)} TEMPLATE {_quote(template)}{_file_copy(connection)}")
        # The clone's writes (WAL of a multi-GB template, dirty pages) are flushed now, not by checkpoints that
        # would land in the middle of the measurement (a role without the right to checkpoint goes on without).
        with contextlib.suppress(DatabaseError):
            cursor.execute("CHECKPOINT")
    _switch(alias, name)
    try:
        yield name
    finally:
        _switch(alias, base)
        with connection._nodb_cursor() as cursor:
            cursor.execute(f"DROP DATABASE IF EXISTS {_quote(name)} WITH (FORCE)")


def database_url(alias: str = "default") -> str:
    """The connection as a DATABASE_URL for a child process (the benchmark's own database)."""
    d = connections[alias].settings_dict
    auth = d["USER"] + (f":{d['PASSWORD']}" if d.get("PASSWORD") else "")
    return f"postgres://{auth}@{d['HOST'] or 'localhost'}:{d['PORT'] or 5432}/{d['NAME']}"


def vacuum_analyze(*tables: str, alias: str = "default") -> None:
    """Clean statistics and visibility maps before measuring (outside any transaction)."""
    with connections[alias].cursor() as cursor:
        for table in tables:
            cursor.execute(f"VACUUM ANALYZE {_quote(table)}")


def delete_queue(name: str) -> None:
    """Remove a queue of this run (and its bindings) from the broker."""
    from celery import current_app
    from kombu import Exchange, Queue

    with current_app.connection_for_write() as conn:
        channel = conn.default_channel
        Queue(name, Exchange(name), routing_key=name)(channel).declare()  # the channel learns its bindings
        channel.queue_delete(name)


class CeleryWorkers:
    """Real ``celery -A config worker`` processes on the configured broker, stopped on exit."""

    def __init__(self, *, queues: str, concurrency: int, env: dict[str, str], count: int = 1, ready: str = "") -> None:
        self.queues, self.concurrency, self.env, self.count = queues, concurrency, env, count
        self.ready = ready  # a line the worker logs once its own set-up is done, besides Celery's " ready."
        self.processes: list[subprocess.Popen] = []
        self.logs: list[Path] = []
        self._dir = tempfile.TemporaryDirectory(prefix="bench-workers-")

    def __enter__(self) -> CeleryWorkers:
        root = Path(settings.BASE_DIR)
        for i in range(self.count):
            log_path = Path(self._dir.name) / f"worker-{i}.log"
            command = [sys.executable, "-m", "celery", "-A", "config", "worker", "-Q", self.queues]
            command += ["-c", str(self.concurrency), "-n", f"bench-{i}-{uuid.uuid4().hex[:6]}@%h", "-l", "INFO"]
            command += ["--without-heartbeat", "--without-gossip", "--without-mingle"]
            env = dict(os.environ, PYTHONPATH=str(root), **self.env)
            with open(log_path, "w") as log:  # the child keeps its own descriptor
                process = subprocess.Popen(command, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT)
            self.processes.append(process)
            self.logs.append(log_path)
        try:
            self._wait_ready()
        except BaseException:
            self.__exit__()
            raise
        return self

    def _wait_ready(self, timeout: float = 180) -> None:
        deadline = time.monotonic() + timeout
        pending = set(range(self.count))
        while pending and time.monotonic() < deadline:
            for i in list(pending):
                text = self.logs[i].read_text()
                if " ready." in text and self.ready in text:
                    pending.discard(i)
                elif self.processes[i].poll() is not None:
                    raise RuntimeError("a Celery worker exited while starting:\n" + self.tail(i))
            time.sleep(0.2)
        if pending:
            raise RuntimeError("Celery workers did not start in time:\n" + self.tail(min(pending)))

    def tail(self, i: int = 0, chars: int = 3000) -> str:
        return self.logs[i].read_text()[-chars:]

    def alive(self) -> bool:
        return all(p.poll() is None for p in self.processes)

    def __exit__(self, *exc) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.terminate()  # warm shutdown: the current task finishes
        for process in self.processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self._dir.cleanup()


@dataclass
class Goal:
    label: str
    value: float  # a ratio: 0.25 = 25 %, 10.0 = 10×
    target: str  # the performance target, as documented
    required: float | None = None  # from the command line (--min-ratio …): the run fails below it
    percent: bool = True

    def shown(self, value: float) -> str:
        return f"{100 * value:.0f} %" if self.percent else f"{value:.2f}×"

    @property
    def failed(self) -> bool:
        return self.required is not None and self.value < self.required


@dataclass
class GoalTable:
    goals: list[Goal] = field(default_factory=list)

    def add(self, *args, **kwargs) -> Goal:
        goal = Goal(*args, **kwargs)
        self.goals.append(goal)
        return goal

    def lines(self) -> list[str]:
        rows = [("ratio", "measured", "target", "required here", "")]
        for g in self.goals:
            required = f">= {g.shown(g.required)}" if g.required is not None else "-"
            verdict = "" if g.required is None else ("FAIL" if g.failed else "ok")
            rows.append((g.label, g.shown(g.value), g.target, required, verdict))
        widths = [max(len(r[i]) for r in rows) for i in range(5)]
        return ["  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip() for row in rows]

    def failures(self) -> list[Goal]:
        return [g for g in self.goals if g.failed]

    def report(self, out: Callable[[str], None], stderr) -> None:
        """Print the table; below a required ratio, name the goals on stderr and exit 1 (the command fails)."""
        for line in self.lines():
            out(line)
        if self.failures():
            stderr.write("below the goal: " + ", ".join(g.label for g in self.failures()))
            sys.exit(1)
