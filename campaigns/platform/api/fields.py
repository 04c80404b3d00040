"""Serializer fields shared by every API.

``IdField``: an object id in a request body — a positive integer that fits a PostgreSQL ``bigint``
(larger numbers are a field error, not a database error on insert or lookup).
"""

from rest_framework import serializers

MAX_ID = 2**63 - 1


class IdField(serializers.IntegerField):
    def __init__(self, **kwargs):
        kwargs.setdefault("min_value", 1)
        kwargs.setdefault("max_value", MAX_ID)
        super().__init__(**kwargs)
