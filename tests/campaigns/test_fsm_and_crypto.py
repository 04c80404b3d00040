"""Campaign status changes are compare-and-set; secrets are encrypted at rest."""

import threading

import pytest
from cryptography.fernet import Fernet
from django.db import connection

from campaigns.models import Campaign, CampaignEvent
from campaigns.platform.crypto import EncryptedTextField, _fernet, decrypt, encrypt
from campaigns.platform.errors import InvalidTransition, StaleRevision
from campaigns.platform.fsm import fsm_apply
from campaigns.services.campaigns import campaign_transition

from ..conftest import make_campaign


@pytest.mark.django_db
def test_transition_writes_status_revision_and_one_event(actor, workspace):
    campaign = make_campaign(workspace)
    campaign = campaign_transition(actor=actor, campaign_id=campaign.id, transition="activate", expected_revision=1)
    assert (campaign.status, campaign.revision) == ("active", 2)
    event = CampaignEvent.objects.get(campaign=campaign)
    assert (event.from_status, event.to_status, event.actor_id) == ("draft", "active", actor.user.id)


@pytest.mark.django_db
def test_lost_race_changes_nothing(workspace):
    campaign = make_campaign(workspace, status="active")
    stale_copy = Campaign.objects.get(pk=campaign.pk)
    fsm_apply(campaign, "pause")
    with pytest.raises(StaleRevision):
        fsm_apply(stale_copy, "cancel")
    assert Campaign.objects.get(pk=campaign.pk).status == "paused"


@pytest.mark.django_db
def test_one_return_convention_for_every_status_machine(workspace):
    """Campaigns, executions and chain runs share one compare-and-set: True and the instance updated in
    memory when written; a lost race or a refused transition writes nothing and returns False (non-strict)
    or raises (strict); a lost race re-reads the row."""
    campaign = make_campaign(workspace, status="active")
    stale_copy = Campaign.objects.get(pk=campaign.pk)
    assert fsm_apply(campaign, "pause") is True
    assert (campaign.status, campaign.revision) == ("paused", 2)
    assert Campaign.objects.get(pk=campaign.pk).updated_at == campaign.updated_at
    assert fsm_apply(stale_copy, "cancel", strict=False) is False
    assert (stale_copy.status, stale_copy.revision) == ("paused", 2)  # re-read
    assert fsm_apply(campaign, "pause", strict=False) is False  # not allowed from paused
    with pytest.raises(InvalidTransition):
        fsm_apply(campaign, "pause")
    assert Campaign.objects.get(pk=campaign.pk).revision == 2 and not CampaignEvent.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_two_concurrent_transitions_only_one_wins(workspace):
    if connection.vendor != "postgresql":
        pytest.skip("needs real concurrent transactions (PostgreSQL)")
    campaign = make_campaign(workspace, status="active")
    barrier = threading.Barrier(2)
    results: list[str] = []

    def worker(transition: str) -> None:
        copy = Campaign.objects.get(pk=campaign.pk)
        barrier.wait()
        try:
            fsm_apply(copy, transition)
            results.append(transition)
        except StaleRevision:
            results.append("lost")
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=(t,)) for t in ("pause", "complete")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results).count("lost") == 1
    final = Campaign.objects.get(pk=campaign.pk)
    assert final.revision == 2
    assert final.status == {"pause": "paused", "complete": "completed"}[next(r for r in results if r != "lost")]


def test_encryption_roundtrip_and_rotation(settings):
    old, new = Fernet.generate_key().decode(), Fernet.generate_key().decode()
    settings.FIELD_ENCRYPTION_KEY = old
    token = encrypt("cookie=secret")
    assert "secret" not in token
    settings.FIELD_ENCRYPTION_KEY = f"{new},{old}"  # rotate: new key first, old still decrypts
    assert decrypt(token) == "cookie=secret"
    settings.FIELD_ENCRYPTION_KEY = new
    with pytest.raises(ValueError):
        decrypt(token)
    _fernet.cache_clear()


def test_encrypted_field_stores_ciphertext():
    field = EncryptedTextField()
    stored = field.get_prep_value("p@ss")
    assert stored != "p@ss"
    assert field.from_db_value(stored, None, None) == "p@ss"
    assert field.get_prep_value("") == ""
