"""A provider's push of one reply: ``GET|POST /api/webhooks/sms/inbound/{account id}/{token}``.

The account's own secret token is the credential (compared in constant time). Melipayamak GETs ``to``, ``body``,
``from`` and turns the push off when the answer is not ``OK``, so ``OK`` is answered only after the message is
stored (a repeated push is stored once); every refusal — rate limit, unknown account, wrong token, a provider
without a push format, a push without a sender — is the same 404, never ``OK``. Limited per client address
(``RATE_PER_MINUTE``), counted before the token is looked up. Replies are stored even while the channel or the
automation is switched off: an opt-out must be honoured whatever the workspace's switches say.
"""

from __future__ import annotations

import hmac

from django.http import HttpResponse
from django.views.decorators.csrf import csrf_exempt

from campaigns.platform.login_throttle import over_rate
from sms.inbound.services import inbound_store
from sms.models import SmsProviderAccount, new_webhook_token
from sms.providers import provider_for

RATE_PER_MINUTE = 600
MAX_PARAM = 2000


def _refused() -> HttpResponse:
    return HttpResponse("NOT FOUND", status=404, content_type="text/plain; charset=utf-8")


@csrf_exempt
def inbound_push(request, account_id: int, token: str):
    if request.method not in ("GET", "POST"):
        response = HttpResponse(status=405)
        response["Allow"] = "GET, POST"
        return response
    if over_rate(request, "sms-inbound-push", RATE_PER_MINUTE):
        return _refused()
    account = SmsProviderAccount.objects.filter(pk=account_id, is_active=True).first()
    expected = account.inbound_token if account else new_webhook_token()
    if account is None or not hmac.compare_digest(expected.encode(), token.encode()):
        return _refused()
    provider = provider_for(account.provider)
    source = request.GET if request.method == "GET" else request.POST
    params = {key: str(source.get(key, ""))[:MAX_PARAM] for key in ("to", "body", "from")}
    message = provider.parse_inbound_push(params) if provider else None
    if message is None:
        return _refused()
    inbound_store(account=account, messages=[message])
    # An account that pushes is no longer polled (the same reply would come twice, under two ids).
    SmsProviderAccount.objects.filter(pk=account.pk, inbound_push=False).update(inbound_push=True)
    return HttpResponse("OK", content_type="text/plain; charset=utf-8")
