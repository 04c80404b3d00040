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
