"""Every number input of the admin takes Persian digits, as on the staff pages (docs/ui.md "Numbers"): no admin
form, inline or list-editable row renders ``type=number`` (Chromium drops «۱۲۳» typed into one), every registered
admin of every app included, and what is posted in Persian digits is saved as its number."""

import re

import pytest
from django.contrib import admin
from django.contrib.admin.utils import flatten_fieldsets
from django.contrib.auth import get_user_model
from django.test import RequestFactory

from sms.models import SmsProviderAccount

pytestmark = pytest.mark.django_db

NUMBER_INPUT = re.compile(r"<input[^>]*\btype=\"number\"[^>]*>")


def _superuser_request():
    request = RequestFactory().get("/admin/")
    request.user = get_user_model()(username="root", is_staff=True, is_superuser=True, is_active=True)
    return request


def _rendered_forms(model_admin, request):
    """(where, html) of the admin's add form (its change form where nothing is added here), the empty form of each
    of its inlines and its list-editable rows."""
    parent = model_admin.model()
    obj = None if model_admin.has_add_permission(request) else parent
    fields = flatten_fieldsets(model_admin.get_fieldsets(request, obj))
    yield "form", str(model_admin.get_form(request, obj, change=obj is not None, fields=fields)(instance=parent))
    for inline in model_admin.get_inline_instances(request, obj):
        formset = inline.get_formset(request, obj)(instance=parent, prefix=f"inline-{type(inline).__name__}")
        yield f"inline {type(inline).__name__}", str(formset.empty_form)
    if model_admin.list_editable:
        yield "list", str(model_admin.get_changelist_form(request)())


def test_no_admin_form_or_inline_has_a_number_input_that_drops_persian_digits():
    request = _superuser_request()
    number_inputs, walked = [], []
    for model, model_admin in admin.site._registry.items():
        for where, html in _rendered_forms(model_admin, request):
            walked.append((model._meta.label, where))
            number_inputs += [(model._meta.label, where, tag) for tag in NUMBER_INPUT.findall(html)]
    assert number_inputs == []
    # the walk reached forms and inlines with numbers: an SMS account's limits, a schedule's periodic tasks
    assert ("sms.SmsProviderAccount", "form") in walked
    assert ("django_celery_beat.IntervalSchedule", "inline PeriodicTaskInline") in walked
    account_form = str(admin.site._registry[SmsProviderAccount].get_form(request, None)())
    limit = re.search(r"<input[^>]*name=\"max_messages_per_minute\"[^>]*>", account_form).group(0)
    assert 'type="text"' in limit and 'dir="ltr"' in limit and 'inputmode="numeric"' in limit
