"""Page form fields ↔ the request shapes the chain services take, and readable Persian schedule text.

The pages post flat form fields; these helpers build the same dicts the API sends
(``when``, ``goal``, ``inheritance``, ``chain_action``) so the services validate them
exactly once, and turn stored values back into form values for editing.
"""

from __future__ import annotations

from datetime import date

from campaigns.chains import schedule as sched
from campaigns.chains.choices import InheritanceType
from campaigns.choices import TargetStatus
from campaigns.platform.channels import chain_channels
from campaigns.platform.jalali import fa_digits, parse_jalali, to_jalali
from campaigns.platform.text import typed_int

WEEKDAY_LABELS = {
    "SAT": "شنبه",
    "SUN": "یکشنبه",
    "MON": "دوشنبه",
    "TUE": "سه‌شنبه",
    "WED": "چهارشنبه",
    "THU": "پنجشنبه",
    "FRI": "جمعه",
}
WEEK_LABELS = {"1": "اول", "2": "دوم", "3": "سوم", "4": "چهارم", "LAST": "آخر"}
ROOT_TYPES = [("", "بدون زمان‌بندی تکرار"), ("DAILY", "روزانه"), ("WEEKLY", "هفتگی"), ("MONTHLY", "ماهانه")]
CHILD_TYPES = [("AFTER_INTERVAL", "پس از فاصله"), ("FIXED_DAY_IN_PERIOD", "روز ثابت در دوره")]


def channel_choices() -> list[tuple[str, str]]:
    """The channels a chain step can send over: every installed channel with an engine action."""
    return [(channel.name, channel.label) for channel in chain_channels()]


def default_channel() -> str:
    """What a new chain step sends over: the first such channel ("" when none is installed)."""
    choices = channel_choices()
    return choices[0][0] if choices else ""


_LATIN = str.maketrans("۰۱۲۳۴۵۶۷۸۹٠١٢٣٤٥٦٧٨٩", "01234567890123456789")


def latin(value) -> str:
    """Numbers typed with Persian/Arabic digits read as Latin ones."""
    return str(value or "").strip().translate(_LATIN)


def _int_or_raw(value: str):
    """Numeric inputs stay numbers for the services (which name the field when it is wrong)."""
    text = latin(value)
    number = typed_int(text)
    return text if number is None else number


def _time(post, name: str) -> str:
    return latin(post.get(name))


def _jalali_date(post, name: str, field_name: str, errors: dict) -> str | None:
    """A typed Jalali date ("1405/08/10", Persian or Latin digits) → ISO; a Persian message when it is not one."""
    try:
        parsed = parse_jalali(post.get(name) or "")
    except ValueError as exc:
        errors[field_name] = str(exc)
        return None
    return parsed.date().isoformat() if parsed else None


def when_from_post(post, errors: dict | None = None) -> dict | None:
    kind = (post.get("when_type") or "").strip().upper()
    if not kind:
        return None
    errors = {} if errors is None else errors
    when: dict = {"type": kind, "time": _time(post, "when_time")}
    for name, key in (("when_start", "start_date"), ("when_end", "end_date")):
        value = _jalali_date(post, name, "when", errors)
        if value:
            when[key] = value
    if kind == "WEEKLY":
        when["weekdays"] = post.getlist("when_weekdays")
    if kind == "MONTHLY":
        when["day"] = "LAST" if post.get("when_day_last") else latin(post.get("when_day"))
    return when


def goal_from_post(post) -> dict | None:
    kind = (post.get("goal_type") or "").strip().upper()
    if kind == "TARGET_STATUS":
        return {"type": kind, "statuses": post.getlist("goal_statuses")}
    if kind == "EVENT":
        return {"type": kind, "event": (post.get("goal_event") or "").strip()}
    if kind == "REPLIED":
        words = [w.strip() for w in (post.get("goal_words") or "").replace("،", ",").split(",") if w.strip()]
        return {"type": kind, "words": words}
    return None


