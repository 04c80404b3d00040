"""Pagers that never count millions: ``CappedPaginator`` counts at most ``COUNT_CAP`` rows.

A pager needs a number of pages, not the exact size of a million-row workspace: counting stops at
``COUNT_CAP`` + 1 rows (``SELECT COUNT(*) FROM (… LIMIT cap + 1)``, an index range, not the whole table), and a
list longer than that says so honestly ("بیش از ۱۰٬۰۰۰") and pages through its first ``COUNT_CAP`` rows — a
filter or a search narrows it further. Pages and the API (``count_capped``) share it.

A page of a list that the count found short (at most ``COUNT_CAP`` rows) is read by its filter and sorted,
never by walking the sort column's index: PostgreSQL plans "a rare match, newest first, 50 rows" as a walk of
the ``created_at`` index checking each row against the filter — it cannot know that a search fragment matches
one target in 100,000 — and a match in the middle of a million-row workspace costs half a million rows. The
count already read the filter's index (a trigram search, a status) and says the matches are few, so the page
orders by its first sort key in a form no index provides (``created_at + interval '0'``, ``id + 0``): the
planner reads the matches through their own index and sorts at most ``COUNT_CAP`` of them. A list past the cap
keeps the index walk, which finds a page of common matches at once.
"""

from datetime import timedelta

from django.core.exceptions import FieldDoesNotExist
from django.core.paginator import Paginator
from django.db import models
from django.db.models import F, Value
from django.db.models.expressions import ExpressionWrapper, OrderBy
from django.utils.functional import cached_property

from campaigns.platform.jalali import fa_digits

COUNT_CAP = 10_000


def _unindexed(model, key):
    """The sort key ``key`` ("-created_at") as an expression no index matches, or ``None`` when it cannot be."""
    if not isinstance(key, str) or "__" in key or key.lstrip("-") in ("?", ""):
        return None
    name = key.lstrip("-")
    try:
        field = model._meta.pk if name == "pk" else model._meta.get_field(name)
    except FieldDoesNotExist:  # an annotation: leave the order as it is
        return None
    if isinstance(field, models.DateTimeField):
        shifted = ExpressionWrapper(F(name) + Value(timedelta(0)), output_field=models.DateTimeField())
    elif isinstance(field, models.IntegerField):  # ids (auto fields are integer fields) and numbers
        shifted = ExpressionWrapper(F(name) + Value(0), output_field=models.BigIntegerField())
    else:
        return None
    return OrderBy(shifted, descending=key.startswith("-"))


def sorted_not_walked(rows):
    """``rows`` ordered as before, its first sort key in a form no index provides (see the module docstring)."""
    query = rows.query
    if query.distinct or query.combinator or not rows.ordered:
        return rows
    keys = list(query.order_by or (rows.model._meta.ordering if query.default_ordering else []))
    first = _unindexed(rows.model, keys[0]) if keys else None
    if first is None:
        return rows
    return rows.order_by(first, *keys[1:])


class CappedPaginator(Paginator):
    cap = COUNT_CAP

    @cached_property
    def _capped_count(self) -> tuple[int, bool]:
        rows = self.object_list
        if hasattr(rows, "query"):
            # A bounded slice, counted in no order: the same number, and the planner may stop at any cap + 1
            # matches (a common search fragment) instead of walking an index in the list's order.
            n = rows.order_by()[: self.cap + 1].count()
        else:
            n = len(rows)
        return min(n, self.cap), n > self.cap

    @cached_property
    def count(self) -> int:
        return self._capped_count[0]

    @property
    def capped(self) -> bool:
        """More rows than ``count`` (which stopped at the cap)."""
        return self._capped_count[1]

    def page(self, number):
        number = self.validate_number(number)
        bottom = (number - 1) * self.per_page
        top = bottom + self.per_page
        if top + self.orphans >= self.count:
            top = self.count
        return self._get_page(self._rows()[bottom:top], number, self)

    def window(self, bottom: int, top: int) -> list:
        """Rows ``bottom`` to ``top`` of the first ``COUNT_CAP`` (none past them: the API's empty page)."""
        top = min(top, self.count)
        return list(self._rows()[bottom:top]) if bottom < top else []

    def _rows(self):
        rows = self.object_list
        if hasattr(rows, "query") and not self.capped:
            rows = sorted_not_walked(rows)  # few matches: read them by the filter, sort them
        return rows

    @property
    def count_label(self) -> str:
        """The count for people: Persian digits, "بیش از …" past the cap."""
        shown = fa_digits(f"{self.count:,}".replace(",", "٬"))
        return f"بیش از {shown}" if self.capped else shown
