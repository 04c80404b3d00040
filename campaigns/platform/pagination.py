"""Pagers that never count millions: ``CappedPaginator`` counts at most ``COUNT_CAP`` rows.

A pager needs a number of pages, not the exact size of a million-row workspace: counting stops at
``COUNT_CAP`` + 1 rows (``SELECT COUNT(*) FROM (… LIMIT cap + 1)``, an index range, not the whole table), and a
list longer than that says so honestly ("بیش از ۱۰٬۰۰۰") and pages through its first ``COUNT_CAP`` rows — a
filter or a search narrows it further. Pages and the API (``count_capped``) share it.
"""

from django.core.paginator import Paginator
from django.utils.functional import cached_property

from campaigns.platform.jalali import fa_digits

COUNT_CAP = 10_000


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

    @property
    def count_label(self) -> str:
        """The count for people: Persian digits, "بیش از …" past the cap."""
        shown = fa_digits(f"{self.count:,}".replace(",", "٬"))
        return f"بیش از {shown}" if self.capped else shown
