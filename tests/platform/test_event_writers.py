"""One event shape: every history table extends ``WorkspaceEvent`` with typed choices and one writer module.

The AST scan reads every app module and fails when rows of a ``WorkspaceEvent`` table are created (``Model(…)``,
``Model.objects.create/bulk_create/…`` or the shared ``event_write``/``event_build`` helpers) anywhere but in
the table's own ``<app>/events.py`` — the module with one function per event type.
"""

import ast
from pathlib import Path

import pytest
from django.apps import apps
from django.conf import settings

from campaigns.platform.events import EventImmutable, WorkspaceEvent, event_write
from sms.choices import SmsChannelEventType
from sms.models import SmsChannelEvent
from tests.platform.test_activation_guard import WRITES, _called_name, _modules, _root_name

HELPERS = {"event_write", "event_build", "events_write_bulk", "event_write_unless_repeated"}


def _event_models() -> dict[str, str]:
    """Model name → the module that alone writes it (``<app>/events.py``)."""
    return {
        model.__name__: model.__module__.split(".")[0] + "/events.py"
        for model in apps.get_models()
        if issubclass(model, WorkspaceEvent)
    }


def test_every_history_table_has_the_shared_shape_with_typed_choices():
    tables = _event_models()
    assert {"CampaignEvent", "SmsChannelEvent", "BrowserEvent"} <= set(tables)
    for model in apps.get_models():
        if issubclass(model, WorkspaceEvent):
            assert model.event_types(), f"{model.__name__}.type declares no choices"
            for field in ("workspace", "type", "actor", "data", "created_at"):
                assert model._meta.get_field(field)
            assert (Path(settings.BASE_DIR) / tables[model.__name__]).exists()


def test_event_rows_are_written_only_by_their_apps_events_module():
    tables = _event_models()
    offending, seen = [], set()
    for module, tree in _modules():
        for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)):
            name = _called_name(call)
            if name in HELPERS and call.args:
                model = _root_name(call.args[0])
            elif name in WRITES or (isinstance(call.func, ast.Name) and name in tables):
                model = _root_name(call.func)
            else:
                continue
            if model in tables:
                seen.add(module)
                if module != tables[model]:
                    offending.append(f"{module}: {model} ({name})")
    assert set(tables.values()) <= seen, "the scan must see every writer module"
    assert not offending, "event rows are written by their app's events.py only:\n" + "\n".join(offending)


def test_sms_events_module_has_a_writer_for_every_type():
    source = (Path(settings.BASE_DIR) / "sms/events.py").read_text(encoding="utf-8")
    missing = [t.name for t in SmsChannelEventType if f"T.{t.name}" not in source]
    assert not missing, f"sms/events.py writes no {missing}"


@pytest.mark.django_db
def test_an_undeclared_type_is_refused_and_rows_are_append_only(workspace):
    with pytest.raises(ValueError, match="no event type"):
        event_write(SmsChannelEvent, workspace_id=workspace.id, type="circuit_flapped")
    event = event_write(SmsChannelEvent, workspace_id=workspace.id, type=SmsChannelEventType.CIRCUIT_CLOSED)
    assert SmsChannelEvent.objects.get().get_type_display() == "وصل دوباره کانال"
    event.data = {"changed": True}
    with pytest.raises(EventImmutable):
        event.save()
    with pytest.raises(EventImmutable):
        event.delete()
    assert SmsChannelEvent.objects.get().data == {}
