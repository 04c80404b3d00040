"""Request-form chain config → validated storage form (field errors as ValidationFailed)."""

from __future__ import annotations

from campaigns.chains import schedule as sched
from campaigns.chains.choices import InheritanceType
from campaigns.choices import CapPriority, TargetStatus
from campaigns.platform.errors import ValidationFailed
from campaigns.platform.registry import run_engine
from campaigns.platform.words import words_problem


def parse_inheritance(data) -> dict:
    if not isinstance(data, dict):
        raise ValidationFailed.field("inheritance", "ارث‌بری (نوع و زمان‌بندی) برای کمپین دنباله لازم است.")
    kind = str(data.get("type") or "").upper()
    errors: dict[str, list[str]] = {}
    if kind not in InheritanceType.values:
        errors["inheritance.type"] = [f"نوع باید یکی از {', '.join(InheritanceType.values)} باشد."]
    try:
        child = sched.parse_child_schedule(data.get("schedule"))
    except sched.ScheduleErrors as exc:
        errors.update(exc.errors)
        child = None
    if errors:
        raise ValidationFailed(details=errors)
    return {"type": kind, "schedule": sched.dump_child_schedule(child)}


def parse_when(data) -> dict | None:
    if data is None:
        return None
    try:
        return sched.dump_root_schedule(sched.parse_root_schedule(data))
    except sched.ScheduleErrors as exc:
        raise ValidationFailed(details=exc.errors) from None


def parse_goal(data) -> dict | None:
    """Conversion definition: target status in a set, a named conversion event, or a reply (any, or holding one of
    ``words`` as a whole word)."""
    if data is None:
        return None
    if not isinstance(data, dict):
        raise ValidationFailed.field("goal", "هدف باید یک شیء باشد.")
    kind = str(data.get("type") or "").upper()
    if kind == "TARGET_STATUS":
        statuses = data.get("statuses")
        if not isinstance(statuses, list) or not statuses or any(s not in TargetStatus.values for s in statuses):
            raise ValidationFailed.field("goal.statuses", f"وضعیت‌ها باید از {', '.join(TargetStatus.values)} باشند.")
        return {"type": kind, "statuses": sorted(set(statuses))}
    if kind == "EVENT":
        event = str(data.get("event") or "").strip()
        if not event or len(event) > 80:
            raise ValidationFailed.field("goal.event", "نام رویداد تبدیل لازم است (حداکثر ۸۰ نویسه).")
        return {"type": kind, "event": event}
    if kind == "REPLIED":
        words = data.get("words") or []
        problem = words_problem(words)
        if problem:
            raise ValidationFailed.field("goal.words", problem)
        return {"type": kind, "words": [" ".join(word.split()) for word in words]} if words else {"type": kind}
    raise ValidationFailed.field("goal.type", "نوع هدف باید TARGET_STATUS، EVENT یا REPLIED باشد.")


MAX_CONTROL_PERCENT = 50


def parse_action(data) -> dict | None:
    """Channel + content, and the CONTROL share (0–50 %: members held out, never sent or inherited)."""
    if data is None:
        return None
    if not isinstance(data, dict):
        raise ValidationFailed.field("chain_action", "اقدام باید یک شیء باشد.")
    channel = str(data.get("channel") or "").strip()
    content = str(data.get("content") or "")
    if len(channel) > 40 or len(content) > 2000:
        raise ValidationFailed.field("chain_action", "کانال حداکثر ۴۰ و محتوا حداکثر ۲۰۰۰ نویسه است.")
    action = {"channel": channel or None, "content": content}
    percent = data.get("control_percent")
    if percent not in (None, "", 0):
        if isinstance(percent, bool) or not isinstance(percent, int) or not 0 <= percent <= MAX_CONTROL_PERCENT:
            raise ValidationFailed.field(
                "chain_action.control_percent", f"درصد گروه کنترل عددی از ۰ تا {MAX_CONTROL_PERCENT} است."
            )
        action["control_percent"] = percent
    return action


def reasons_error(reasons: list[dict]) -> ValidationFailed:
    details: dict = {}
    for reason in reasons:
        for field_name in reason.get("fields") or ["non_field_errors"]:
            details.setdefault(field_name, []).append(reason["message"])
    details["reasons"] = reasons
    return ValidationFailed(details=details)


def parse_daily_limit(value) -> int | None:
    """A node's own daily send limit (None: the workflow's/workspace's)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 10_000_000:
        raise ValidationFailed.field("daily_limit", "سقف روزانه عددی دست‌کم ۱ است (یا خالی).")
    return value


def with_cap_priority(settings: dict | None, value) -> dict:
    """``settings`` (a node's ``journey_settings``) with its priority in the frequency cap (``normal``, the default,
    is not stored; None: normal)."""
    if value is not None and value not in CapPriority.values:
        message = "اولویت در سقف پیامک تبلیغاتی باید بالا، عادی یا پایین باشد."
        raise ValidationFailed.field("frequency_cap_priority", message)
    out = {k: v for k, v in (settings or {}).items() if k != "frequency_cap_priority"}
    if value not in (None, CapPriority.NORMAL):
        out["frequency_cap_priority"] = value
    return out


def parse_send_window(value) -> dict | None:
    """A node's own send window, validated by the engine exactly as the journey edit does (None: inherited)."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ValidationFailed.field("send_window", "بازه ارسال باید یک شیء باشد.")
    engine = run_engine()
    problem = engine.send_window_error(value) if engine and engine.send_window_error else None
    if problem:
        raise ValidationFailed.field("send_window", problem)
    return value
