"""The run claim of a lease: the key a browser worker sets in the shared cache (``SET NX``) before it starts a
payload, and which the lease reclaim reads to tell a payload a worker took from one no worker ever started.

The embedded default (no ``REDIS_URL``) has no shared cache: each process keeps its own local memory, so a
worker's claim is invisible to the process that reclaims leases. There the claims cannot answer and every
expired lease counts as started (its attempt is spent, as when Redis is down) — never as "not started",
which would give a killed worker's attempt back forever.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.core.cache import cache

logger = logging.getLogger("workers.dispatch")


def run_claim_key(lease_id) -> str:
    return f"browser-run:{lease_id}"


PROCESS_LOCAL_CACHES = ("django.core.cache.backends.locmem.", "django.core.cache.backends.dummy.")


def claims_are_shared() -> bool:
    """Whether a claim one process makes is seen by the others (not the embedded default's local memory)."""
    return not settings.CACHES["default"]["BACKEND"].startswith(PROCESS_LOCAL_CACHES)


def started_leases(lease_ids: list) -> set[str] | None:
    """The lease ids some worker claimed (started), or None when the cache cannot answer (assume all were)."""
    ids = [str(lease) for lease in lease_ids if lease]
    if not ids:
        return set()
    if not claims_are_shared():
        return None
    keys = {run_claim_key(lease): lease for lease in ids}
    try:
        found = cache.get_many(list(keys))
    except Exception:  # the claim store is down: every lease counts as started (its attempt is spent)
        logger.warning("run claims could not be read; expired leases count as started", exc_info=True)
        return None
    return {keys[key] for key in found}
