"""Create a browser campaign from the pages, and edit it while it is a draft (the API's services)."""

from django.contrib import messages
from django.shortcuts import redirect, render

from campaigns.platform.errors import PlatformError
from campaigns.platform.pages import workspace_page
from campaigns.platform.permissions import Perm
from workers import page_selectors, selectors
from workers.forms import BrowserCampaignForm
from workers.services.campaigns import EDITABLE, browser_campaign_create, browser_campaign_update
from workers.views import perms


def _form(request, actor, **kwargs) -> BrowserCampaignForm:
    return BrowserCampaignForm(
        request.POST or None,
        platforms=page_selectors.platform_names(actor=actor),
        accounts=page_selectors.live_accounts(actor=actor).order_by("platform", "label", "id"),
        time_zone=actor.workspace.time_zone,
        **kwargs,
    )


def _save(request, actor, form, save):
    """Run the service with the form's data; service problems land on the form (None when refused)."""
    if request.method != "POST" or not form.is_valid():
        return None
    try:
        return save(**form.service_data())
    except PlatformError as exc:
        form.add_service_errors(exc.details or {}, exc.message)
        return None


def _configs(actor) -> list[dict]:
    """The action configs' steps, for roles that may see them (as in the API)."""
    return page_selectors.action_config_rows(actor=actor) if actor.has(Perm.VIEW_BROWSER_DETAILS) else []


@workspace_page(Perm.MANAGE_CAMPAIGNS)
def browser_campaign_new(request, actor):
    form = _form(request, actor)
    campaign = _save(request, actor, form, lambda **data: browser_campaign_create(actor=actor, **data))
    if campaign is not None:
        messages.success(request, f"کمپین «{campaign.name}» ساخته شد.")
        return redirect("browser-campaign", campaign_id=campaign.pk)
    status = 400 if request.method == "POST" else 200
    context = {"form": form, "section": "campaigns", "configs": _configs(actor), **perms(actor)}
    return render(request, "workers/campaign_form.html", context, status=status)


@workspace_page(Perm.MANAGE_CAMPAIGNS)
def browser_campaign_edit(request, actor, campaign_id: int):
    campaign = selectors.browser_campaign_get(actor=actor, campaign_id=campaign_id)
    if campaign.status not in EDITABLE:
        messages.error(request, "فقط پیش‌نویس کمپین را می‌توان ویرایش کرد.")
        return redirect("browser-campaign", campaign_id=campaign.pk)
    platform = selectors.platform_queryset(actor=actor).get(campaign=campaign)
    form = _form(request, actor, initial=BrowserCampaignForm.initial_from(campaign, platform))
    saved = _save(
        request,
        actor,
        form,
        lambda **data: browser_campaign_update(actor=actor, campaign_id=campaign.pk, **data),
    )
    if saved is not None:
        messages.success(request, f"کمپین «{saved.name}» ذخیره شد.")
        return redirect("browser-campaign", campaign_id=campaign.pk)
    status = 400 if request.method == "POST" else 200
    context = {"form": form, "campaign": campaign, "section": "campaigns", "configs": _configs(actor), **perms(actor)}
    return render(request, "workers/campaign_form.html", context, status=status)


@workspace_page(Perm.MANAGE_CAMPAIGNS)
def browser_campaign_accounts(request, actor):
    """The account picker for the chosen platform (htmx swaps it in when the platform changes)."""
    initial = {key: request.GET.getlist(key) for key in ("accounts", "spare_accounts")}
    form = BrowserCampaignForm(
        initial={**initial, "platform": request.GET.get("platform", "")},
        platforms=page_selectors.platform_names(actor=actor),
        accounts=page_selectors.live_accounts(actor=actor).order_by("platform", "label", "id"),
    )
    return render(request, "workers/_account_picker.html", {"form": form})
