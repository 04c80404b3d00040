"""The staff menu as data (after NetBox's ``navigation``): each app contributes its groups of links.

An app lists its part of the menu in its ``navigation.py`` and registers it from ``AppConfig.ready()``:

    MENU = (MenuGroup("browser", order=20, label="کارهای مرورگر", testid="nav-browser", items=(
        MenuItem("browser-campaigns", "کمپین‌های مرورگر"),
        MenuItem("browser-accounts", "حساب‌ها"),
    )),)
    register_menu(*MENU)

``templates/base.html`` renders the groups by ``order``: a group with a ``label`` is a drop-down, one
without puts its links in the bar. A link is shown only when the user may open it: the page's own
permission (what its ``workspace_page`` declares) unless the item names ``permissions`` (shown with any
of them; a role holding one must be able to open the page, ``tests/pages/test_menu.py`` checks it);
``staff_only`` for the admin. A group with no link left is not shown; a user in no workspace sees only
the links that need none.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from django.urls import resolve, reverse

from campaigns.platform.pages import page_permissions
from campaigns.platform.registry import Registry


@dataclass(frozen=True)
class MenuItem:
    """One link: a URL name without arguments and its Persian label."""

    url_name: str
    label: str
    permissions: tuple[str, ...] = ()  # shown with any of them; () = the linked page's own permission
    staff_only: bool = False  # Django staff (the admin), whatever the workspace role
    testid: str = ""


@dataclass(frozen=True)
class MenuGroup:
    """A set of links in one place of the bar (``label``: a drop-down with that heading)."""

    key: str
    order: int
    items: tuple[MenuItem, ...]
    label: str = ""
    testid: str = ""


@dataclass(frozen=True)
class ShownItem:
    url: str
    label: str
    testid: str


@dataclass(frozen=True)
class ShownGroup:
    label: str
    testid: str
    items: list[ShownItem]


MENU: Registry[MenuGroup] = Registry("menu")


def register_menu(*groups: MenuGroup) -> None:
    for group in groups:
        MENU.register(group.key, group)


@cache
def _page_read_permission(url_name: str) -> tuple[bool, str | None]:
    """(is a workspace page, the permission it needs to be opened) of a link."""
    declared = page_permissions(resolve(reverse(url_name)).func)
    return (declared is not None, declared.read if declared else None)


def item_visible(item: MenuItem, *, user, actor) -> bool:
    """May this user open the link from the menu (see the module)."""
    if item.staff_only:
        return bool(user.is_staff)
    workspace_page, read = _page_read_permission(item.url_name)
    if not workspace_page:
        return True
    if actor is None:
        return False
    needed = item.permissions or ((read,) if read else ())
    return not needed or any(actor.has(perm) for perm in needed)


def menu_for(*, user, actor) -> list[ShownGroup]:
    """The menu of a signed-in user in the current workspace (``actor``, or None outside any), in order."""
    shown = []
    for group in MENU.in_order():
        items = [
            ShownItem(url=reverse(item.url_name), label=item.label, testid=item.testid)
            for item in group.items
            if item_visible(item, user=user, actor=actor)
        ]
        if items:
            shown.append(ShownGroup(label=group.label, testid=group.testid, items=items))
    return shown