def inheritance_schedule_from_post(post) -> dict:
    kind = (post.get("schedule_type") or "").strip().upper()
    schedule: dict = {"type": kind, "run_time": _time(post, "run_time")}
    if kind == "AFTER_INTERVAL":
        schedule["offset_days"] = _int_or_raw(post.get("offset_days"))
    elif kind == "FIXED_DAY_IN_PERIOD":
        mode = (post.get("fixed_mode") or "").strip().upper()
        if mode == "WEEKDAY":
            fixed = {"mode": mode, "weekday": post.get("fixed_weekday") or ""}
            if post.get("fixed_week"):
                fixed["week"] = post.get("fixed_week")
        else:
            day = "LAST" if post.get("fixed_day_last") else latin(post.get("fixed_day"))
            fixed = {"mode": mode or "DAY_OF_MONTH", "day": day}
        schedule["fixed_day"] = fixed
    return schedule


def inheritance_from_post(post) -> dict:
    return {"type": (post.get("inherit_type") or "").strip().upper(), "schedule": inheritance_schedule_from_post(post)}


def action_from_post(post) -> dict:
    action = {"channel": (post.get("action_channel") or "").strip(), "content": post.get("action_content") or ""}
    percent = latin(post.get("control_percent"))
    if percent:
        action["control_percent"] = _int_or_raw(percent)
    return action


AUDIENCE_TEXT_FIELDS = ("province", "city", "priority_min", "q", "owner")


def audience_from_post(post) -> tuple[int | None, dict]:
    """The root's list and the targets-page filters narrowing it (``aud_*`` fields)."""
    raw = latin(post.get("audience_list"))
    list_id = typed_int(raw)
    filters: dict = {"status": post.getlist("aud_status")}
    for key in AUDIENCE_TEXT_FIELDS:
        value = post.get(f"aud_{key}") or ""
        filters[key] = latin(value) if key in ("priority_min", "owner") else value.strip()
    return list_id, {k: v for k, v in filters.items() if v not in ("", [], None)}


def daily_limit_from_post(post, errors: dict) -> int | None:
    """This node's own daily send limit (blank: the workflow's / workspace's)."""
    raw = latin(post.get("daily_limit"))
    if not raw:
        return None
    if (limit := typed_int(raw)) is not None and limit >= 1:
        return limit
    errors["daily_limit"] = "سقف روزانه عددی دست‌کم ۱ است (یا خالی بگذارید)."
    return None


def window_from_post(post, errors: dict) -> int | None:
    raw = latin(post.get("attribution_window_days"))
    if (days := typed_int(raw)) is not None and 1 <= days <= 365:
        return days
    errors["attribution_window_days"] = "بازه انتساب باید عددی از ۱ تا ۳۶۵ روز باشد."
    return None


def initial_from_campaign(campaign) -> dict:
    """Stored chain config → the flat form values (the same names the POST uses)."""
    data: dict = {
        "name": campaign.name,
        "description": campaign.description or "",
        "attribution_window_days": str(campaign.attribution_window_days),
        "action_channel": (campaign.chain_action or {}).get("channel") or default_channel(),
        "action_content": (campaign.chain_action or {}).get("content") or "",
        "control_percent": str((campaign.chain_action or {}).get("control_percent") or ""),
        "daily_limit": str(campaign.daily_limit or ""),
        "frequency_cap_priority": (campaign.journey_settings or {}).get("frequency_cap_priority") or "normal",
        "parent": str(campaign.parent_id or ""),
    }
    data["audience_list"] = str(campaign.source_target_list_id or "")
    filters = campaign.audience_filters or {}
    data["aud_status"] = list(filters.get("status") or [])
    for key in AUDIENCE_TEXT_FIELDS:
        data[f"aud_{key}"] = str(filters.get(key) or "")
    when = campaign.root_schedule or {}
    if when.get("type") in sched.RECURRING_ROOT_TYPES:
        data.update(when_type=when["type"], when_time=when.get("time") or "")
        for key, name in (("start_date", "when_start"), ("end_date", "when_end")):
            data[name] = to_jalali(date.fromisoformat(when[key])) if when.get(key) else ""
        data["when_weekdays"] = list(when.get("weekdays") or [])
        day = when.get("day")
        data["when_day_last"] = day == sched.LAST
        data["when_day"] = "" if day in (None, sched.LAST) else str(day)
    goal = campaign.goal or {}
    data["goal_type"] = goal.get("type") or ""
    data["goal_statuses"] = list(goal.get("statuses") or [])
    data["goal_event"] = goal.get("event") or ""
    data["goal_words"] = "، ".join(goal.get("words") or [])
    inheritance = campaign.inheritance or {}
    data["inherit_type"] = inheritance.get("type") or ""
    schedule = inheritance.get("schedule") or {}
    data["schedule_type"] = schedule.get("type") or "AFTER_INTERVAL"
    data["run_time"] = schedule.get("run_time") or "09:00"
    data["offset_days"] = str(schedule.get("offset_days") or "")
    fixed = schedule.get("fixed_day") or {}
    data["fixed_mode"] = fixed.get("mode") or "DAY_OF_MONTH"
    data["fixed_day_last"] = fixed.get("day") == sched.LAST
    data["fixed_day"] = "" if fixed.get("day") in (None, sched.LAST) else str(fixed["day"])
    week = fixed.get("week")
    data["fixed_week"] = "" if week is None else ("LAST" if week == sched.LAST else str(week))
    data["fixed_weekday"] = fixed.get("weekday") or ""
    return data


