"""The write helpers: field-limited updates never overwrite another service's columns; pk-ordered locks."""

import pytest
from django.core.exceptions import ValidationError

from campaigns.models import Workspace
from campaigns.platform.services import lock_in_pk_order, model_update
from tests.conftest import make_workspace


@pytest.mark.django_db
def test_model_update_saves_only_the_named_fields_so_concurrent_updates_both_survive():
    workspace = make_workspace()
    first = Workspace.objects.get(pk=workspace.pk)
    second = Workspace.objects.get(pk=workspace.pk)
    model_update(instance=first, fields=["name"], data={"name": "نام تازه"})
    model_update(instance=second, fields=["time_zone"], data={"time_zone": "UTC"})
    workspace.refresh_from_db()
    assert (workspace.name, workspace.time_zone) == ("نام تازه", "UTC")


@pytest.mark.django_db
def test_model_update_validates_changed_fields_and_skips_unchanged():
    workspace = make_workspace()
    _, changed = model_update(instance=workspace, fields=["name"], data={"name": workspace.name})
    assert changed is False
    with pytest.raises(ValidationError):
        model_update(instance=workspace, fields=["name"], data={"name": "x" * 1000})
    _, changed = model_update(instance=workspace, fields=["name"], data={"other": 1})
    assert changed is False


@pytest.mark.django_db(transaction=True)
def test_lock_in_pk_order_returns_rows_in_primary_key_order():
    from django.db import transaction

    rows = [make_workspace() for _ in range(3)]
    with transaction.atomic():
        locked = lock_in_pk_order(Workspace.objects.filter(pk__in=[r.pk for r in reversed(rows)]))
    assert [w.pk for w in locked] == sorted(r.pk for r in rows)
