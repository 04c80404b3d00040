"""``?page=&size=`` pagination: {"count", "count_capped", "page", "size", "results"}.

``count`` stops at ``campaigns.platform.pagination.COUNT_CAP`` (``count_capped`` is then true: there are more
rows, reachable through filters); a million-row list is never counted whole."""

from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response

from campaigns.platform.errors import ValidationFailed
from campaigns.platform.pagination import CappedPaginator


def _positive_int(request, name: str, maximum: int | None = None) -> int | None:
    """A positive integer query parameter, ``None`` when absent or empty; anything else is a 400."""
    raw = request.query_params.get(name, "")
    if raw == "":
        return None
    if not raw.isascii() or not raw.isdigit() or int(raw) < 1:
        raise ValidationFailed.field(name, "یک عدد صحیح مثبت وارد کنید.")
    value = int(raw)
    return min(value, maximum) if maximum else value


class PageSizePagination(PageNumberPagination):
    page_query_param = "page"
    page_size_query_param = "size"
    page_size = 20
    max_page_size = 200
    django_paginator_class = CappedPaginator

    def paginate_queryset(self, queryset, request, view=None):
        # page=0/-1/abc and size=0/abc are a 400 VALIDATION_ERROR, not a 404 or a silent default.
        _positive_int(request, self.page_query_param)
        _positive_int(request, self.page_size_query_param)
        return super().paginate_queryset(queryset, request, view)

    def get_paginated_response(self, data):
        return Response(
            {
                "count": self.page.paginator.count,
                "count_capped": self.page.paginator.capped,
                "page": self.page.number,
                "size": self.get_page_size(self.request),
                "results": data,
            }
        )

    def get_schema_operation_parameters(self, view):
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            parameter["schema"]["minimum"] = 1
            if parameter["name"] == self.page_size_query_param:
                parameter["schema"]["maximum"] = self.max_page_size
        return parameters

    def get_paginated_response_schema(self, schema):
        return {
            "type": "object",
            "required": ["count", "count_capped", "page", "size", "results"],
            "properties": {
                "count": {"type": "integer"},
                "count_capped": {"type": "boolean"},
                "page": {"type": "integer"},
                "size": {"type": "integer"},
                "results": schema,
            },
        }


class HistoryPagination(PageSizePagination):
    """History lists (the SMS log, events, timelines): ``?page=&size=`` as everywhere, or ``?cursor=&size=``.

    Both answers carry ``next_cursor`` / ``previous_cursor`` (``null``: no such page). A page answer also has
    the capped ``count``; a cursor answer (``page`` and ``count`` null) reads ``size + 1`` rows of an index
    range and counts nothing, however deep it is (``campaigns.platform.keyset``). The view names its order:
    ``keyset_time_field`` and ``keyset_descending`` (the queryset is ordered by that time, then ``id``).
    """

    cursor_query_param = "cursor"

    def paginate_queryset(self, queryset, request, view=None):
        from campaigns.platform.keyset import encode_cursor, keyset_page_or_400

        self.request = request
        self.keyset = None
        self.time_field = view.keyset_time_field
        self.descending = view.keyset_descending
        cursor = request.query_params.get(self.cursor_query_param, "")
        if cursor:
            _positive_int(request, self.page_size_query_param)
            self.keyset = keyset_page_or_400(
                queryset,
                time_field=self.time_field,
                descending=self.descending,
                size=self.get_page_size(request),
                cursor=cursor,
            )
            return self.keyset.rows
        rows = super().paginate_queryset(queryset, request, view)
        self.next_key = None
        if rows and self.page.has_next():
            last = rows[-1]
            self.next_key = encode_cursor(getattr(last, self.time_field), last.pk, "n")
        return rows

    def get_paginated_response(self, data):
        if self.keyset is not None:
            return Response(
                {
                    "count": None,
                    "count_capped": None,
                    "page": None,
                    "size": self.keyset.size,
                    "next_cursor": self.keyset.next_cursor,
                    "previous_cursor": self.keyset.previous_cursor,
                    "results": data,
                }
            )
        response = super().get_paginated_response(data)
        response.data["next_cursor"] = self.next_key
        response.data["previous_cursor"] = None
        return response

    def get_schema_operation_parameters(self, view):
        parameters = super().get_schema_operation_parameters(view)
        parameters.append(
            {
                "name": self.cursor_query_param,
                "required": False,
                "in": "query",
                "description": "A `next_cursor` or `previous_cursor` of an earlier answer: the page after or "
                "before it, without counting (replaces `page`).",
                "schema": {"type": "string"},
            }
        )
        return parameters

    def get_paginated_response_schema(self, schema):
        return {
            "type": "object",
            "required": ["count", "count_capped", "page", "size", "next_cursor", "previous_cursor", "results"],
            "properties": {
                "count": {"type": "integer", "nullable": True, "description": "null in a cursor answer"},
                "count_capped": {"type": "boolean", "nullable": True},
                "page": {"type": "integer", "nullable": True, "description": "null in a cursor answer"},
                "size": {"type": "integer"},
                "next_cursor": {"type": "string", "nullable": True},
                "previous_cursor": {"type": "string", "nullable": True},
                "results": schema,
            },
        }
