"""The API keys page: a member's own keys of the current workspace — create (the key is shown once), list,
revoke (and with it every key made with it, transitively). The same services as ``/api/v1/api-keys``
(``campaigns.platform.tokens``)."""

from django import forms
from django.conf import settings
from django.contrib import messages
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from campaigns.platform.api.scopes import ALL, scope_labels
from campaigns.platform.jalali import fa_digits
from campaigns.platform.once import REPEATED, once_mark, once_token, once_used
from campaigns.platform.pages import workspace_page
from campaigns.platform.permissions import Perm
from campaigns.platform.tokens import MAX_TTL_DAYS, api_token_create, api_token_revoke, api_tokens_of
from campaigns.platform.widgets import NumberField


class ApiKeyForm(forms.Form):
    name = forms.CharField(
        label="نام کلید", max_length=100, required=False, help_text="مثلاً نام سامانه‌ای که از آن استفاده می‌کند"
    )
    scopes = forms.MultipleChoiceField(label="دامنه‌ها", widget=forms.CheckboxSelectMultiple, initial=[ALL])
    read_only = forms.BooleanField(
        label="فقط خواندنی", required=False, help_text="فقط درخواست‌های GET؛ هیچ تغییری نمی‌دهد"
    )
    days = NumberField(label="اعتبار (روز)", min_value=1, max_value=MAX_TTL_DAYS)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["scopes"].choices = list(scope_labels().items())
        self.fields["days"].initial = settings.API_TOKEN_TTL_DAYS


@workspace_page(Perm.VIEW)
def api_keys(request, actor):
    form = ApiKeyForm(request.POST or None)
    created = repeated = None
    status = 200
    once = request.POST.get("once", "")
    if request.method == "POST" and once_used(request, once):
        form, repeated = ApiKeyForm(), REPEATED
    elif request.method == "POST":
        if form.is_valid():
            data = form.cleaned_data
            scopes = [ALL] if ALL in data["scopes"] else data["scopes"]
            token, key = api_token_create(
                user=request.user,
                workspace=actor.workspace,
                name=data["name"],
                ttl_days=data["days"],
                scopes=scopes,
                read_only=data["read_only"],
            )
            once_mark(request, once)
            created = {"token": token, "key": key}
            form = ApiKeyForm()
        else:
            status = 400
    labels = scope_labels()
    tokens = list(
        api_tokens_of(user=request.user, workspace=actor.workspace).select_related("granted_by", "revoked_with")
    )
    made = _live_made_with(tokens)
    rows = [{"token": t, "scope_labels": [labels.get(s, s) for s in t.scopes], "made_with": made[t.pk]} for t in tokens]
    context = {
        "form": form,
        "created": created,
        "repeated": repeated,
        "once": once_token(),
        "rows": rows,
        "now": timezone.now(),
    }
    response = render(request, "campaigns/api_keys.html", context, status=status)
    response["Cache-Control"] = "no-store"  # the new key is in this page, once
    return response


def _live_made_with(tokens: list) -> dict[int, int]:
    """Per key, how many live keys were made with it, transitively (what revoking it revokes too: the revoke
    dialog says so)."""
    children: dict[int, list] = {}
    for t in tokens:
        if t.granted_by_id:
            children.setdefault(t.granted_by_id, []).append(t)
    counts = {}
    for t in tokens:
        seen, level, live = {t.pk}, [t.pk], 0
        while level:
            below = [c for pk in level for c in children.get(pk, []) if c.pk not in seen]
            seen.update(c.pk for c in below)
            live += sum(1 for c in below if c.revoked_at is None)
            level = [c.pk for c in below]
        counts[t.pk] = live
    return counts


@require_POST
@workspace_page(Perm.VIEW)
def api_key_revoke(request, actor, key_id: int):
    token = api_token_revoke(user=request.user, workspace=actor.workspace, token_id=key_id)
    granted = token.revoked_granted
    also = f" و {fa_digits(granted)} کلیدی که با آن ساخته شده بود نیز" if granted else ""
    messages.success(request, f"کلید {token.prefix}{also} باطل شد.")
    return redirect("api-keys")
