"""A worker starts its Chromium when it serves a browser queue — whichever way its queues were chosen."""

import pytest
from django.conf import settings

from workers import worker


@pytest.mark.parametrize(
    ("options", "serves_browser"),
    [
        ({}, True),  # no -Q: every declared queue (`make run`'s one worker)
        ({"queues": None, "exclude_queues": "browser"}, False),  # -X browser: the production Procfile's worker
        ({"queues": "default,engine,sms"}, False),
        ({"queues": ["browser"]}, True),  # the production Procfile's browser worker
        ({"queues": "default, browser"}, True),
    ],
)
def test_the_worker_knows_whether_it_serves_the_browser_queue(options, serves_browser, monkeypatch):
    monkeypatch.setitem(worker._state, "browser_queue", None)
    assert any(q.name == "browser" for q in settings.CELERY_TASK_QUEUES)
    worker._note_queues(conf=None, options=options)
    assert worker._state["browser_queue"] is serves_browser
