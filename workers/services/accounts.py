"""Accounts (sessions) and proxies: every write of these rows.

Staff edits change only the edited columns (``model_update``): counters, scores, session status
and revision belong to the dispatch and result services, which change them with conditional
UPDATEs, so an edit never writes back a stale copy of them.
"""

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from campaigns.platform.errors import ValidationFailed
from campaigns.platform.fsm import fsm_apply
from campaigns.platform.permissions import Perm
from campaigns.platform.services import model_update
from campaigns.platform.tenancy import Actor, get_scoped
from campaigns.platform.text import text_check
from workers import cookies as jar
from workers import events, netguard
from workers.choices import ProxyProtocol, SessionStatus, TaskStatus
from workers.errors import AddressNotAllowedError, ProxyNotSupported, ResourceInUse
from workers.models import BrowserAccount, BrowserTask, Proxy

ACCOUNT_FIELDS = {
    "label",
    "platform",
    "cookies",
    "cookie_domain",
    "user_agent",
    "viewport_width",
    "viewport_height",
    "proxy_id",
    "use_proxy_pool",
}
ACCOUNT_TRANSITIONS = ("expire", "disable", "reactivate")  # staff may mark a session expired by hand
COOKIE_FIELDS = {"cookie_count", "cookies_expire_at"}  # derived from the cookies when they are saved
PROXY_FIELDS = {"label", "protocol", "host", "port", "username", "password"}
PROXY_DESTINATION = ("protocol", "host", "port")  # where the password is sent
COOKIE_ROUTE = ("proxy_id", "use_proxy_pool")  # which proxy the cookies go through
MSG_NEW_COOKIES = "دامنه سکو عوض شد: کوکی‌های ذخیره‌شده برای دامنه قبلی بودند؛ کوکی‌های تازه را وارد کنید."
MSG_ROUTE_NEEDS_COOKIES = (
    "پراکسی بخشی از مسیر کوکی‌هاست: برای تغییر پراکسی این حساب، کوکی‌ها را دوباره وارد کنید "
    "(یا مالک یا مدیر فضای کاری آن را تغییر دهد)."
)
MSG_PROXY_CARRIES_COOKIES = "حساب‌هایی با کوکی از این پراکسی می‌روند: نشانی آن را فقط مالک یا مدیر فضای کاری تغییر می‌دهد."
MSG_NEW_PASSWORD = "نشانی پراکسی عوض شد: گذرواژه ذخیره‌شده برای نشانی قبلی بود؛ گذرواژه تازه را وارد کنید (یا خالی)."


def row_update(*, instance, fields, data: dict):
    """``model_update`` with model validation errors in the API's envelope (400, per field)."""
    try:
        return model_update(instance=instance, fields=fields, data=data)
    except ValidationError as exc:
        raise ValidationFailed(details=exc.message_dict) from None


def _check_proxy(actor: Actor, proxy_id: int | None) -> None:
    if proxy_id is not None:
        get_scoped(Proxy, actor.workspace, proxy_id)  # 404 for another workspace's proxy


def account_cookies(*, raw: str, site: str) -> dict:
    """The cookie columns of an account for pasted cookies of ``site`` (validated, bound, counted)."""
    try:
        site = jar.normalise_domain(site) if site else ""
    except jar.CookieError as exc:
        raise ValidationFailed.field("cookie_domain", str(exc)) from None
    try:
        count, expires = jar.summary(jar.check(raw, site))
    except jar.CookieError as exc:
        raise ValidationFailed.field("cookies", str(exc)) from None
    return {"cookies": raw, "cookie_domain": site, "cookie_count": count, "cookies_expire_at": expires}


def account_secret_kept(*, account: BrowserAccount, data: dict) -> bool:
    """Whether an edit keeps stored cookies while moving them to another site (refused: they would leak)."""
    if "cookie_domain" not in data or "cookies" in data or not account.cookies:
        return False
    return (data["cookie_domain"] or "").strip().lower().lstrip(".") != account.cookie_domain


def account_route_moved(*, account: BrowserAccount, data: dict) -> bool:
    """Whether an edit sends the stored cookies through another proxy (its own, or the pool) without new cookies."""
    if "cookies" in data or not account.cookies:
        return False
    return any(field in data and data[field] != getattr(account, field) for field in COOKIE_ROUTE)


