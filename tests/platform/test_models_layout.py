"""The campaigns models import in one direction: core ← chain/run models ← the ``campaigns.models`` package."""

import grimp
from django.apps import apps


def test_chain_and_run_models_import_the_core_not_the_package():
    graph = grimp.build_graph("campaigns", cache_dir=None)
    for module in ("campaigns.chains.models", "campaigns.chains.run_models", "campaigns.models.core"):
        assert graph.find_shortest_chain(importer=module, imported="campaigns.models", as_packages=False) is None
    assert graph.direct_import_exists(importer="campaigns.models", imported="campaigns.chains.models")


def test_every_model_keeps_the_campaigns_app_label():
    names = {model.__name__ for model in apps.get_app_config("campaigns").get_models()}
    assert {"Campaign", "CampaignGroup", "ChainApprovalPackage", "CampaignRun", "ConversionEvent"} <= names
