"""Browser steps come from one registry: validation at creation, the runner and the API schema read it."""

import pytest

from workers.errors import InvalidSteps
from workers.runner import BrowserHost
from workers.steps import StepHandler, step_names, validate_steps
from workers.steps import base as steps_base


class Scroll(StepHandler):
    name = "scroll_test"
    label = "پیمایش"
    keys = frozenset({"selector"})
    mutates = True

    def validate(self, config):
        return [] if config.get("selector") else ["این گام selector لازم دارد."]

    def run(self, page, config, ctx):
        page.calls.append((self.name, config["selector"], ctx.timeout_ms))


class FakePage:
    url = "https://example.com/post/1"

    def __init__(self):
        self.calls = []


@pytest.fixture
def scroll_step():
    with steps_base.STEPS.added(Scroll.name, Scroll()):
        yield


def test_a_registered_step_is_validated_and_run_without_touching_the_runner(scroll_step):
    assert "scroll_test" in step_names()
    assert validate_steps([{"action": "scroll_test", "selector": "#feed"}]) == [
        {"action": "scroll_test", "selector": "#feed"}
    ]
    with pytest.raises(InvalidSteps) as caught:
        validate_steps([{"action": "scroll_test"}])
    assert caught.value.details == {"steps[0]": ["این گام selector لازم دارد."]}

    page = FakePage()
    host = BrowserHost(executable_path="", args=[], step_timeout_ms=1234)
    data, screenshot = host._run_steps(page, {"link": page.url, "steps": [{"action": "scroll_test", "selector": "#x"}]})
    assert page.calls == [("scroll_test", "#x", 1234)]
    assert data["steps"] == 1 and screenshot is None


def test_a_step_that_may_change_the_site_marks_the_failure_as_mutated(scroll_step):
    class Boom(Exception):
        pass

    class BrokenPage:
        url = "https://example.com/"

        @property
        def calls(self):
            raise Boom("page gone")

    host = BrowserHost(executable_path="", args=[])
    with pytest.raises(Boom) as caught:
        host._run_steps(
            BrokenPage(), {"link": "https://example.com/", "steps": [{"action": "scroll_test", "selector": "#x"}]}
        )
    assert caught.value._mutated is True and caught.value._step == "scroll_test"


def test_unknown_step_types_are_refused_at_creation():
    with pytest.raises(InvalidSteps) as caught:
        validate_steps([{"action": "evaluate", "script": "x"}])
    assert list(caught.value.details) == ["steps[0]"]


def test_the_api_schema_lists_the_registered_step_types(scroll_step):
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    steps = schema["components"]["schemas"]["ActionConfigInputRequest"]["properties"]["steps"]["items"]
    assert set(steps["properties"]["action"]["enum"]) == {*step_names()}
    assert "scroll_test" in steps["properties"]["action"]["enum"]