def may_move_cookies(actor: Actor) -> bool:
    """Owners and admins may re-route stored cookies; other roles enter the cookies again."""
    return actor.has(Perm.MANAGE_WORKSPACE)


def account_create(*, actor: Actor, label: str, platform: str, cookies: str = "", **data) -> BrowserAccount:
    actor.require(Perm.MANAGE_BROWSER)
    text_check(names={"label": label}, texts={"cookies": cookies, "user_agent": data.get("user_agent")})
    _check_proxy(actor, data.get("proxy_id"))
    unknown = set(data) - ACCOUNT_FIELDS
    if unknown:
        raise ValidationFailed(details={key: ["فیلد ناشناخته"] for key in unknown})
    data.update(account_cookies(raw=cookies, site=data.pop("cookie_domain", "")))
    return BrowserAccount.objects.create(workspace=actor.workspace, label=label, platform=platform, **data)


def account_update(*, actor: Actor, account_id: int, data: dict) -> BrowserAccount:
    """Saving new cookies re-activates an expired session (the FSM's ``reactivate``)."""
    actor.require(Perm.MANAGE_BROWSER)
    account = get_scoped(BrowserAccount, actor.workspace, account_id)
    text_check(
        names={"label": data.get("label")},
        texts={"cookies": data.get("cookies"), "user_agent": data.get("user_agent")},
    )
    if "proxy_id" in data:
        _check_proxy(actor, data["proxy_id"])
    if account_secret_kept(account=account, data=data):
        raise ValidationFailed.field("cookies", MSG_NEW_COOKIES)
    if account_route_moved(account=account, data=data) and not may_move_cookies(actor):
        raise ValidationFailed.field("cookies", MSG_ROUTE_NEEDS_COOKIES)
    data = dict(data)
    if "cookies" in data or "cookie_domain" in data:
        data.update(
            account_cookies(
                raw=data.get("cookies", account.cookies), site=data.get("cookie_domain", account.cookie_domain)
            )
        )
    with transaction.atomic():
        row_update(instance=account, fields=sorted(ACCOUNT_FIELDS | COOKIE_FIELDS), data=data)
        if data.get("cookies") and account.session_status == SessionStatus.EXPIRED:
            fsm_apply(account, "reactivate", field="session_status", values={"error_score": 0})
    account.refresh_from_db()
    return account


def account_set_status(*, actor: Actor, account_id: int, transition: str) -> BrowserAccount:
    actor.require(Perm.MANAGE_BROWSER)
    if transition not in ACCOUNT_TRANSITIONS:
        raise ValidationFailed.field("transition", "تغییر وضعیت ناشناخته است.")
    account = get_scoped(BrowserAccount, actor.workspace, account_id)
    fsm_apply(account, transition, field="session_status")
    return account


def _deletable(actor: Actor, model, pk: int, *, task_field: str):
    """The account or proxy to delete, unless a task in flight goes through it (``task_field``: the task's
    field naming it) — then ``ResourceInUse``."""
    actor.require(Perm.MANAGE_BROWSER)
    row = get_scoped(model, actor.workspace, pk)
    if BrowserTask.objects.filter(**{task_field: row}, status=TaskStatus.DISPATCHED).exists():
        raise ResourceInUse()
    return row


def account_delete(*, actor: Actor, account_id: int) -> None:
    """Soft delete: tasks keep their account; an account with a task in flight cannot go."""
    account = _deletable(actor, BrowserAccount, account_id, task_field="account")
    BrowserAccount.objects.filter(pk=account.pk).update(
        deleted_at=timezone.now(), session_status=SessionStatus.DISABLED, updated_at=timezone.now()
    )


def proxy_check(*, protocol: str, username: str, password: str, host: str = "", port: int = 0) -> None:
    """The rules of a proxy's destination and credentials (create, update, bulk import)."""
    if protocol == ProxyProtocol.SOCKS5 and (username or password):
        raise ProxyNotSupported(details={"protocol": ["SOCKS5 با احراز هویت در Chromium پشتیبانی نمی‌شود."]})
    try:  # proxy hosts follow the workers' address rule (workers.netguard)
        netguard.check_proxy(host, port)
    except netguard.AddressNotAllowed as exc:
        raise AddressNotAllowedError(details={"host": [exc.message]}) from None


