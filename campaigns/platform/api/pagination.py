"""One pagination for every list: ``{"count", "count_capped", "page", "size", "has_more", "next", "results"}``.

``?page=&size=`` (``size`` 1–200, default 20; above 200 is a 400) or ``?cursor=<next of an earlier answer>&size=``
(``page`` is then null): ``has_more`` says whether rows follow, ``next`` is the cursor of the page after this one
(null at the end). A page or cursor past the end is an empty page, never a 404. Send the same filters with the
cursor. ``count`` stops at ``campaigns.platform.pagination.COUNT_CAP`` (``count_capped`` is then true: there are
more rows, reachable through filters, and pages reach the first ``COUNT_CAP``); a million-row list is never
counted whole. History lists page by keyset instead (``HistoryPagination``): the same answer, cursors that do
not count or skip rows."""

import base64
import binascii
import json

from django.utils.translation import gettext, gettext_lazy
from rest_framework.pagination import BasePagination
from rest_framework.response import Response

from campaigns.platform.errors import ValidationFailed
from campaigns.platform.pagination import CappedPaginator
from campaigns.platform.text import typed_int

PAGE_SIZE = 20
MAX_PAGE_SIZE = 200
BAD_CURSOR = gettext_lazy("Not a page cursor of this list.")  # Persian in locale/fa, as the messages below


def positive_int_param(request, name: str, maximum: int | None = None) -> int | None:
    """A positive integer query parameter, ``None`` when absent or empty; anything else (or above
    ``maximum``) is a 400."""
    raw = request.query_params.get(name, "")
    if raw == "":
        return None
    value = typed_int(raw)
    if value is None or value < 1:
        raise ValidationFailed.field(name, gettext("Enter a positive whole number."))
    if maximum is not None and value > maximum:
        raise ValidationFailed.field(name, gettext("At most %(maximum)s.") % {"maximum": maximum})
    return value


