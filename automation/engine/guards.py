"""Generic guards registered by the engine app (channels add their own, e.g. a blacklist)."""

from __future__ import annotations

from automation.choices import EventType
from automation.engine.registry import GUARDS, GuardDecision
from automation.engine.window import next_local_midnight


def send_window_guard(ctx) -> GuardDecision:
    """Outside the effective window → defer to the next opening (eligible_at kept)."""
    if not ctx.config.get("send_only_in_window", True) or ctx.window is None:
        return GuardDecision.allow()
    if ctx.window.is_open(ctx.now):
        return GuardDecision.allow()
    until = ctx.window.next_open_at(ctx.now)
    return GuardDecision("defer", until=until, reason="window_closed", event=EventType.DEFERRED_WINDOW)


def daily_limit_guard(ctx) -> GuardDecision:
    """No budget left today → defer to the next day's opening (the job reserves atomically later)."""
    action_channel = ctx.scratch.get("channel", "")
    remaining = ctx.budget(action_channel).remaining()
    if remaining is None or remaining > 0:
        return GuardDecision.allow()
    return GuardDecision(
        "defer", until=next_opening_tomorrow(ctx), reason="daily_limit", event=EventType.DEFERRED_LIMIT
    )


def next_opening_tomorrow(ctx):
    midnight = next_local_midnight(ctx.now, ctx.tz)
    if ctx.window is not None and ctx.config.get("send_only_in_window", True):
        return ctx.window.next_open_at(midnight) or midnight
    return midnight


def register_builtin_guards() -> None:
    GUARDS.register("send_window", send_window_guard)
    GUARDS.register("daily_limit", daily_limit_guard)
