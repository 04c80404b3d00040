"""Admin: every browser model is registered and loads; secrets never appear in forms."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from workers.models import BrowserAccount, Proxy

from .conftest import make_account, make_proxy

pytestmark = pytest.mark.django_db

MODELS = [
    "browseraccount",
    "proxy",
    "actionconfig",
    "campaignplatform",
    "browsertask",
    "browsertaskscreenshot",
    "campaignstatistics",
    "browserevent",
]


@pytest.fixture
def admin_client(client):
    user = get_user_model().objects.create_superuser("root", "root@example.com", "pw-123456")
    client.force_login(user)
    return client


@pytest.mark.parametrize("model", MODELS)
def test_changelists_load_with_search(admin_client, workspace, model):
    make_account(workspace)
    response = admin_client.get(reverse(f"admin:workers_{model}_changelist"), {"q": "x"})
    assert response.status_code == 200


def test_change_forms_never_render_secrets_and_blank_keeps_them(admin_client, workspace):
    account = make_account(workspace, cookies="session=valid-admin-secret")
    proxy = make_proxy(workspace, username="u", password="admin-proxy-secret")
    page = admin_client.get(reverse("admin:workers_browseraccount_change", args=[account.pk])).content.decode()
    assert "valid-admin-secret" not in page
    page = admin_client.get(reverse("admin:workers_proxy_change", args=[proxy.pk])).content.decode()
    assert "admin-proxy-secret" not in page
    response = admin_client.post(
        reverse("admin:workers_proxy_change", args=[proxy.pk]),
        {
            "workspace": workspace.pk,
            "label": "renamed",
            "protocol": "http",
            "host": "127.0.0.1",
            "port": 3128,
            "username": "u",
            "password": "",
            "is_available": "on",
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    proxy = Proxy.objects.get(pk=proxy.pk)
    assert proxy.label == "renamed" and proxy.password == "admin-proxy-secret"
    assert BrowserAccount.objects.get(pk=account.pk).cookies == "session=valid-admin-secret"
