"""One registry type (``campaigns.platform.registry.Registry``): filled from the apps' ``ready()``, frozen after."""

import pytest

from automation.engine.nodes.base import NODE_TYPES
from automation.engine.registry import ACTIONS, GUARDS, WORKFLOW_TEMPLATES
from campaigns.platform.navigation import MENU
from campaigns.platform.registry import CAMPAIGN_KINDS, DEMO_CONTRIBUTORS, Registry, RegistryFrozen
from campaigns.services.lifecycle import POLICIES
from sms.providers import PROVIDERS
from workers.steps.base import STEPS


def test_every_app_filled_its_registries_when_it_got_ready():
    assert set(PROVIDERS.keys()) >= {"console", "kavenegar", "melipayamak"}
    assert {"goto", "click", "fill"} <= set(STEPS.keys())
    assert {"send_sms", "create_followup"} <= set(ACTIONS.keys()) and "blacklist" in GUARDS
    assert {"journey", "browser"} <= set(CAMPAIGN_KINDS.keys()) and "chains" in POLICIES
    assert [c.name for c in DEMO_CONTRIBUTORS.in_order()] == ["sms", "journey", "browser"]
    assert {"campaigns", "automation", "chains", "sms", "browser", "tools"} <= set(MENU.keys())
    assert len(NODE_TYPES) >= 5 and len(WORKFLOW_TEMPLATES) >= 1


def test_a_registry_is_frozen_once_the_apps_are_ready():
    with pytest.raises(RegistryFrozen):
        PROVIDERS.register("late", object())
    assert "late" not in PROVIDERS


def test_a_taken_key_is_refused_and_a_test_plugin_is_removed_after_its_block():
    registry: Registry[str] = Registry("examples")
    with registry.added("a", "first"):
        with pytest.raises(ValueError):
            with registry.added("a", "second"):
                pass
        assert registry.get("a") == "first" and list(registry) == [("a", "first")]
    assert "a" not in registry and registry.get("a") is None


def test_a_test_may_swap_a_plugin_for_one_block():
    original = PROVIDERS.get("console")
    with PROVIDERS.replaced("console", "stand-in"):
        assert PROVIDERS.get("console") == "stand-in"
    assert PROVIDERS.get("console") is original
