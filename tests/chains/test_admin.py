"""Admin for groups, chains (tree on the change page) and packages (read-only snapshot)."""

import pytest
from django.contrib.auth import get_user_model

from campaigns.chains.models import ChainApprovalPackage
from campaigns.choices import CampaignStatus

from .conftest import make_chain, make_group


@pytest.fixture
def staff_client(client, db, settings):
    settings.ROOT_URLCONF = "tests.chains.admin_urls"
    user = get_user_model().objects.create_superuser("boss", "boss@example.com", "pw-123456")
    client.force_login(user)
    return client


@pytest.mark.django_db
class TestChainsAdmin:
    def test_group_changelist_and_search(self, staff_client, workspace):
        make_group(workspace, "Chiến dịch Tết")
        response = staff_client.get("/admin/chains/campaigngroup/", {"q": "chien"})
        assert response.status_code == 200
        assert "Chiến dịch Tết" in response.content.decode()

    def test_chain_change_page_shows_tree(self, staff_client, workspace):
        chain = make_chain(workspace, make_group(workspace), shape="A>B>D,A>C")
        listing = staff_client.get("/admin/chains/campaignchain/")
        assert listing.status_code == 200
        page = listing.content.decode()
        assert chain["A"].name in page and chain["B"].name not in page  # roots only
        response = staff_client.get(f"/admin/chains/campaignchain/{chain['A'].id}/change/")
        assert response.status_code == 200
        html = response.content.decode()
        for node in chain.values():
            assert node.name in html
        assert html.index(chain["B"].name) < html.index(chain["D"].name)

    def test_package_is_read_only_snapshot(self, staff_client, workspace):
        chain = make_chain(workspace, make_group(workspace), status=CampaignStatus.SUBMITTED)
        package = ChainApprovalPackage.objects.create(
            workspace=workspace,
            root=chain["A"],
            submitted_revision=2,
            submitted_at="2026-01-01T00:00:00Z",
            items=[{"campaign_id": chain["A"].id, "name": "اسنپ‌شات"}],
        )
        response = staff_client.get(f"/admin/chains/chainapprovalpackage/{package.id}/change/")
        assert response.status_code == 200
        assert "اسنپ‌شات" in response.content.decode()
        posted = staff_client.post(f"/admin/chains/chainapprovalpackage/{package.id}/change/", {"reason": "x"})
        assert posted.status_code == 403
        package.refresh_from_db()
        assert package.reason == ""