def proxy_create(*, actor: Actor, host: str, port: int, protocol: str = ProxyProtocol.HTTP, **data) -> Proxy:
    actor.require(Perm.MANAGE_BROWSER)
    unknown = set(data) - PROXY_FIELDS
    if unknown:
        raise ValidationFailed(details={key: ["فیلد ناشناخته"] for key in unknown})
    text_check(names={"label": data.get("label")}, texts={"host": host, "username": data.get("username")})
    proxy_check(
        protocol=protocol, username=data.get("username", ""), password=data.get("password", ""), host=host, port=port
    )
    return Proxy.objects.create(workspace=actor.workspace, host=host, port=port, protocol=protocol, **data)


def proxy_secret_kept(*, proxy: Proxy, data: dict) -> bool:
    """Whether an edit sends the stored password to a new destination (refused: a manager could collect it)."""
    return proxy_destination_moved(proxy=proxy, data=data) and bool(proxy.password) and "password" not in data


def proxy_carries_cookies(proxy: Proxy) -> bool:
    """Whether accounts holding cookies go through this proxy: pinned to it, or using the pool it is part of."""
    accounts = BrowserAccount.objects.filter(workspace_id=proxy.workspace_id, deleted_at__isnull=True)
    riders = accounts.filter(Q(proxy=proxy) | Q(proxy__isnull=True, use_proxy_pool=True))
    return riders.exclude(cookies="").exists()


def proxy_destination_moved(*, proxy: Proxy, data: dict) -> bool:
    return any(field in data and data[field] != getattr(proxy, field) for field in PROXY_DESTINATION)


def proxy_update(*, actor: Actor, proxy_id: int, data: dict) -> Proxy:
    """Changing protocol, host or port needs the password again (an empty one clears it), and the owner or
    admin role when accounts holding cookies go through the proxy (it is where their cookies go)."""
    actor.require(Perm.MANAGE_BROWSER)
    proxy = get_scoped(Proxy, actor.workspace, proxy_id)
    if proxy_secret_kept(proxy=proxy, data=data):
        raise ValidationFailed.field("password", MSG_NEW_PASSWORD)
    if proxy_destination_moved(proxy=proxy, data=data) and not may_move_cookies(actor) and proxy_carries_cookies(proxy):
        raise ValidationFailed.field("host", MSG_PROXY_CARRIES_COOKIES)
    text_check(names={"label": data.get("label")}, texts={"host": data.get("host"), "username": data.get("username")})
    edited = {field: data.get(field, getattr(proxy, field)) for field in PROXY_FIELDS}
    proxy_check(**{field: edited[field] for field in ("protocol", "username", "password", "host", "port")})
    row_update(instance=proxy, fields=sorted(PROXY_FIELDS), data=data)
    return proxy


def proxy_reset(*, actor: Actor, proxy_id: int) -> Proxy:
    """An admin checked the proxy: back in rotation with a clean score."""
    actor.require(Perm.MANAGE_BROWSER)
    proxy = get_scoped(Proxy, actor.workspace, proxy_id)
    Proxy.objects.filter(pk=proxy.pk).update(
        is_available=True, error_score=0, cooldown_until=None, updated_at=timezone.now()
    )
    events.proxy_reset(workspace_id=proxy.workspace_id, proxy_id=proxy.pk)
    proxy.refresh_from_db()
    return proxy


def proxy_delete(*, actor: Actor, proxy_id: int) -> None:
    """Soft delete: accounts and pending tasks leave the proxy; a proxy with a task in flight cannot go."""
    proxy = _deletable(actor, Proxy, proxy_id, task_field="proxy")
    now = timezone.now()
    with transaction.atomic():
        Proxy.objects.filter(pk=proxy.pk).update(deleted_at=now, is_available=False, updated_at=now)
        BrowserAccount.objects.filter(proxy=proxy).update(proxy=None, updated_at=now)
        BrowserTask.objects.filter(proxy=proxy, status=TaskStatus.PENDING).update(proxy=None, updated_at=now)
