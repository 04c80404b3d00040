"""Persian labels of the fields declared without a ``verbose_name`` (the admin shows them).

A field of a project model with no ``verbose_name`` gets its label here by name at start-up
(``field_labels_apply``), so the admin never shows an English field name ("Workspace:", "From status").
Only the runtime label is set (``Field.verbose_name``); the field's declared arguments, and so the
migrations, are unchanged. A new field needs a ``verbose_name`` or an entry here (a test checks it).
"""

from django.apps import apps

CORE_APPS = ("platform", "campaigns", "chains", "automation")  # then every installed channel's app


def project_apps() -> tuple[str, ...]:
    from campaigns.platform.channels import installed_channel_apps

    return (*CORE_APPS, *installed_channel_apps())


LABELS = {
    "id": "شناسه",
    "workspace": "فضای کاری",
    "campaign": "کمپین",
    "created_by": "ایجادکننده",
    "updated_by": "ویرایش‌کننده",
    "published_by": "منتشرکننده",
    "removed_by": "حذف‌کننده",
    "target": "مخاطب",
    "target_list": "فهرست مخاطبان",
    "target_import": "ورود مخاطبان",
    "target_snapshot": "تصویر مخاطبان",
    "data": "داده",
    "payload": "محتوا",
    "metadata": "فراداده",
    "workflow": "گردش‌کار",
    "version": "نسخه",
    "actor": "انجام‌دهنده",
    "user": "کاربر",
    "recipient": "گیرنده",
    "name": "نام",
    "key": "کلید",
    "created_at": "ایجاد",
    "started_at": "شروع",
    "finished_at": "پایان",
    "completed_at": "تکمیل",
    "committed_at": "ثبت",
    "frozen_at": "ثبت نهایی",
    "paused_at": "توقف",
    "removed_at": "حذف",
    "done_at": "انجام",
    "emailed_at": "ارسال ایمیل",
    "locked_at": "قفل",
    "last_run_at": "آخرین اجرا",
    "heartbeat_at": "آخرین نشانه حیات",
    "beat_at": "نشانه حیات",
    "lease_expires_at": "پایان اجاره",
    "running_until": "در حال اجرا تا",
    "retry_scheduled_at": "تلاش دوباره",
    "postponement_notified_at": "اعلام تعویق",
    "subject_type": "نوع موضوع",
    "subject_id": "شناسه موضوع",
    "execution": "اجرا",
    "execution_id": "شناسه اجرا",
    "node": "گام",
    "from_node": "از گام",
    "to_node": "به گام",
    "current_node": "گام فعلی",
    "from_status": "از وضعیت",
    "to_status": "به وضعیت",
    "paused_from_status": "وضعیت پیش از توقف",
    "run": "اجرا",
    "batch": "دسته",
    "snapshot": "تصویر",
    "root": "ریشه",
    "package": "بسته تأیید",
    "account": "حساب",
    "proxy": "پراکسی",
    "task": "وظیفه",
    "platform": "سکو",
    "cycle": "دور",
    "attempt": "تلاش",
    "dedupe_key": "کلید یکتایی",
    "idempotency_key": "کلید تکرارناپذیری",
    "lease_token": "نشانه اجاره",
    "lock_token": "نشانه قفل",
    "job_token": "نشانه کار",
    "build_id": "شناسه ساخت",
    "filters_hash": "چکیده فیلترها",
    "scope_id": "شناسه دامنه",
    "created_count": "ایجادشده",
    "updated_count": "به‌روزشده",
    "duplicate_count": "تکراری",
    "invalid_count": "نامعتبر",
    "member_count": "تعداد اعضا",
    "control_count": "تعداد گروه شاهد",
    "is_control": "گروه شاهد",
    "selection_rule_snapshot": "قاعده انتخاب (ثبت‌شده)",
    "action_code": "کد کنش",
    "refused_reason": "دلیل رد",
    "last_error": "آخرین خطا",
    "error_code": "کد خطا",
    "error_message": "پیام خطا",
    "provider_response": "پاسخ سرویس‌دهنده",
    "provider_message_id": "شناسه پیام سرویس‌دهنده",
    "provider_status": "وضعیت سرویس‌دهنده",
    "source_execution_id": "شناسه اجرای منبع",
    "source_cycle": "دور منبع",
    "source_node_id": "شناسه گام منبع",
    "source_campaign_id": "شناسه کمپین منبع",
    "position_x": "مکان افقی",
    "position_y": "مکان عمودی",
}


def field_labels_apply() -> None:
    labelled = project_apps()
    for model in apps.get_models():
        if model._meta.app_label not in labelled:
            continue
        for field in model._meta.get_fields():
            if getattr(field, "concrete", False) and getattr(field, "_verbose_name", "") is None:
                field.verbose_name = LABELS.get(field.name, field.verbose_name)
