"""The SMS step's guards (circuit breaker, blacklist) and the per-job reads they and the send share."""

from __future__ import annotations

from automation.choices import EventType
from automation.engine.registry import GuardDecision
from sms import channel
from sms.providers import provider_for


def mobile(subject) -> str | None:
    return getattr(subject, "mobile", None) or None


def primary_kind(ctx) -> str:
    account = cached_settings(ctx).primary_account
    return account.provider if account is not None else ""


def answerable(ctx) -> bool:
    """Whether every account this step's send may call can later be asked about its local id (the step's
    provider, or the primary and the fallback used when the primary is unusable)."""
    chosen = ctx.node.config.get("provider")
    provider = provider_for(chosen or primary_kind(ctx))
    if provider is None or not provider.has_status_query:
        return False
    settings = cached_settings(ctx)
    if chosen or not settings.fallback_account_id:
        return True
    fallback = provider_for(settings.fallback_account.provider)
    return fallback is not None and fallback.has_status_query


def cached_settings(ctx):
    """The workspace's SMS settings, read once per job (reloaded after the circuit changes)."""
    key = ("sms_settings", ctx.workspace.id)
    if key not in ctx.cache:
        ctx.cache[key] = channel.sms_settings(ctx.workspace.id)
    return ctx.cache[key]


def circuit_breaker_guard(ctx) -> GuardDecision:
    until = cached_settings(ctx).paused_until
    if until is None or until <= ctx.now:
        return GuardDecision.allow()
    return GuardDecision("defer", until=until, reason="channel_paused", event=EventType.DEFERRED_CHANNEL)


def _blacklisted(ctx, number: str | None) -> bool:
    """Blacklist lookup; one query for the whole batch's numbers when the runner batches."""
    if not number:
        return False
    subjects = ctx.cache.get("batch_subjects")
    if not subjects:
        return channel.is_blacklisted(ctx.workspace.id, number)
    key = ("sms_blacklisted", ctx.workspace.id)
    if key not in ctx.cache:
        numbers = [mobile(s) for s in subjects if getattr(s, "workspace_id", None) == ctx.workspace.id]
        ctx.cache[key] = channel.blacklisted_numbers(ctx.workspace.id, [n for n in numbers if n])
        ctx.cache[(*key, "numbers")] = set(numbers)
    if number not in ctx.cache[(*key, "numbers")]:  # the number changed since the batch started
        return channel.is_blacklisted(ctx.workspace.id, number)
    return number in ctx.cache[key]


def blacklist_guard(ctx) -> GuardDecision:
    if _blacklisted(ctx, mobile(ctx.subject)):
        return GuardDecision("block", reason="blacklisted")
    return GuardDecision.allow()
