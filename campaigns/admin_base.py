"""Admin helpers shared by every app: Jalali date columns in the workspace time zone."""

from django.contrib import admin

from .jalali import fa_digits, to_jalali


def jalali_column(field: str, label: str):
    @admin.display(description=label, ordering=field)
    def column(self, obj):
        return fa_digits(to_jalali(getattr(obj, field), with_time=True))

    column.__name__ = f"{field}_jalali"
    return column


class JalaliAdmin(admin.ModelAdmin):
    """ModelAdmin with ``created_jalali``/``updated_jalali`` columns available."""

    created_jalali = jalali_column("created_at", "ایجاد")
    updated_jalali = jalali_column("updated_at", "به‌روزرسانی")
    list_per_page = 50
