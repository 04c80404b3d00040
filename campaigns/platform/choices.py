"""Choices of the kernel: a member's role, the kind of a phone number."""

from django.db import models


class Role(models.TextChoices):
    OWNER = "owner", "مالک"
    ADMIN = "admin", "مدیر کل"
    MANAGER = "manager", "مدیر کمپین"
    OPERATOR = "operator", "کارشناس"
    VIEWER = "viewer", "بیننده"


class PhoneKind(models.TextChoices):
    MOBILE = "mobile", "موبایل"
    LANDLINE = "landline", "تلفن ثابت"
