"""``?page=&size=`` pagination: {"count", "page", "size", "results"}."""

from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response


class PageSizePagination(PageNumberPagination):
    page_query_param = "page"
    page_size_query_param = "size"
    page_size = 20
    max_page_size = 200

    def get_paginated_response(self, data):
        return Response(
            {
                "count": self.page.paginator.count,
                "page": self.page.number,
                "size": self.get_page_size(self.request),
                "results": data,
            }
        )

    def get_paginated_response_schema(self, schema):
        return {
            "type": "object",
            "required": ["count", "page", "size", "results"],
            "properties": {
                "count": {"type": "integer"},
                "page": {"type": "integer"},
                "size": {"type": "integer"},
                "results": schema,
            },
        }
