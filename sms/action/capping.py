"""The checks a promotional send (an advertising line) meets before its attempt is written: a quiet day makes it
wait for the next allowed day; the frequency cap across campaigns makes it wait for the period that frees it (the
next day, Jalali week or month) or skip (``on_frequency_cap``; docs/sms.md "Frequency cap", "Quiet days")."""

from __future__ import annotations

import zoneinfo
from datetime import UTC, datetime, time

from automation.choices import EventType
from automation.engine.registry import ActionResult, ResultStatus
from automation.engine.window import local_day, next_local_midnight
from sms import frequency_cap, quiet_days
from sms.action.attempts import Plan
from sms.action.guards import advertising, cached_settings


def _opening(ctx, moment):
    """The first moment at or after ``moment`` the step may send (its send window, if it keeps to it)."""
    if ctx.window is not None and ctx.node.config.get("send_only_in_window", True):
        return ctx.window.next_open_at(moment) or moment
    return moment


def quiet_day_result(ctx) -> ActionResult | None:
    """Today is a quiet day of the workspace and this step advertises: wait for the next allowed day."""
    settings = cached_settings(ctx)
    if not (settings.quiet_fridays or settings.quiet_days) or not advertising(ctx):
        return None
    if not quiet_days.quiet_test(settings)(local_day(ctx.now, ctx.tz)):
        return None
    start = quiet_days.next_allowed_start(settings, ctx.now, ctx.tz) or next_local_midnight(ctx.now, ctx.tz)
    return ActionResult(
        ResultStatus.DEFERRED,
        until=_opening(ctx, start),
        message="quiet day",
        data={"event": EventType.DEFERRED_WINDOW, "reason": quiet_days.REASON},
    )


def capped_result(ctx, refused: frozenset[str] = frozenset()) -> ActionResult:
    """A capped step skips (``on_frequency_cap: skip``) or waits for the start of the period that frees it: the
    next workspace day, Jalali week or month — the longest of the rules that refused it — then its send window."""
    if ctx.node.config.get("on_frequency_cap") == frequency_cap.SKIP:
        data = {"error": frequency_cap.REASON, "event": EventType.SKIPPED}
        return ActionResult(ResultStatus.SKIPPED, message="frequency cap", data=data)
    free_day = frequency_cap.wait_until_day(refused, local_day(ctx.now, ctx.tz))
    zone = zoneinfo.ZoneInfo(ctx.tz)
    until = datetime.combine(free_day, time.min).replace(tzinfo=zone).astimezone(UTC)
    return ActionResult(
        ResultStatus.DEFERRED,
        until=_opening(ctx, until),
        message="frequency cap",
        data={"event": EventType.DEFERRED_WINDOW, "reason": frequency_cap.REASON},
    )


def take_units(plans: list[Plan]) -> list[ActionResult | None]:
    """One unit of every rule of the cap for each plan's first attempt of an advertising step (None: it may go; a
    result: it is capped). The units are taken per workspace and day, in rounds of numbers (high priority first)."""
    results: list[ActionResult | None] = [None] * len(plans)
    groups: dict[tuple, list[int]] = {}
    for index, plan in enumerate(plans):
        ctx = plan.ctx
        rules = tuple(frequency_cap.rules_of(cached_settings(ctx)))
        if not rules or plan.attempt_number != 1 or not advertising(ctx):
            continue
        groups.setdefault((ctx.workspace.id, local_day(ctx.now, ctx.tz), rules), []).append(index)
    for (workspace_id, day, rules), members in groups.items():
        refusals = frequency_cap.take(
            workspace_id=workspace_id,
            phones=[plans[i].phone for i in members],
            day=day,
            rules=list(rules),
            priorities=[frequency_cap.priority_of(plans[i].ctx.campaign) for i in members],
        )
        units = frequency_cap.units_of(rules, day)
        for index, refused in zip(members, refusals, strict=True):
            if refused:
                results[index] = capped_result(plans[index].ctx, refused)
            else:
                plans[index].cap_units = units
    return results


def give_back(plans: list[Plan]) -> None:
    """The units of plans whose send did not go."""
    groups: dict[tuple, list[str]] = {}
    for plan in plans:
        if plan.cap_units:
            groups.setdefault((plan.ctx.workspace.id, plan.cap_units), []).append(plan.phone)
            plan.cap_units = ()
    for (workspace_id, units), phones in groups.items():
        frequency_cap.give_back(workspace_id=workspace_id, phones=phones, units=units)
