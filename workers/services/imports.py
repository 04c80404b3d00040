"""Bulk import of accounts and proxies from an .xlsx/.csv file: a preview of every row's problems, then commit.

The file (at most ``PREVIEW_MAX_BYTES``) is read with the target import's reader (``campaigns.tables.read_rows``,
same column bounds, its .xlsx limits scaled down to ``MAX_ROWS`` rows) and at most ``MAX_ROWS`` rows: accounts
and proxies are few, so preview and commit run in the request. Every row is checked with the rules of a single
create (``account_create`` / ``proxy_create``) and against the length of the model's field, without writing.

What the commit needs is kept in the cache for ``PREVIEW_SECONDS``: the rows that had no problem, only the
columns the create takes, each no longer than its field — nothing of the file besides. It is encrypted (it
holds cookies and passwords) and kept under one key per workspace, user and kind, with the random token the
page posts back: a new preview replaces the previous one, so a user holds at most one preview of each kind.
The commit creates those rows (each through the create service, all in one transaction) once. Nothing of the
file is echoed back but the cells that are not secrets.
"""

import json
import re
import secrets

from django.core.cache import cache
from django.db import transaction

from campaigns.platform.crypto import decrypt, encrypt
from campaigns.platform.errors import PlatformError, ValidationFailed
from campaigns.platform.jalali import fa_digits
from campaigns.platform.permissions import Perm
from campaigns.platform.tenancy import Actor
from campaigns.platform.text import text_check
from campaigns.tables import SUPPORTED, FileTooLarge, normalize_header, read_rows
from workers.choices import ProxyProtocol
from workers.models import BrowserAccount, Proxy
from workers.services import accounts

MAX_ROWS = 1000
PREVIEW_SECONDS = 30 * 60
PREVIEW_MAX_BYTES = 1024 * 1024  # a thousand accounts with their cookies fit in a few hundred KB
SIZE_MESSAGE = f"حجم فایل بیش از {fa_digits(PREVIEW_MAX_BYTES // (1024 * 1024))} مگابایت است؛ آن را به چند فایل بشکنید."
SECRET_MAX_CHARS = {"cookies": 32_767, "password": 1024}  # text columns without a max_length: Excel's cell limit
PLATFORM_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,39}$"
SECRET_COLUMNS = {"cookies", "password"}
ROWS_MESSAGE = f"حداکثر {fa_digits(MAX_ROWS)} ردیف در هر فایل."

COLUMNS = {
    "accounts": {
        "label": ["label", "name", "نام"],
        "platform": ["platform", "سکو"],
        "cookie_domain": ["cookie_domain", "domain", "site", "دامنه", "دامنه سکو"],
        "cookies": ["cookies", "cookie", "کوکی", "کوکی‌ها"],
        "user_agent": ["user_agent", "ua"],
    },
    "proxies": {
        "label": ["label", "name", "نام"],
        "protocol": ["protocol", "پروتکل"],
        "host": ["host", "میزبان"],
        "port": ["port", "درگاه"],
        "username": ["username", "user", "نام کاربری"],
        "password": ["password", "گذرواژه"],
    },
}
REQUIRED = {"accounts": ("label", "platform"), "proxies": ("host", "port")}
MODELS = {"accounts": BrowserAccount, "proxies": Proxy}


def _max_chars(kind: str, field: str) -> int | None:
    return SECRET_MAX_CHARS.get(field) or MODELS[kind]._meta.get_field(field).max_length


def _columns(kind: str, header: list[str]) -> list[str | None]:
    aliases = {normalize_header(name): field for field, names in COLUMNS[kind].items() for name in names}
    return [aliases.get(normalize_header(cell)) for cell in header]


def _account_row(actor: Actor, data: dict) -> dict:
    if not re.match(PLATFORM_PATTERN, data.get("platform", "")):
        raise ValidationFailed.field("platform", "سکو فقط حروف کوچک لاتین، رقم، - و _ است.")
    text_check(names={"label": data.get("label", "")}, texts={"cookies": data.get("cookies")})
    accounts.account_cookies(raw=data.get("cookies", ""), site=data.get("cookie_domain", ""))
    return data


def _proxy_row(actor: Actor, data: dict) -> dict:
    port = data.get("port", "")
    if not port.isdigit() or not 1 <= int(port) <= 65535:
        raise ValidationFailed.field("port", "درگاه باید عددی از ۱ تا ۶۵۵۳۵ باشد.")
    data["port"] = int(port)
    data["protocol"] = (data.get("protocol") or ProxyProtocol.HTTP).lower()
    if data["protocol"] not in ProxyProtocol.values:
        raise ValidationFailed.field("protocol", f"پروتکل یکی از {', '.join(ProxyProtocol.values)} است.")
    text_check(
        names={"label": data.get("label") or None}, texts={"host": data["host"], "username": data.get("username")}
    )
    accounts.proxy_check(
        protocol=data["protocol"],
        username=data.get("username", ""),
        password=data.get("password", ""),
        host=data["host"],
        port=data["port"],
    )
    return data


