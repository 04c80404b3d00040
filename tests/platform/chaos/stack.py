"""The chaos run's processes: gunicorn, two prefork engine workers, a browser worker and beat.

Each process is started in its own session (process group = its pid), so a fault or the final stop hits
exactly that process tree — never anything this run did not start. ``Stack.supervise`` starts again what
died, like systemd or honcho would in production.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.platform.faults.processes import ROOT, children, free_port


class Proc:
    def __init__(self, name: str, command: list[str], env: dict, log_dir: Path) -> None:
        self.name, self.command, self.env = name, command, env
        self.log_path = log_dir / f"{name}.log"
        self.process: subprocess.Popen | None = None
        self.starts = 0
        self.stopped_until = 0.0  # a SIGSTOPped process is alive; supervise leaves it alone

    def start(self) -> None:
        log = open(self.log_path, "a")  # the child keeps it; closed below for this process
        log.write(f"\n--- start {self.starts + 1} at {time.time():.1f}\n")
        log.flush()
        self.process = subprocess.Popen(
            self.command, cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        log.close()
        self.starts += 1

    @property
    def pid(self) -> int:
        return self.process.pid if self.process else 0

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def pool(self) -> list[int]:
        """The children (prefork pool processes, gunicorn workers)."""
        return children(self.pid) if self.alive() else []

    def signal_group(self, sig: int) -> None:
        if self.alive():
            try:
                os.killpg(self.pid, sig)
            except ProcessLookupError:
                pass

    def kill(self) -> None:
        """SIGKILL the whole process tree of this service (what a lost machine or an OOM kill does)."""
        self.signal_group(signal.SIGKILL)
        if self.process is not None:
            self.process.wait(timeout=30)

    def stop(self) -> None:
        if not self.alive():
            return
        self.signal_group(signal.SIGCONT)
        self.signal_group(signal.SIGTERM)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            pass
        self.kill()

    def tail(self, chars: int = 2000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-chars:]
        except OSError:
            return ""


def celery(*args: str) -> list[str]:
    return [sys.executable, "-m", "celery", "-A", "config", *args]


class Stack:
    def __init__(self, env: dict, log_dir: Path) -> None:
        self.env, self.log_dir = env, log_dir
        # Beat paces the periodic jobs in real seconds (BEAT_SCHEDULE_SCALE) and keeps the real clock: its
        # DatabaseScheduler stores each job's last run and compares it with Celery's own (real) time, so on
        # the run's calendar clock a restarted beat would find every job days away. The jobs it sends read
        # the calendar clock where they run.
        self.beat_env = {k: v for k, v in env.items() if k != "CHAOS_CLOCK"}
        self.web_port = free_port()
        self.schedule_dir = log_dir / "beat"
        self.schedule_dir.mkdir(exist_ok=True)
        quiet = ["--without-heartbeat", "--without-gossip", "--without-mingle", "-l", "INFO"]
        engine = ["worker", "-Q", "default,engine,sms", "--pool=prefork", "-c", "2", *quiet]
        self.procs: dict[str, Proc] = {
            "web": Proc(
                "web",
                [
                    *(sys.executable, "-m", "gunicorn", "config.wsgi", "--workers", "2", "--timeout", "30"),
                    *("--bind", f"127.0.0.1:{self.web_port}", "--graceful-timeout", "5"),
                ],
                env,
                log_dir,
            ),
            "engine1": Proc("engine1", celery(*engine, "-n", "chaos-engine1@%h"), env, log_dir),
            "engine2": Proc("engine2", celery(*engine, "-n", "chaos-engine2@%h"), env, log_dir),
            "browser": Proc(
                "browser",
                celery("worker", "-Q", "browser", "--pool=prefork", "-c", "1", *quiet, "-n", "chaos-browser@%h"),
                env,
                log_dir,
            ),
            "beat": Proc("beat", celery("beat", "-l", "INFO", "--pidfile="), self.beat_env, log_dir),
        }
        self.restarts = 0  # processes found dead and started again (after a fault or on their own)

    @property
    def web_url(self) -> str:
        return f"http://127.0.0.1:{self.web_port}"

    def start(self) -> None:
        for proc in self.procs.values():
            proc.start()

    def supervise(self) -> list[str]:
        """Start again every service found dead; the names of those restarted."""
        restarted = []
        for name, proc in self.procs.items():
            if not proc.alive():
                proc.start()
                self.restarts += 1
                restarted.append(name)
        return restarted

    def second_beat(self) -> Proc:
        proc = Proc(
            f"beat-extra-{time.monotonic_ns()}", celery("beat", "-l", "INFO", "--pidfile="), self.beat_env, self.log_dir
        )
        proc.start()
        return proc

    def stop(self) -> None:
        for proc in self.procs.values():
            proc.stop()
