"""Redis restarted while the scheduler dispatches: a private ``redis-server`` (no persistence, like the
CI's) is the broker of the tick process and of a real engine worker, and is killed and started again
three times while the journey sends. Whatever sat in the broker is gone; the leases bring those
executions back. Nothing lost, nothing doubled: every execution completes with one message."""

import pytest
from django.conf import settings

from . import journey_run
from .processes import RedisServer, database_url

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

RESTARTS = 3


def test_redis_restarts_during_dispatch_lose_and_double_nothing(tmp_path):
    if settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
        pytest.skip("the worker and the tick process must reach the test database (PostgreSQL)")
    redis = RedisServer(tmp_path)
    if redis.binary is None:
        pytest.skip("redis-server is not installed")
    redis.start()

    def restarts() -> None:
        for _ in range(RESTARTS):
            redis.restart(down_seconds=1.0)  # SIGKILL: queued messages and unacked deliveries are lost
            journey_run.time.sleep(1.5)

    try:
        outcome = journey_run.run(
            tmp_path, database_url=database_url(), broker_url=redis.url, targets=40, disrupt=restarts
        )
    finally:
        redis.stop()
    print("\n" + outcome.line("redis-restart", redis.restarts))
    assert redis.restarts == RESTARTS
    assert outcome.done, outcome.line("redis-restart", redis.restarts) + "\n" + outcome.logs
    assert (outcome.lost, outcome.duplicates, outcome.resends) == (0, 0, 0), outcome.line("redis", RESTARTS)
    assert outcome.messages == 40
    assert outcome.report["executions"] == {"completed": 40}
    assert outcome.report["submitted_twice"] == 0
