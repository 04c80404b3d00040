"""The fake Kavenegar and Melipayamak of the fault tests with a bad day: random latency, timeouts after
accepting, 5xx and credit errors, and a network cut (every request dropped unanswered) that the fault
schedule switches on. One instance per provider, each on its own loopback port.

``accepted_at`` records when each message was accepted (what a customer's phone would show; real time), so
the checks can compare sends against send windows, daily limits and opt-outs. Kavenegar's messages are
keyed by our local id; Melipayamak knows none, its messages are ``meli-<recId>``.
"""

from __future__ import annotations

import random
import threading
import time

from sms.providers.kavenegar import Fixtures as Kavenegar
from sms.providers.melipayamak import Fixtures as Melipayamak
from tests.sms.fake_provider import FakeProvider


class ChaoticProvider:
    def __init__(
        self,
        seed: int,
        *,
        kind: str = "kavenegar",
        port: int = 0,
        latency: float = 0.3,
        accept_timeout: float = 0.02,
        error_5xx: float = 0.03,
    ):
        self.kind = kind
        self.rng = random.Random(seed)
        self.fake = FakeProvider(hold_seconds=4.0, port=port)  # longer than SMS_HTTP_TIMEOUT: the answer never arrives
        self.latency, self.accept_timeout, self.error_5xx = latency, accept_timeout, error_5xx
        self.credit_error = 0.002
        self.cut_until = 0.0
        self.lock = threading.Lock()
        self.accepted_at: dict[str, float] = {}
        self.counts = {"send_requests": 0, "dropped": 0, "accept_timeouts": 0, "errors_5xx": 0, "credit_errors": 0}
        self.fake.on_send = self._on_send
        self.fake.on_accept = self._on_accept
        if kind == "melipayamak":
            accept = self.fake._accept_meli

            def accept_meli(form: dict) -> dict:
                entry = accept(form)
                with self.fake.lock:  # the text too: without a local id, a message is told apart by what it says
                    self.fake.messages[f"meli-{entry['recId']}"]["text"] = form.get("text", "")
                with self.lock:
                    self.accepted_at[f"meli-{entry['recId']}"] = time.time()
                return entry

            self.fake._accept_meli = accept_meli

    @property
    def url(self) -> str:
        return self.fake.url

    def cut(self, seconds: float) -> None:
        self.cut_until = time.monotonic() + seconds

    def calm(self) -> None:
        """No more injected trouble (the settle phase)."""
        self.cut_until = 0.0
        self.accept_timeout = self.error_5xx = self.credit_error = 0.0

    def _on_send(self, form: dict, client_port: int) -> str | None:
        with self.lock:
            self.counts["send_requests"] += 1
            if time.monotonic() < self.cut_until:
                self.counts["dropped"] += 1
                return "drop"
            roll = self.rng.random()
            delay = self.rng.uniform(0, self.latency)
            answer = None
            if roll < self.accept_timeout:
                answer, key = "accept_timeout", "accept_timeouts"
            elif roll < self.accept_timeout + self.error_5xx:
                answer, key = Kavenegar.error(self.rng.choice((500, 502, 503))), "errors_5xx"
            elif roll < self.accept_timeout + self.error_5xx + self.credit_error:
                credit = Melipayamak.send(2) if self.kind == "melipayamak" else Kavenegar.error(418)
                answer, key = credit, "credit_errors"
            if answer is not None:
                self.counts[key] += 1
                with self.fake.lock:
                    self.fake.responses.insert(0, answer)
        time.sleep(delay)
        return None

    def _on_accept(self, local_id: str | None) -> None:
        if local_id:  # Kavenegar (Melipayamak's acceptances are recorded by recId above)
            with self.lock:
                self.accepted_at.setdefault(local_id, time.time())

    def messages(self) -> dict[str, dict]:
        with self.fake.lock:
            return {k: dict(v) for k, v in self.fake.messages.items()}

    def close(self) -> None:
        self.fake.close()
