"""The campaign's auto-enroll page: the rule's conditions, cap and "include existing targets" with their count
shown before saving (live, as the conditions change), and the last check's numbers.

Thin: reads and writes through ``automation.services.auto_enroll`` (the same calls as the API)."""

from __future__ import annotations

from django.contrib import messages
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from automation.campaign_forms import AutoEnrollForm
from automation.campaign_views import _campaign, _common
from automation.services import auto_enroll
from campaigns.models import TargetList
from campaigns.platform.errors import PlatformError
from campaigns.platform.pages import workspace_page
from campaigns.platform.pagination import COUNT_CAP
from campaigns.platform.permissions import Perm
from campaigns.platform.tenancy import scoped


def _form(request, actor, rule=None) -> AutoEnrollForm:
    lists = scoped(TargetList, actor.workspace).order_by("name")
    return AutoEnrollForm(request.POST or None, lists=lists, rule=rule)


def _count(actor, campaign, filters: dict) -> int | None:
    """Targets matching the conditions today, at most ``COUNT_CAP`` + 1 (the template says «بیش از …» past the
    cap); None while there is no condition (or they are not valid)."""
    if not filters:
        return None
    try:
        return auto_enroll.auto_enroll_existing_count(
            actor=actor, campaign_id=campaign.id, filters=filters, cap=COUNT_CAP
        )
    except PlatformError:
        return None


@workspace_page(Perm.MANAGE_CAMPAIGNS)
def campaign_auto_enroll(request, actor, campaign_id: int):
    campaign = _campaign(actor, campaign_id)
    rule = auto_enroll.auto_enroll_rule_get(actor=actor, campaign_id=campaign.id)
    form = _form(request, actor, rule)
    count = None
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        confirmed = data.get("confirmed_existing_count") if data["include_existing"] else None
        try:
            auto_enroll.auto_enroll_rule_set(
                actor=actor,
                campaign_id=campaign.id,
                filters=form.filters(),
                enabled=data["enabled"],
                daily_cap=data["daily_cap"],
                include_existing=data["include_existing"],
                confirmed_existing_count=confirmed,
            )
        except PlatformError as exc:
            details = exc.details or {}
            count = details.get("existing_count")
            for name, problems in details.items():
                if name in ("filters", "daily_cap", "confirmed_existing_count"):
                    field = None if name == "filters" else name
                    if field == "confirmed_existing_count":
                        field = "include_existing"
                    for problem in problems if isinstance(problems, list) else [problems]:
                        form.add_error(field, str(problem))
            if not form.errors:
                form.add_error(None, exc.message)
        else:
            messages.success(request, "قاعده افزودن خودکار ذخیره شد.")
            return redirect("journey-campaign-dashboard", campaign_id=campaign.id)
    elif request.method == "GET" and rule is not None and form.initial.get("include_existing"):
        count = _count(actor, campaign, rule.filters)
    context = _common(actor, campaign) | {"form": form, "rule": rule, "count": count, "cap": COUNT_CAP, "tab": "auto"}
    return render(request, "automation/campaign_auto_enroll.html", context, status=400 if form.errors else 200)


@require_POST
@workspace_page(Perm.MANAGE_CAMPAIGNS)
def auto_enroll_count(request, actor, campaign_id: int):
    """htmx: the count of existing targets matching the conditions being typed (nothing is written)."""
    campaign = _campaign(actor, campaign_id)
    form = _form(request, actor)
    form.is_valid()  # the conditions are read from the fields that are valid
    count = _count(actor, campaign, form.filters())
    return render(request, "automation/_auto_enroll_count.html", {"count": count, "cap": COUNT_CAP, "form": form})