def initial_from_post(post) -> dict:
    data = {key: post.get(key, "") for key in post}
    for key in ("when_weekdays", "goal_statuses", "aud_status"):
        data[key] = post.getlist(key)
    for key in ("when_day_last", "fixed_day_last"):
        data[key] = bool(post.get(key))
    return data


NEW_CHILD_DEFAULTS = {
    "inherit_type": InheritanceType.NOT_CONVERTED,
    "schedule_type": "AFTER_INTERVAL",
    "offset_days": "2",
    "run_time": "09:00",
    "fixed_mode": "DAY_OF_MONTH",
    "attribution_window_days": "7",
}
NEW_ROOT_DEFAULTS = {
    "when_type": "MONTHLY",
    "when_time": "09:00",
    "when_day": "1",
    "goal_type": "TARGET_STATUS",
    "goal_statuses": [TargetStatus.CONVERTED],
    "attribution_window_days": "7",
}


def field_errors(details) -> dict[str, str]:
    """Service field errors (``{"inheritance.schedule.offset_days": [...]}``) → one message per form area."""
    result: dict[str, str] = {}
    if not isinstance(details, dict):
        return result
    for key, problems in details.items():
        if key in ("reasons", "nodes", "affected_campaigns"):
            continue
        messages = problems if isinstance(problems, list) else [problems]
        text = " ".join(str(m) for m in messages if isinstance(m, str))
        if not text:
            continue
        area = _area(key)
        result[area] = f"{result[area]} {text}" if area in result else text
    return result


# Where an error of the service shows on the form: the first area whose key prefixes the error's key.
_AREA_PREFIXES = (
    ("when", "when"),
    ("goal", "goal"),
    (("inheritance.schedule", "schedule"), "schedule"),
    ("inheritance", "inherit_type"),
    ("chain_action", "action"),
    (("source_target_list_id", "audience_filters"), "audience"),
)
_AREA_KEYS = {"parent_campaign_id": "parent", "source_campaign_id": "parent"} | {
    key: key
    for key in (
        "name",
        "description",
        "attribution_window_days",
        "daily_limit",
        "send_window",
        "frequency_cap_priority",
    )
}


def _area(key: str) -> str:
    area = next((area for prefixes, area in _AREA_PREFIXES if key.startswith(prefixes)), None)
    return area or _AREA_KEYS.get(key, "form")


# --------------------------------------------------------------------------- readable text


def _num(value) -> str:
    return fa_digits(value)


def root_schedule_text(stored: dict | None) -> str:
    text = _root_schedule_text(stored)
    bounds = schedule_bounds_text(stored)
    return f"{text}، {bounds}" if bounds else text


def _root_schedule_text(stored: dict | None) -> str:
    if not stored or stored.get("type") in (None, "EVENT"):
        return "بدون زمان‌بندی تکرار"
    kind = stored["type"]
    at = _num(stored.get("time") or "")
    if kind == "DAILY":
        return f"هر روز ساعت {at}"
    if kind == "WEEKLY":
        days = "، ".join(WEEKDAY_LABELS.get(w, w) for w in stored.get("weekdays") or [])
        return f"هر هفته {days} ساعت {at}"
    if kind == "MONTHLY":
        day = stored.get("day")
        label = "روز آخر" if day in (sched.LAST, "LAST") else f"روز {_num(day)}"
        return f"هر ماه {label} ساعت {at}"
    if kind == "ONCE":
        return "یک‌بار"
    return kind


