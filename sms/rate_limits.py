"""Per provider account rate limits: token buckets for requests/second, the account's messages (its
messages/minute as a rate per second) and each sender line's messages/second, and the account's back-off after
the provider itself answered "too many requests" or "busy".

A call takes its whole cost at once: one request, and the message parts of every receptor it carries (a
3-part Persian text costs 3). Every bucket holds one second's worth of its rate, so the limit is smooth, as a
provider counts it (a minute's worth at once would be refused). A limited call waits until the buckets hold the
call or half their capacity, then takes the largest prefix of its receptors they hold; the rest waits.

With ``REDIS_URL`` the buckets live in Redis (one Lua script takes from every bucket of a call atomically, so all
workers on all hosts share them); without it (the embedded default: one solo worker) they live in this process
behind a lock — no database either way. ``take`` answers 0 when the call may go (its tokens are taken) or the
seconds until it may; a refused call takes nothing.
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

# KEYS[1]: the account's back-off ("until" time); KEYS[2..]: its buckets. ARGV: now, the number of items n, the
# gathering fraction, then per bucket its rate, capacity, per-call cost and the n items' costs in it. A bucket
# grants once it holds its goal — the whole call, or ``gather`` × its capacity if that is less (never less than
# the first item) — so waiting calls go in batches, not one token at a time; then the largest prefix of the items
# that every bucket holds is taken at once. Answers {granted, wait} — wait: the seconds until every goal is held.
_SCRIPT = """
local now = tonumber(ARGV[1])
local n = tonumber(ARGV[2])
local gather = tonumber(ARGV[3])
local nb = #KEYS - 1
local backoff = tonumber(redis.call('GET', KEYS[1]) or '0')
if backoff > now then return {0, tostring(backoff - now)} end
local granted = n
local wait = 0
local state = {}
local o = 4
for i = 1, nb do
  local rate, capacity, per_call = tonumber(ARGV[o]), tonumber(ARGV[o + 1]), tonumber(ARGV[o + 2])
  local costs, total = {}, 0
  for k = 1, n do
    costs[k] = tonumber(ARGV[o + 2 + k])
    total = total + costs[k]
  end
  o = o + 3 + n
  capacity = math.max(capacity, per_call + costs[1])
  local saved = redis.call('HMGET', KEYS[i + 1], 't', 'ts')
  local tokens = tonumber(saved[1]) or capacity
  local ts = tonumber(saved[2]) or now
  if now > ts then
    tokens = math.min(capacity, tokens + (now - ts) * rate)
    ts = now
  end
  local goal = math.max(per_call + costs[1], math.min(per_call + total, gather * capacity))
  local fit, spent = 0, per_call
  if tokens + 1e-6 >= goal then
    for k = 1, n do
      if tokens + 1e-6 < spent + costs[k] then break end
      spent = spent + costs[k]
      fit = k
    end
  else
    local need = (goal - tokens) / rate
    if need > wait then wait = need end
  end
  if fit < granted then granted = fit end
  state[i] = {tokens, ts, rate, capacity, per_call, costs}
end
if granted == 0 then return {0, tostring(wait)} end
for i = 1, nb do
  local s = state[i]
  local cost = s[5]
  for k = 1, granted do cost = cost + s[6][k] end
  redis.call('HSET', KEYS[i + 1], 't', tostring(math.max(0, s[1] - cost)), 'ts', tostring(s[2]))
  redis.call('PEXPIRE', KEYS[i + 1], math.ceil(s[4] / s[3] * 1000) + 60000)