CHECKS = {"accounts": _account_row, "proxies": _proxy_row}
CREATE = {"accounts": accounts.account_create, "proxies": accounts.proxy_create}


LABELS = {
    "label": "نام",
    "platform": "سکو",
    "cookie_domain": "دامنه سکو",
    "cookies": "کوکی‌ها",
    "user_agent": "User-Agent",
    "protocol": "پروتکل",
    "host": "میزبان",
    "port": "درگاه",
    "username": "نام کاربری",
    "password": "گذرواژه",
}


def _problems(exc: PlatformError) -> list[str]:
    details = {LABELS.get(field, field): items for field, items in (exc.details or {}).items()}
    found = [
        f"{field}: {p}" for field, items in details.items() for p in (items if isinstance(items, list) else [items])
    ]
    return found or [exc.message]


def _checked_rows(actor: Actor, kind: str, columns: list[str | None], lines) -> list[dict]:
    missing = [field for field in REQUIRED[kind] if field not in columns]
    if missing:
        raise ValidationFailed.field("file", f"ستون‌های {', '.join(missing)} پیدا نشد.")
    rows = []
    for line, cells in lines:
        if len(rows) >= MAX_ROWS:
            raise ValidationFailed.field("file", ROWS_MESSAGE)
        data = {col: cell for col, cell in zip(columns, cells, strict=False) if col and cell}
        too_long = {col for col, cell in data.items() if (limit := _max_chars(kind, col)) and len(cell) > limit}
        problems = [f"{LABELS[col]}: حداکثر {fa_digits(_max_chars(kind, col))} نویسه." for col in sorted(too_long)]
        data = {col: cell for col, cell in data.items() if col not in too_long}  # never kept, never shown
        if not problems:
            try:
                data = CHECKS[kind](actor, dict(data))
            except PlatformError as exc:
                problems = _problems(exc)
        rows.append({"line": line, "data": data, "problems": problems})
    return rows


def import_preview(*, actor: Actor, kind: str, file_name: str, content: bytes) -> dict:
    """Read and check every row; returns {token, rows: [{line, values, problems}], valid, invalid}."""
    actor.require(Perm.MANAGE_BROWSER)
    _key(actor, kind)  # a known kind
    if not file_name.lower().endswith(SUPPORTED):
        raise ValidationFailed.field("file", "فقط فایل‌های .xlsx و .csv پذیرفته می‌شوند.")
    import_check_size(size=len(content))
    try:
        header, lines = read_rows(file_name, content, max_rows=MAX_ROWS)
        rows = _checked_rows(actor, kind, _columns(kind, header), lines)
    except FileTooLarge as exc:
        if str(exc) == "rows":
            raise ValidationFailed.field("file", ROWS_MESSAGE) from None
        raise ValidationFailed.field("file", "فایل بیش از حد بزرگ است.") from None
    except PlatformError:
        raise
    except Exception:  # a corrupt workbook/CSV is bad input, not a server error
        raise ValidationFailed.field("file", "فایل خوانده نشد؛ آیا فایل اکسل یا CSV سالم است؟") from None
    token = secrets.token_urlsafe(24)
    kept = [row["data"] for row in rows if not row["problems"]]  # what the commit creates, nothing else
    # the rows hold cookies / passwords: encrypted like the columns they are going to; replaces an earlier preview
    cache.set(_key(actor, kind), encrypt(json.dumps({"token": token, "rows": kept})), PREVIEW_SECONDS)
    shown = [
        {
            "line": r["line"],
            "values": [(LABELS[k], v) for k, v in r["data"].items() if k not in SECRET_COLUMNS],
            "has_secret": any(r["data"].get(k) for k in SECRET_COLUMNS),
            "problems": r["problems"],
        }
        for r in rows
    ]
    valid = sum(1 for r in rows if not r["problems"])
    return {"token": token, "rows": shown, "valid": valid, "invalid": len(rows) - valid}


def import_commit(*, actor: Actor, kind: str, token: str) -> int:
    """Create the rows of a preview that had no problem; returns how many (the preview is used once)."""
    actor.require(Perm.MANAGE_BROWSER)
    key = _key(actor, kind)
    stored = cache.get(key)
    preview = json.loads(decrypt(stored)) if stored is not None else {}
    if not token or not secrets.compare_digest(str(preview.get("token", "")).encode(), str(token).encode()):
        # expired, used, or replaced by a newer preview of the same user and kind
        raise ValidationFailed.field("token", "پیش‌نمایش منقضی شده است؛ فایل را دوباره بفرستید.")
    cache.delete(key)
    with transaction.atomic():
        for data in preview["rows"]:
            CREATE[kind](actor=actor, **data)
    return len(preview["rows"])


def import_check_size(*, size: int | None) -> None:
    """Refuse a preview upload by its size, before it is read."""
    if size is not None and size > PREVIEW_MAX_BYTES:
        raise ValidationFailed.field("file", SIZE_MESSAGE)


def _key(actor: Actor, kind: str) -> str:
    if kind not in COLUMNS:
        raise ValidationFailed.field("kind", "نوع ورود ناشناخته است.")
    return f"browser-import:{actor.workspace.pk}:{actor.user.pk}:{kind}"
