"""Encryption at rest for credentials, cookies and proxy passwords.

``EncryptedTextField`` stores Fernet tokens. ``FIELD_ENCRYPTION_KEY`` holds
comma-separated keys: the first encrypts, every key decrypts, so keys can be
rotated. Without it a key is derived from ``SECRET_KEY`` (development only).
"""

import base64
import hashlib
from functools import lru_cache

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings
from django.db import models


@lru_cache(maxsize=4)
def _fernet(keys: str, secret: str) -> MultiFernet:
    if keys:
        return MultiFernet([Fernet(k.strip().encode()) for k in keys.split(",") if k.strip()])
    derived = base64.urlsafe_b64encode(hashlib.sha256(f"field-encryption:{secret}".encode()).digest())
    return MultiFernet([Fernet(derived)])


def fernet() -> MultiFernet:
    return _fernet(settings.FIELD_ENCRYPTION_KEY, settings.SECRET_KEY)


def encrypt(value: str) -> str:
    return fernet().encrypt(value.encode()).decode()


def decrypt(token: str) -> str:
    try:
        return fernet().decrypt(token.encode()).decode()
    except InvalidToken as exc:  # wrong key: never fall back to returning ciphertext
        raise ValueError("cannot decrypt field: FIELD_ENCRYPTION_KEY does not match") from exc


class EncryptedTextField(models.TextField):
    """A text column whose database value is a Fernet token."""

    def get_prep_value(self, value):
        value = super().get_prep_value(value)
        if value is None or value == "":
            return value
        return encrypt(value)

    def from_db_value(self, value, expression, connection):
        if value is None or value == "":
            return value
        return decrypt(value)
