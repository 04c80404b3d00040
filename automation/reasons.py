"""Persian labels of the reasons the engine and its actions write on an execution's events.

An event's ``message`` is stored as the engine or the action wrote it (a short English reason such as
"missing variable", "rate limited", "settled: sent"); the Persian pages read it through ``reason_label``:
the one mapping, by reason, for the timeline, the campaign log and the SMS log. The stored rows never change.
"""

from __future__ import annotations

import re

from campaigns.platform.jalali import fa_digits

REASON_LABELS = {
    # the step was skipped
    "missing variable": "متغیری از متن پیام خالی بود؛ گام رد شد.",
    "retries exhausted": "تلاش‌ها تمام شد و گام رد شد.",
    "unknown outcome skipped by a person": "نتیجه ارسال نامعلوم بود؛ با تصمیم کاربر رد شد.",
    "no target": "مخاطبی برای این گام نبود.",
    # the follow-up step
    "activity created": "پیگیری برای مسئول ساخته شد.",
    "activity exists": "پیگیری برای مسئول از پیش ساخته شده بود.",
    # a send not made now
    "rate limited": "سرویس‌دهنده سقف سرعت ارسال را زد؛ کمی بعد دوباره فرستاده می‌شود.",
    "daily limit": "سقف روزانه ارسال پر بود.",
    "frequency cap": "سقف ارسال: این نفر امروز به سقف پیامک تبلیغاتی فضای کاری رسیده بود.",
    "quiet day": "امروز روز بدون پیامک تبلیغاتی است؛ در نخستین روز مجاز فرستاده می‌شود.",
    "busy": "ارسال دیگری همین گام را در دست داشت؛ کمی بعد دوباره بررسی می‌شود.",
    "already sent": "پیش‌تر فرستاده شده بود و دوباره فرستاده نشد.",
    "no valid mobile": "مخاطب موبایل معتبر ندارد.",
    # an outcome the provider has not told yet
    "unknown": "نتیجه ارسال نامعلوم است.",
    "no answer": "سرویس‌دهنده پاسخی نداد",
    "sent": "فرستاده شد",
    "rejected": "رد شد",
    "not sent": "فرستاده نشد",
}
PREFIX_LABELS = {
    "settled: ": "نتیجه ارسال روشن شد",
    "settling: ": "در انتظار روشن‌شدن نتیجه ارسال",
}
_UNSETTLED = re.compile(r"unsettled after (\d+) status queries")


def reason_label(message: str) -> str:
    """The Persian words of a stored reason; Persian text as it is, and an unknown English reason unchanged."""
    message = (message or "").strip()
    if not message or not message.isascii():
        return message
    if message in REASON_LABELS:
        return REASON_LABELS[message]
    for prefix, label in PREFIX_LABELS.items():
        if message.startswith(prefix):
            rest = message.removeprefix(prefix)
            known = REASON_LABELS.get(rest) or REASON_LABELS.get(rest.replace("_", " "))
            return f"{label}: {known.rstrip('.')}." if known else f"{label}."
    unsettled = _UNSETTLED.fullmatch(message)
    if unsettled:
        return f"نتیجه ارسال پس از {fa_digits(int(unsettled.group(1)))} پرسش وضعیت روشن نشد."
    return message
