"""Seeded random faults for the chaos run, one every few seconds, each recorded with its time.

Kinds: SIGKILL of an engine worker (a pool child or the whole worker), the browser worker, beat or a
gunicorn worker; a Redis restart (everything queued is lost); a PostgreSQL fast or immediate shutdown;
an engine pool process paused (SIGSTOP) past its lease and resumed; a second beat for a while; the
network to one of the providers cut.
"""

from __future__ import annotations

import os
import random
import signal
import threading
import time
from dataclasses import dataclass, field

KINDS = (
    "kill_engine_child",
    "kill_engine",
    "kill_browser",
    "kill_beat",
    "kill_web_worker",
    "redis_restart",
    "postgres_fast",
    "postgres_immediate",
    "pause_past_lease",
    "beat_twice",
    "provider_cut",
)


@dataclass
class Faults:
    stack: object
    redis: object
    postgres: object
    providers: list  # the fake Kavenegar and Melipayamak
    seed: int
    lease_seconds: float
    done: list[tuple[float, str]] = field(default_factory=list)
    db_down: list[tuple[float, float]] = field(default_factory=list)  # wall-clock intervals PostgreSQL was down
    lock: threading.Lock = field(default_factory=threading.Lock)

    def run(self, deadline: float, *, gap: tuple[float, float] = (4.0, 12.0), stop: threading.Event) -> None:
        rng = random.Random(self.seed)
        for _ in range(10_000):
            if stop.wait(rng.uniform(*gap)) or time.monotonic() >= deadline:
                return
            kind = rng.choice(KINDS)
            if self.inject(kind, rng):
                with self.lock:
                    self.done.append((time.time(), kind))

    def inject(self, kind: str, rng: random.Random) -> bool:
        procs = self.stack.procs
        engine = procs[rng.choice(("engine1", "engine2"))]
        if kind == "kill_engine_child":
            pool = engine.pool()
            if not pool:
                return False
            _signal(rng.choice(pool), signal.SIGKILL)
        elif kind == "kill_engine":
            engine.kill()
        elif kind in ("kill_browser", "kill_beat"):
            procs[kind.split("_")[1]].kill()
        elif kind == "kill_web_worker":
            pool = procs["web"].pool()
            if not pool:
                return False
            _signal(rng.choice(pool), signal.SIGKILL)
        elif kind == "redis_restart":
            self.redis.restart(down_seconds=rng.uniform(0.5, 3.0))
        elif kind.startswith("postgres_"):
            began = time.time()
            try:
                self.postgres.restart(mode=kind.split("_")[1], down_seconds=rng.uniform(0.5, 3.0))
            finally:
                self.db_down.append((began, time.time()))
        elif kind == "pause_past_lease":
            pool = engine.pool()
            if not pool:
                return False
            pid = rng.choice(pool)
            _signal(pid, signal.SIGSTOP)
            time.sleep(self.lease_seconds + rng.uniform(1.0, 4.0))
            _signal(pid, signal.SIGCONT)
        elif kind == "beat_twice":
            extra = self.stack.second_beat()
            time.sleep(rng.uniform(5.0, 15.0))
            extra.kill()
        elif kind == "provider_cut":
            rng.choice(self.providers).cut(rng.uniform(3.0, 15.0))
        return True

    def counts(self) -> dict[str, int]:
        found: dict[str, int] = {}
        for _, kind in self.done:
            found[kind] = found.get(kind, 0) + 1
        return found


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass
