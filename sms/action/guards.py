"""The SMS step's guards (circuit breaker, blacklist) and the per-job reads they and the send share."""

from __future__ import annotations

from automation.choices import EventType
from automation.engine.registry import GuardDecision
from sms import channel, telecom_blocks
from sms.providers import provider_for


def mobile(subject) -> str | None:
    return getattr(subject, "mobile", None) or None


def primary_kind(ctx) -> str:
    account = cached_settings(ctx).primary_account
    return account.provider if account is not None else ""


def answerable(ctx) -> bool:
    """Whether every account this step's send may call can later be asked about its local id (the step's
    provider, or the primary and the fallback used when the primary is unusable); read once per job."""
    chosen = ctx.node.config.get("provider")
    key = ("sms_answerable", ctx.workspace.id, chosen or "")
    if key not in ctx.cache:
        ctx.cache[key] = _answerable(ctx, chosen)
    return ctx.cache[key]


def _answerable(ctx, chosen: str | None) -> bool:
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


def advertising(ctx) -> bool:
    """Whether this step sends through an advertising line (the account it calls first), read once per job."""
    kind = ctx.node.config.get("provider") or ""
    key = ("sms_advertising", ctx.workspace.id, kind)
    if key not in ctx.cache:
        ctx.cache[key] = telecom_blocks.is_advertising(channel.pick_account(cached_settings(ctx), kind or None))
    return ctx.cache[key]


def ad_blocked(ctx, number: str) -> bool:
    """The number refuses advertising (remembered from a provider's answer) and this step's line advertises; one
    query for the whole batch's numbers when the runner batches."""
    if not advertising(ctx):
        return False
    subjects = ctx.cache.get("batch_subjects")
    key = ("sms_ad_blocked", ctx.workspace.id)
    if subjects and key not in ctx.cache:
        numbers = [mobile(s) for s in subjects if getattr(s, "workspace_id", None) == ctx.workspace.id]
        ctx.cache[key] = telecom_blocks.blocked_numbers(ctx.workspace.id, [n for n in numbers if n])
        ctx.cache[(*key, "numbers")] = set(numbers)
    if key not in ctx.cache or number not in ctx.cache[(*key, "numbers")]:
        return bool(telecom_blocks.blocked_numbers(ctx.workspace.id, [number]))
    return number in ctx.cache[key]
