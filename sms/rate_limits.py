"""Per provider account rate limits: token buckets for requests/second and messages/minute.

With ``REDIS_URL`` the buckets live in Redis (one Lua script takes from every bucket of a call
atomically, so all workers share them); without it (the embedded default: one solo worker) they live in
this process behind a lock — no database either way. ``take`` answers 0 when the call may go (its
tokens are taken) or the seconds until it may; a refused call takes nothing.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from dataclasses import dataclass

from django.conf import settings
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)

KEY_PREFIX = "sms-rate"

_SCRIPT = """
local now = tonumber(ARGV[1])
local wait = 0
local state = {}
for i = 1, #KEYS do
  local rate = tonumber(ARGV[(i - 1) * 3 + 2])
  local capacity = tonumber(ARGV[(i - 1) * 3 + 3])
  local cost = tonumber(ARGV[(i - 1) * 3 + 4])
  local saved = redis.call('HMGET', KEYS[i], 't', 'ts')
  local tokens = tonumber(saved[1]) or capacity
  local ts = tonumber(saved[2]) or now
  if now > ts then
    tokens = math.min(capacity, tokens + (now - ts) * rate)
    ts = now
  end
  state[i] = {tokens, ts, rate, capacity, cost}
  if tokens + 1e-9 < cost then
    local need = (cost - tokens) / rate
    if need > wait then wait = need end
  end
end
if wait > 0 then return tostring(wait) end
for i = 1, #KEYS do
  local s = state[i]
  redis.call('HSET', KEYS[i], 't', tostring(math.max(0, s[1] - s[5])), 'ts', tostring(s[2]))
  redis.call('PEXPIRE', KEYS[i], math.ceil(s[4] / s[3] * 1000) + 60000)
end
return '0'
"""


def clock() -> float:
    """Seconds (tests replace it to make bursts deterministic)."""
    return time.time()


@dataclass(frozen=True)
class Bucket:
    key: str
    rate: float  # tokens per second
    capacity: float
    cost: float


def buckets_for(account, *, requests: int = 1, messages: int = 0) -> list[Bucket]:
    """The buckets one provider call of ``account`` draws from (none when the account has no limits)."""
    found = []
    rps = getattr(account, "max_requests_per_second", None)
    if rps and requests:
        found.append(Bucket(f"{KEY_PREFIX}:{account.pk}:rps", float(rps), float(rps), float(requests)))
    mpm = getattr(account, "max_messages_per_minute", None)
    if mpm and messages:
        found.append(Bucket(f"{KEY_PREFIX}:{account.pk}:mpm", mpm / 60.0, float(mpm), float(messages)))
    return found


class _LocalBuckets:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.state: dict[str, tuple[float, float]] = {}

    def take(self, buckets: list[Bucket], now: float) -> float:
        with self.lock:
            wait, fresh = 0.0, []
            for b in buckets:
                tokens, ts = self.state.get(b.key, (b.capacity, now))
                if now > ts:
                    tokens, ts = min(b.capacity, tokens + (now - ts) * b.rate), now
                fresh.append((b, tokens, ts))
                if tokens + 1e-9 < b.cost:
                    wait = max(wait, (b.cost - tokens) / b.rate)
            if wait > 0:
                return wait
            for b, tokens, ts in fresh:
                self.state[b.key] = (max(0.0, tokens - b.cost), ts)
            return 0.0

    def clear(self) -> None:
        with self.lock:
            self.state.clear()


LOCAL = _LocalBuckets()
_redis_lock = threading.Lock()
_redis: dict[str, object] = {}


def _redis_client():
    url = settings.REDIS_URL
    if not url:
        return None
    with _redis_lock:
        if url not in _redis:
            import redis

            _redis[url] = redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)
        return _redis[url]


def take(account, *, requests: int = 1, messages: int = 0, now: float | None = None) -> float:
    """Take the tokens of one call of ``account``: 0 = go; else the seconds until it may go (nothing taken)."""
    buckets = buckets_for(account, requests=requests, messages=messages)
    if not buckets:
        return 0.0
    now = clock() if now is None else now
    client = _redis_client()
    if client is None:
        return LOCAL.take(buckets, now)
    args: list = [repr(now)]
    for b in buckets:
        args += [repr(b.rate), repr(b.capacity), repr(b.cost)]
    try:
        return float(client.eval(_SCRIPT, len(buckets), *[b.key for b in buckets], *args))
    except RedisError:  # Redis unreachable: this process's own buckets, never a lost send
        logger.warning("sms rate limit: redis unavailable, using process-local buckets")
        return LOCAL.take(buckets, now)


def take_or_wait(account, *, requests: int = 1, messages: int = 0) -> float:
    """Like ``take``, but a short wait (≤ ``SMS_RATE_LIMIT_MAX_WAIT_SECONDS``) is slept once in place of a
    deferral, so a busy account is paced rather than pushed to the next tick."""
    wait = take(account, requests=requests, messages=messages)
    max_wait = float(settings.SMS_RATE_LIMIT_MAX_WAIT_SECONDS)
    if 0 < wait <= max_wait:
        time.sleep(wait)
        wait = take(account, requests=requests, messages=messages)
    return wait


def defer_seconds(wait: float) -> int:
    """How far a limited step is pushed (whole seconds, at least one)."""
    return max(1, math.ceil(wait))


def reset(account=None) -> None:
    """Forget the buckets (of one account, or all): tests and a changed limit."""
    client = _redis_client()
    if client is None:
        if account is None:
            LOCAL.clear()
        else:
            with LOCAL.lock:
                for key in [k for k in LOCAL.state if k.startswith(f"{KEY_PREFIX}:{account.pk}:")]:
                    del LOCAL.state[key]
        return
    pattern = f"{KEY_PREFIX}:{account.pk}:*" if account is not None else f"{KEY_PREFIX}:*"
    keys = list(client.scan_iter(match=pattern))
    if keys:
        client.delete(*keys)