end
return {granted, '0'}
"""
_BACKOFF_SCRIPT = """
local until_ = tonumber(ARGV[1])
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if until_ > current then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) end
return 1
"""


def clock() -> float:
    """Seconds (tests replace it to make bursts deterministic)."""
    return time.time()


# A bucket holds one second's worth of its rate (at least the call's first item): the limit is smooth, as a
# provider counts "N a second", never a minute's burst at once.
BURST_SECONDS = 0.5
# A limited call waits until its buckets hold the whole call or this share of their capacity (docs/sms.md).
GATHER = 0.5


@dataclass(frozen=True)
class Bucket:
    key: str
    rate: float  # tokens per second
    capacity: float
    per_call: float  # taken once per call (requests)
    per_item: float  # 1: each item of the call adds its own cost (messages)
    line: str | None = None  # a sender line's bucket: only the items sent from that line cost

    def costs(self, costs: list[float], lines: list[str | None]) -> list[float]:
        if self.line is None:
            return [self.per_item * c for c in costs]
        return [self.per_item * c if line == self.line else 0.0 for c, line in zip(costs, lines, strict=True)]


def buckets_for(account, *, requests: int = 1, messages: bool = True, lines=()) -> list[Bucket]:
    """The buckets one provider call of ``account`` draws from (none when the account has no limits): a call
    costs ``requests`` of the requests/s bucket and, with ``messages``, its items' parts of the account's
    messages bucket (``max_messages_per_minute`` / 60 a second) and of the bucket of each sender line in
    ``lines`` (``max_line_messages_per_second``). Every bucket holds ``BURST_SECONDS`` of its rate."""
    found = []
    rps = getattr(account, "max_requests_per_second", None)
    if rps and requests:
        found.append(Bucket(f"{KEY_PREFIX}:{account.pk}:rps", float(rps), rps * BURST_SECONDS, float(requests), 0.0))
    if not messages:
        return found
    mpm = getattr(account, "max_messages_per_minute", None)
    if mpm:
        found.append(Bucket(f"{KEY_PREFIX}:{account.pk}:mpm", mpm / 60.0, mpm / 60.0 * BURST_SECONDS, 0.0, 1.0))
    per_line = getattr(account, "max_line_messages_per_second", None)
    if per_line:
        for line in sorted({line for line in lines if line}):
            key = f"{KEY_PREFIX}:{account.pk}:line:{line}"
            found.append(Bucket(key, float(per_line), per_line * BURST_SECONDS, 0.0, 1.0, line))
    return found


def backoff_key(account) -> str:
    return f"{KEY_PREFIX}:{account.pk}:backoff"


class _LocalBuckets:
    """The Lua script's rule in this process (no Redis)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.state: dict[str, tuple[float, float]] = {}
        self.backoff: dict[str, float] = {}

    def take(self, key: str, buckets: list[tuple[Bucket, list[float]]], count: int, now: float) -> tuple[int, float]:
        with self.lock:
            until = self.backoff.get(key, 0.0)
            if until > now:
                return 0, until - now
            granted, wait, fresh = count, 0.0, []
            for b, costs in buckets:
                capacity = max(b.capacity, b.per_call + costs[0])
                tokens, ts = self.state.get(b.key, (capacity, now))
                if now > ts:
                    tokens, ts = min(capacity, tokens + (now - ts) * b.rate), now
                fresh.append((b, costs, tokens, ts))
                goal = max(b.per_call + costs[0], min(b.per_call + sum(costs), GATHER * capacity))
                fit, spent = 0, b.per_call
                if tokens + 1e-6 >= goal:
                    for cost in costs:
                        if tokens + 1e-6 < spent + cost:
                            break
                        spent += cost
                        fit += 1
                else:
                    wait = max(wait, (goal - tokens) / b.rate)
                granted = min(granted, fit)
            if granted == 0:
                return 0, wait
            for b, costs, tokens, ts in fresh:
                self.state[b.key] = (max(0.0, tokens - b.per_call - sum(costs[:granted])), ts)
            return granted, 0.0

    def back_off(self, key: str, until: float) -> None:
        with self.lock:
            self.backoff[key] = max(self.backoff.get(key, 0.0), until)

    def clear(self) -> None:
        with self.lock:
            self.state.clear()
            self.backoff.clear()


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


