"""``Idempotency-Key`` on POST: a retried request gets the first answer instead of doing the work twice.

The first request with a key claims a row (key + workspace + user + path, unique) before its view runs and
stores its answer there when it ends; for 24 hours a request of the same user with the same key and the same
body gets that answer again (``Idempotent-Replayed: true``). A key is its user's: another member sending it
runs their own request — an answer may hold a secret shown once (a new API key's, a webhook's), so it is
never replayed to anyone else, and it is kept encrypted (``EncryptedTextField``). The same key with another
body is a 409 ``IDEMPOTENCY_KEY_REUSED``. Of two concurrent requests with one key exactly one runs (the
unique constraint): the other waits for its answer (up to ``IDEMPOTENCY_WAIT_SECONDS``, then a 409
``IDEMPOTENCY_KEY_IN_PROGRESS``). A server error releases the key, so the retry runs again; any other answer
(2xx, 4xx) is kept.

A claim still unanswered ``IDEMPOTENCY_CLAIM_TIMEOUT_SECONDS`` after it was taken is stale — its request
died without an answer (a killed worker, a lost process): the next request with the key takes the claim
over (a conditional UPDATE, so one of several does) and runs. The claim's time is its token: an answer
from the request that lost it is not stored over the new one.
"""

import hashlib
import json
import time
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.core.files.uploadedfile import UploadedFile
from django.db import IntegrityError, transaction
from django.utils import timezone
from rest_framework.utils.encoders import JSONEncoder

from campaigns.platform.errors import Conflict, ValidationFailed
from campaigns.platform.models import IdempotencyKey

HEADER = "Idempotency-Key"
KEY_MAX_LENGTH = 255
TTL = timedelta(hours=24)
POLL_SECONDS = 0.05


@dataclass(frozen=True)
class StoredAnswer:
    status_code: int
    body: object


@dataclass(frozen=True)
class Claim:
    """A claimed key: the row and the time it was claimed at (taken over, the row gets a new time)."""

    id: int
    claimed_at: datetime


def idempotency_key_read(headers) -> str | None:
    """The header's key (``None`` when absent); 1–255 visible ASCII characters, else a 400."""
    key = headers.get(HEADER)
    if key is None:
        return None
    if not 1 <= len(key) <= KEY_MAX_LENGTH or not all("!" <= ch <= "~" for ch in key):
        raise ValidationFailed.field(HEADER, f"۱ تا {KEY_MAX_LENGTH} نویسه ASCII دیدنی (بدون فاصله).")
    return key


def _file_digest(value):
    if isinstance(value, UploadedFile):
        digest = hashlib.sha256()
        for chunk in value.chunks():
            digest.update(chunk)
        value.seek(0)
        return {"file": value.name, "size": value.size, "sha256": digest.hexdigest()}
    raise TypeError(f"{type(value).__name__} in a request body")


def body_fingerprint(data) -> str:
    """SHA-256 of the parsed body (key order and white space do not matter; a file counts by its content)."""
    if hasattr(data, "lists"):  # a multipart QueryDict: every value of every part
        data = {key: values for key, values in data.lists()}
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), default=_file_digest, ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def idempotency_claim(
    *, workspace_id: int, user_id: int, key: str, path: str, fingerprint: str
) -> Claim | StoredAnswer:
    """The claim (the caller runs the request), or the answer stored under the key."""
    deadline = time.monotonic() + settings.IDEMPOTENCY_WAIT_SECONDS
    lookup = {"workspace_id": workspace_id, "user_id": user_id, "key": key, "path": path}
    while True:
        try:
            with transaction.atomic():
                row = IdempotencyKey.objects.create(**lookup, fingerprint=fingerprint)
            return Claim(row.pk, row.created_at)
        except IntegrityError:
            pass
        row = IdempotencyKey.objects.filter(**lookup).first()
        if row is None:  # released or purged in between: claim again
            continue
        now = timezone.now()
        if row.created_at < now - TTL:
            IdempotencyKey.objects.filter(pk=row.pk, created_at=row.created_at).delete()
            continue
        if row.fingerprint != fingerprint:
            raise Conflict(
                "این کلید تکرارناپذیری پیش‌تر با بدنه دیگری به کار رفته است.",
                code="IDEMPOTENCY_KEY_REUSED",
            )
        if row.status_code is not None:
            return StoredAnswer(row.status_code, json.loads(row.response or "null"))
        if row.created_at < now - timedelta(seconds=settings.IDEMPOTENCY_CLAIM_TIMEOUT_SECONDS):
            taken = IdempotencyKey.objects.filter(pk=row.pk, created_at=row.created_at, status_code=None)
            if taken.update(created_at=now):  # a stale claim: its request died; this one runs instead
                return Claim(row.pk, now)
            continue
        if time.monotonic() > deadline:
            raise Conflict(
                "درخواستی با همین کلید تکرارناپذیری هنوز در جریان است؛ کمی بعد دوباره بفرستید.",
                code="IDEMPOTENCY_KEY_IN_PROGRESS",
            )
        time.sleep(POLL_SECONDS)


def idempotency_store(*, claim: Claim, status_code: int, body) -> None:
    """Keep the answer of a claimed request (a server error releases the key instead); nothing when the
    claim was taken over meanwhile."""
    if status_code >= 500:
        idempotency_release(claim=claim)
        return
    stored = json.dumps(body, cls=JSONEncoder, ensure_ascii=False)
    IdempotencyKey.objects.filter(pk=claim.id, created_at=claim.claimed_at, status_code=None).update(
        status_code=status_code, response=stored
    )


def idempotency_release(*, claim: Claim) -> None:
    """Give the key up (its request ended without an answer worth keeping): a retry runs again."""
    IdempotencyKey.objects.filter(pk=claim.id, created_at=claim.claimed_at, status_code=None).delete()


def idempotency_keys_purge() -> int:
    """Delete the keys older than 24 hours (hourly job)."""
    deleted, _ = IdempotencyKey.objects.filter(created_at__lt=timezone.now() - TTL).delete()
    return deleted
