"""Declarative action configurations (steps + logged-in check per platform and action)."""

from django.db import IntegrityError, transaction

from campaigns.platform.permissions import Perm
from campaigns.platform.tenancy import Actor, get_scoped
from workers.errors import ActionConfigExists
from workers.models import ActionConfig
from workers.services.accounts import row_update
from workers.steps import check_goto_urls, validate_login_check, validate_steps


def action_config_create(
    *, actor: Actor, platform: str, action_type: str, steps: list, login_check=None
) -> ActionConfig:
    actor.require(Perm.MANAGE_BROWSER)
    steps = validate_steps(steps)
    check_goto_urls(steps)
    try:
        with transaction.atomic():
            return ActionConfig.objects.create(
                workspace=actor.workspace,
                platform=platform,
                action_type=action_type,
                steps=steps,
                login_check=validate_login_check(login_check),
            )
    except IntegrityError:
        raise ActionConfigExists() from None


def action_config_update(*, actor: Actor, config_id: int, data: dict) -> ActionConfig:
    actor.require(Perm.MANAGE_BROWSER)
    config = get_scoped(ActionConfig, actor.workspace, config_id)
    changes = {field: data[field] for field in ("platform", "action_type") if field in data}
    if "steps" in data:
        changes["steps"] = validate_steps(data["steps"])
        check_goto_urls(changes["steps"])
    if "login_check" in data:
        changes["login_check"] = validate_login_check(data["login_check"])
    try:
        with transaction.atomic():
            row_update(instance=config, fields=["platform", "action_type", "steps", "login_check"], data=changes)
    except IntegrityError:
        raise ActionConfigExists() from None
    return config


def action_config_delete(*, actor: Actor, config_id: int) -> None:
    actor.require(Perm.MANAGE_BROWSER)
    get_scoped(ActionConfig, actor.workspace, config_id).delete()
