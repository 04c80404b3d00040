"""bench_enrollment: prints its figures next to the goals, leaves no rows, fails below --min-ratio."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from automation.models import EnrollmentBatch, Execution, ExecutionEvent
from campaigns.models import Target, Workspace

pytestmark = [
    pytest.mark.skipif(connection.vendor != "postgresql", reason="the benchmark needs PostgreSQL"),
    # VACUUM runs outside any transaction.
    pytest.mark.django_db(transaction=True),
]


def _rows() -> tuple[int, ...]:
    return tuple(m.objects.count() for m in (Workspace, Target, Execution, ExecutionEvent, EnrollmentBatch))


def test_prints_figures_and_goals_and_leaves_nothing():
    before = _rows()
    out = StringIO()
    call_command("bench_enrollment", targets=40, stdout=out)
    text = out.getvalue()
    for line in ("preview:", "executions/s", "multi-row INSERT of the same rows", "% of the multi-row INSERT"):
        assert line in text
    assert "goal ≥ 20,000/s" in text and "goal ≥ 20%" in text
    assert _rows() == before


def test_min_ratio_fails_the_run_below_it():
    with pytest.raises(CommandError, match="below --min-ratio"):
        call_command("bench_enrollment", targets=20, min_ratio=1_000_000, stdout=StringIO())
