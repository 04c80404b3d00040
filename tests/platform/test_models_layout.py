"""The models import in one direction: the campaign core ← the chains app (groups, packages, runs)."""

import grimp
from django.apps import apps


def test_chain_and_run_models_import_the_core_and_the_core_not_them():
    graph = grimp.build_graph("campaigns", cache_dir=None)
    for module in ("campaigns.chains.models", "campaigns.chains.run_models"):
        assert graph.find_shortest_chain(importer=module, imported="campaigns.models", as_packages=False) is None
    for module in ("campaigns.models", "campaigns.models.core"):
        assert graph.find_shortest_chain(importer=module, imported="campaigns.chains.models") is None
    assert graph.direct_import_exists(importer="campaigns.chains.models", imported="campaigns.chains.run_models")


def test_chain_models_belong_to_the_chains_app_and_keep_their_tables():
    core = {model.__name__ for model in apps.get_app_config("campaigns").get_models()}
    chains = {model.__name__: model._meta.db_table for model in apps.get_app_config("chains").get_models()}
    assert {"Campaign", "Target", "TargetList"} <= core and not {"CampaignGroup", "CampaignRun"} & core
    assert chains["CampaignGroup"] == "campaigns_campaigngroup"
    assert chains["ChainApprovalPackage"] == "campaigns_chainapprovalpackage"
    assert chains["CampaignRun"] == "campaigns_campaignrun"
    assert chains["ConversionEvent"] == "campaigns_conversionevent"
