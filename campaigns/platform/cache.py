"""The Redis cache, degraded instead of broken while Redis is unreachable (a restart, a failover).

The cache only holds throttle counters and short-lived claims, so an outage of a few seconds must not
turn every page and API call into a 500. While Redis cannot be reached: reads miss, writes are dropped,
``add`` answers False (nothing was stored, so a claim made with it is refused: never run twice) and
``incr``/``decr`` raise ValueError like a missing key (each rate limiter treats that as "not limited").
"""

from __future__ import annotations

import logging

from django.core.cache.backends.redis import RedisCache
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

logger = logging.getLogger(__name__)
UNREACHABLE = (RedisConnectionError, RedisTimeoutError)


def _degraded(name: str, fallback):
    def method(self, *args, **kwargs):
        try:
            return getattr(RedisCache, name)(self, *args, **kwargs)
        except UNREACHABLE as exc:
            logger.warning("cache %s: Redis unreachable (%s)", name, type(exc).__name__)
            if isinstance(fallback, type) and issubclass(fallback, Exception):
                raise fallback("cache unreachable") from exc
            return fallback(args, kwargs) if callable(fallback) else fallback

    method.__name__ = name
    return method


class ResilientRedisCache(RedisCache):
    get = _degraded("get", lambda args, kwargs: kwargs.get("default", args[1] if len(args) > 1 else None))
    get_many = _degraded("get_many", {})
    has_key = _degraded("has_key", False)
    add = _degraded("add", False)
    set = _degraded("set", None)
    set_many = _degraded("set_many", [])
    touch = _degraded("touch", False)
    delete = _degraded("delete", False)
    delete_many = _degraded("delete_many", None)
    incr = _degraded("incr", ValueError)
    decr = _degraded("decr", ValueError)
