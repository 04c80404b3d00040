"""``Accept-Language: en`` gets English error messages (the codes never change); without it, Persian."""

import importlib
import re
from pathlib import Path

import pytest

from tests.platform.test_hostile_input import assert_envelope

pytestmark = pytest.mark.django_db


def test_accept_language_en_gets_english_messages_with_the_same_codes(api):
    persian = assert_envelope(api.get("/api/v1/targets/999999"), 404, "NOT_FOUND")
    english = assert_envelope(api.get("/api/v1/targets/999999", HTTP_ACCEPT_LANGUAGE="en-US,en;q=0.9"), 404)
    assert persian["error"]["message"] == "مورد خواسته‌شده پیدا نشد."
    assert english["error"] == {"code": "NOT_FOUND", "message": "Not found.", "details": {}}


def test_english_field_errors(api):
    response = api.post("/api/v1/target-lists", {"nmae": "x"}, HTTP_ACCEPT_LANGUAGE="en")
    body = assert_envelope(response, 400, "VALIDATION_ERROR")
    assert body["error"]["message"] == "The request is not valid; see details."
    assert body["error"]["details"] == {"nmae": ["Unknown field."]}
    assert response["Content-Language"] == "en"
    persian = assert_envelope(api.post("/api/v1/target-lists", {"nmae": "x"}), 400)
    assert persian["error"]["details"] == {"nmae": ["این فیلد شناخته نیست."]}
    response = api.post("/api/v1/target-lists", {}, HTTP_ACCEPT_LANGUAGE="en")
    assert assert_envelope(response, 400)["error"]["details"] == {"name": ["This field is required."]}


def test_an_unsupported_language_falls_back_to_persian(api):
    body = assert_envelope(api.get("/api/v1/targets/999999", HTTP_ACCEPT_LANGUAGE="de"), 404)
    assert body["error"]["message"] == "مورد خواسته‌شده پیدا نشد."


ROOTS = ("campaigns", "automation", "sms", "workers", "config")
PERSIAN = re.compile(r"[\u0600-\u06ff]")


def _sources():
    base = Path(__file__).resolve().parents[2]
    for root in ROOTS:
        for path in sorted((base / root).rglob("*.py")):
            if "migrations" not in path.parts:
                yield base, path


def _error_classes() -> list[type]:
    """Every error class of the code base: each module defining one (a ``default_message``) imported first."""
    from campaigns.platform.errors import PlatformError

    for base, path in _sources():
        if "default_message =" in path.read_text():
            importlib.import_module(".".join(path.relative_to(base).with_suffix("").parts))
    found, stack = [], [PlatformError]
    while stack:
        cls = stack.pop()
        found.append(cls)
        stack.extend(cls.__subclasses__())
    return found


def test_every_error_class_has_its_english_message():
    classes = _error_classes()
    assert len(classes) > 60
    without = [cls.__qualname__ for cls in classes if "code" in cls.__dict__ and "english" not in cls.__dict__]
    assert without == []
    persian = [cls.__qualname__ for cls in classes if not cls.english or PERSIAN.search(cls.english)]
    assert persian == []


def test_every_code_the_api_can_answer_reads_in_english():
    """The codes of the error classes, the codes given at a raise (``code="…"``), the envelope's own and the plain
    Django views' (``json_error``): each has an English sentence, not its words spelled out."""
    from campaigns.platform.api.envelope import _DRF_CODES, ENGLISH
    from campaigns.platform.errors import ENGLISH_BY_CODE

    codes = {cls.code for cls in _error_classes()} | {code for _, code, _, _ in _DRF_CODES}
    literal = re.compile(r'(?:\bcode=|json_error\(|error_body\()\s*"([A-Z][A-Z0-9_]+)"')
    for _, path in _sources():
        codes |= set(literal.findall(path.read_text()))
    assert {"NOT_FOUND", "LAUNCH_BLOCKED", "IDEMPOTENCY_KEY_REUSED", "METHOD_NOT_ALLOWED", "API_KEY_SCOPE"} <= codes
    missing = sorted(code for code in codes if code not in ENGLISH and code not in ENGLISH_BY_CODE)
    assert missing == []
    assert all(not PERSIAN.search(text) for text in ENGLISH.values())
    documented = (Path(__file__).resolve().parents[2] / "docs" / "api.md").read_text()
    assert sorted(code for code in codes if f"| `{code}` |" not in documented) == []


def test_a_product_error_reads_in_english(api, actor):
    from tests.automation.helpers import end_node, linear_graph, publish, sms_node

    workflow = publish(actor, linear_graph(sms_node("a"), end_node()))
    url = f"/api/v1/workflows/{workflow.id}/validate"
    persian = assert_envelope(api.post(url), 409, "NO_DRAFT_VERSION")
    english = assert_envelope(api.post(url, HTTP_ACCEPT_LANGUAGE="en"), 409, "NO_DRAFT_VERSION")
    assert PERSIAN.search(persian["error"]["message"])
    assert english["error"]["message"] == "This workflow has no draft version; create a new version first."


def test_the_pagination_messages_follow_the_language(api):
    english = assert_envelope(api.get("/api/v1/targets", {"size": 201}, HTTP_ACCEPT_LANGUAGE="en"), 400)
    assert english["error"]["details"] == {"size": ["At most 200."]}
    persian = assert_envelope(api.get("/api/v1/targets", {"size": 201}), 400)
    assert persian["error"]["details"] == {"size": ["حداکثر 200."]}
    for url in ("/api/v1/targets", "/api/v1/sms/attempts"):
        english = assert_envelope(api.get(url, {"cursor": "x"}, HTTP_ACCEPT_LANGUAGE="en"), 400)
        assert english["error"]["details"] == {"cursor": ["Not a page cursor of this list."]}
        persian = assert_envelope(api.get(url, {"cursor": "x"}), 400)
        assert persian["error"]["details"] == {"cursor": ["نشانگر صفحه نامعتبر است."]}
    english = assert_envelope(api.get("/api/v1/targets", {"page": "0"}, HTTP_ACCEPT_LANGUAGE="en"), 400)
    assert english["error"]["details"] == {"page": ["Enter a positive whole number."]}