def encode_offset_cursor(offset: int) -> str:
    raw = json.dumps(["o", offset], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_offset_cursor(cursor: str) -> int:
    """The row offset an offset cursor points to; a cursor that is not one of ours is a 400."""
    try:
        kind, offset = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    except (binascii.Error, ValueError, TypeError, UnicodeDecodeError):
        raise ValidationFailed.field("cursor", str(BAD_CURSOR)) from None
    if kind != "o" or not isinstance(offset, int) or isinstance(offset, bool) or offset < 0:
        raise ValidationFailed.field("cursor", str(BAD_CURSOR))
    return offset


PAGE_PARAMETERS = [
    {
        "name": "page",
        "required": False,
        "in": "query",
        "description": "Page number (1-based); past the last page the answer is an empty page.",
        "schema": {"type": "integer", "minimum": 1},
    },
    {
        "name": "size",
        "required": False,
        "in": "query",
        "description": f"Rows per page, {PAGE_SIZE} by default; above {MAX_PAGE_SIZE} is a 400.",
        "schema": {"type": "integer", "minimum": 1, "maximum": MAX_PAGE_SIZE},
    },
    {
        "name": "cursor",
        "required": False,
        "in": "query",
        "description": "The `next` of an earlier answer (with the same filters): the page after it (replaces `page`).",
        "schema": {"type": "string", "maxLength": 500},
    },
]


class PageSizePagination(BasePagination):
    page_size = PAGE_SIZE
    max_page_size = MAX_PAGE_SIZE

    def _size(self, request) -> int:
        return positive_int_param(request, "size", self.max_page_size) or self.page_size

    def paginate_queryset(self, queryset, request, view=None):
        # page=0/-1/abc, size=0/abc/201 and a cursor not ours are a 400 VALIDATION_ERROR, not a silent default.
        self.request = request
        number = positive_int_param(request, "page") or 1
        self.size = self._size(request)
        cursor = request.query_params.get("cursor", "")
        self.number = None if cursor else number
        offset = decode_offset_cursor(cursor) if cursor else (number - 1) * self.size
        self.paginator = CappedPaginator(queryset, self.size)
        rows = self.paginator.window(offset, offset + self.size)
        more = offset + self.size < self.paginator.count
        self.next = encode_offset_cursor(offset + self.size) if more else None
        return rows

    def get_paginated_response(self, data):
        return Response(
            {
                "count": self.paginator.count,
                "count_capped": self.paginator.capped,
                "page": self.number,
                "size": self.size,
                "has_more": self.next is not None,
                "next": self.next,
                "results": data,
            }
        )

    def get_schema_operation_parameters(self, view):
        return [dict(parameter, schema=dict(parameter["schema"])) for parameter in PAGE_PARAMETERS]

    def get_paginated_response_schema(self, schema):
        return {
            "type": "object",
            "required": ["count", "count_capped", "page", "size", "has_more", "next", "results"],
            "properties": {
                "count": {"type": "integer", "nullable": True, "description": "null in a keyset cursor answer"},
                "count_capped": {"type": "boolean", "nullable": True},
                "page": {"type": "integer", "nullable": True, "description": "null in a cursor answer"},
                "size": {"type": "integer"},
                "has_more": {"type": "boolean", "description": "rows follow this page"},
                "next": {
                    "type": "string",
                    "nullable": True,
                    "description": "`?cursor=` of the next page (null: none)",
                },
                "results": schema,
            },
        }


class HistoryPagination(PageSizePagination):
    """History lists (the SMS log, events, timelines): ``?page=&size=`` as everywhere, or ``?cursor=&size=``.

    The cursors are keysets (``campaigns.platform.keyset``): ``next`` (also ``next_cursor``) and
    ``previous_cursor`` (``null``: no such page). A page answer also has the capped ``count``; a cursor answer
    (``page`` and ``count`` null) reads ``size + 1`` rows of an index range and counts nothing, however deep it
    is. The view names its order: ``keyset_time_field`` and ``keyset_descending`` (the queryset is ordered by
    that time, then ``id``).
    """

    def paginate_queryset(self, queryset, request, view=None):
        from campaigns.platform.keyset import encode_cursor, keyset_page_or_400

        self.request = request
        self.keyset = None
        cursor = request.query_params.get("cursor", "")
        if cursor:
            positive_int_param(request, "page")
            self.size = self._size(request)
            self.keyset = keyset_page_or_400(
                queryset,
                time_field=view.keyset_time_field,
                descending=view.keyset_descending,
                size=self.size,
                cursor=cursor,
            )
            return self.keyset.rows
        rows = super().paginate_queryset(queryset, request, view)
        if self.next is not None and rows:  # the keyset of the last row: the next page without an offset
            last = rows[-1]
            self.next = encode_cursor(getattr(last, view.keyset_time_field), last.pk, "n")
        return rows

    def get_paginated_response(self, data):
        if self.keyset is not None:
            return Response(
                {
                    "count": None,
                    "count_capped": None,
                    "page": None,
                    "size": self.size,
                    "has_more": self.keyset.next_cursor is not None,
                    "next": self.keyset.next_cursor,
                    "next_cursor": self.keyset.next_cursor,
                    "previous_cursor": self.keyset.previous_cursor,
                    "results": data,
                }
            )
        response = super().get_paginated_response(data)
        response.data["next_cursor"] = self.next
        response.data["previous_cursor"] = None
        return response

    def get_schema_operation_parameters(self, view):
        parameters = super().get_schema_operation_parameters(view)
        parameters[-1]["description"] = (
            "A `next` (`next_cursor`) or `previous_cursor` of an earlier answer: the page after or before it, "
            "without counting (replaces `page`)."
        )
        return parameters

    def get_paginated_response_schema(self, schema):
        response = super().get_paginated_response_schema(schema)
        response["required"] += ["next_cursor", "previous_cursor"]
        response["properties"]["next_cursor"] = {"type": "string", "nullable": True, "description": "= `next`"}
        response["properties"]["previous_cursor"] = {"type": "string", "nullable": True}
        return response