def take_batch(
    account, costs: list[float], *, lines: list[str | None] | None = None, requests: int = 1, now: float | None = None
) -> tuple[int, float]:
    """Take one call of ``account`` carrying items of these costs (message parts per receptor) sent from these
    sender ``lines`` (None: no line's own limit), at once and shared by every worker: ``(granted, 0)`` = the
    first ``granted`` items may go (their tokens are taken); ``(0, wait)`` = nothing may go for ``wait`` seconds
    (the account backs off, or its buckets do not hold the call's goal yet). ``costs`` empty = a call without
    messages (a status request)."""
    items = [float(c) for c in costs] or [0.0]
    item_lines = list(lines) if lines is not None and costs else [None] * len(items)
    buckets = [
        (b, b.costs(items, item_lines))
        for b in buckets_for(account, requests=requests, messages=bool(costs), lines=item_lines)
    ]
    now = clock() if now is None else now
    client = _redis_client()
    if client is None:
        return LOCAL.take(backoff_key(account), buckets, len(items), now)
    args: list = [repr(now), str(len(items)), repr(GATHER)]
    for b, item_costs in buckets:
        args += [repr(b.rate), repr(b.capacity), repr(b.per_call), *[repr(c) for c in item_costs]]
    try:
        granted, wait = client.eval(
            _SCRIPT, len(buckets) + 1, backoff_key(account), *[b.key for b, _ in buckets], *args
        )
    except RedisError:  # Redis unreachable: this process's own buckets, never a lost send
        logger.warning("sms rate limit: redis unavailable, using process-local buckets")
        return LOCAL.take(backoff_key(account), buckets, len(items), now)
    return int(granted), float(wait)


def take(account, *, requests: int = 1, messages: int = 0, now: float | None = None) -> float:
    """Take the tokens of one call of ``account`` with ``messages`` parts: 0 = go; else the seconds until it
    may go (nothing taken)."""
    granted, wait = take_batch(account, [messages] if messages else [], requests=requests, now=now)
    return 0.0 if granted else max(wait, 1e-6)


def take_batch_or_wait(account, costs: list[float], *, lines: list[str | None] | None = None) -> tuple[int, float]:
    """Like ``take_batch``, but short waits (≤ ``SMS_RATE_LIMIT_MAX_WAIT_SECONDS`` in all) are slept in place of a
    deferral, so a busy account is paced rather than pushed to the next tick: when another worker took the
    tokens first, this one waits again while its waits still fit."""
    granted, wait = take_batch(account, costs, lines=lines)
    max_wait, slept = float(settings.SMS_RATE_LIMIT_MAX_WAIT_SECONDS), 0.0
    while not granted and 0 < wait and slept + wait <= max_wait:
        time.sleep(wait)
        slept += wait
        granted, wait = take_batch(account, costs, lines=lines)
    return granted, wait


def take_or_wait(account, *, requests: int = 1, messages: int = 0) -> float:
    """``take`` with the same short wait in place of a deferral."""
    granted, wait = take_batch_or_wait(account, [messages] if messages else [])
    return 0.0 if granted else max(wait, 1e-6)


def back_off(account, seconds: float | None = None) -> float:
    """The provider answered "too many requests" or "busy": no call of this account goes for ``seconds``
    (``SMS_PROVIDER_BACKOFF_SECONDS``), from any worker. Returns the seconds."""
    seconds = float(settings.SMS_PROVIDER_BACKOFF_SECONDS if seconds is None else seconds)
    until = clock() + seconds
    client = _redis_client()
    if client is not None:
        try:
            client.eval(_BACKOFF_SCRIPT, 1, backoff_key(account), repr(until), str(int(seconds * 1000) + 1000))
            return seconds
        except RedisError:
            logger.warning("sms rate limit: redis unavailable, backing off in this process only")
    LOCAL.back_off(backoff_key(account), until)
    return seconds


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
                LOCAL.backoff.pop(backoff_key(account), None)
        return
    pattern = f"{KEY_PREFIX}:{account.pk}:*" if account is not None else f"{KEY_PREFIX}:*"
    keys = list(client.scan_iter(match=pattern))
    if keys:
        client.delete(*keys)