def schedule_bounds_text(stored: dict | None) -> str:
    """«از ۱۴۰۵/۰۱/۰۱ تا ۱۴۰۵/۱۲/۲۹» for a root's start/end dates ('' without)."""
    stored = stored or {}
    parts = []
    if stored.get("start_date"):
        parts.append(f"از {_num(to_jalali(date.fromisoformat(stored['start_date'])))}")
    if stored.get("end_date"):
        parts.append(f"تا {_num(to_jalali(date.fromisoformat(stored['end_date'])))}")
    return " ".join(parts)


def child_schedule_text(stored: dict | None) -> str:
    if not stored:
        return "—"
    at = _num(stored.get("run_time") or "")
    if stored.get("type") == "AFTER_INTERVAL":
        return f"{_num(stored.get('offset_days'))} روز پس از شروع منبع، ساعت {at}"
    fixed = stored.get("fixed_day") or {}
    if fixed.get("mode") == "DAY_OF_MONTH":
        day = fixed.get("day")
        label = "روز آخر ماه" if day in (sched.LAST, "LAST") else f"روز {_num(day)} ماه"
        return f"{label} در دوره، ساعت {at}"
    week = fixed.get("week")
    weekday = WEEKDAY_LABELS.get(fixed.get("weekday") or "", fixed.get("weekday") or "")
    if week is None:
        return f"{weekday} همان هفته، ساعت {at}"
    which = "آخر" if week in (sched.LAST, "LAST") else WEEK_LABELS.get(str(week), _num(week))
    return f"{weekday} {which} ماه، ساعت {at}"


def inheritance_text(stored: dict | None) -> str:
    if not stored:
        return ""
    kind = stored.get("type")
    label = InheritanceType(kind).label if kind in InheritanceType.values else (kind or "")
    return f"{label} — {child_schedule_text(stored.get('schedule'))}"


def goal_text(stored: dict | None) -> str:
    if not stored:
        return "بدون هدف"
    if stored.get("type") == "TARGET_STATUS":
        names = "، ".join(
            TargetStatus(s).label if s in TargetStatus.values else s for s in stored.get("statuses") or []
        )
        return f"وضعیت مخاطب: {names}"
    if stored.get("type") == "EVENT":
        return f"رویداد «{stored.get('event')}»"
    if stored.get("type") == "REPLIED":
        words = "، ".join(f"«{w}»" for w in stored.get("words") or [])
        return f"پاسخ مخاطب با یکی از {words}" if words else "پاسخ مخاطب (هر پاسخی)"
    return str(stored.get("type"))


def filters_text(filters: dict | None) -> str:
    """«وضعیت: جدید؛ شهر: تهران» for a root's audience filters («بدون فیلتر» without)."""
    parts = []
    filters = filters or {}
    if filters.get("status"):
        labels = [TargetStatus(s).label if s in TargetStatus.values else s for s in filters["status"]]
        parts.append("وضعیت: " + "، ".join(labels))
    for key, label in (("province", "استان"), ("city", "شهر"), ("q", "جستجو")):
        if filters.get(key):
            parts.append(f"{label}: {filters[key]}")
    if filters.get("priority_min") not in (None, ""):
        parts.append(f"اولویت دست‌کم {_num(filters['priority_min'])}")
    if filters.get("owner"):
        parts.append("مسئول مشخص")
    for key, label in (("created_after", "ایجاد از"), ("created_before", "ایجاد تا")):
        if filters.get(key):
            try:
                shown = to_jalali(date.fromisoformat(str(filters[key])[:10]))
            except ValueError:
                shown = str(filters[key])
            parts.append(f"{label} {_num(shown)}")
    return "؛ ".join(parts) if parts else "بدون فیلتر"


def audience_text(list_name: str | None, filters: dict | None) -> str:
    """«فهرست «مشتریان» — وضعیت: جدید؛ شهر: تهران» for a root's audience."""
    if not list_name:
        return "بدون مخاطب"
    text = f"فهرست «{list_name}»"
    return f"{text} — {filters_text(filters)}" if filters else text


def list_id_text(value) -> str:
    return f"فهرست #{_num(value)}" if value else "بدون فهرست"


def action_text(stored: dict | None) -> str:
    if not stored or not stored.get("channel"):
        return "بدون اقدام"
    channel = dict(channel_choices()).get(stored["channel"], stored["channel"])
    control = f" (گروه کنترل {_num(stored['control_percent'])}٪)" if stored.get("control_percent") else ""
    return f"{channel}: {stored.get('content') or ''}{control}"
