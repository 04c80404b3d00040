"""The calendar a workspace counts schedule months in (``Workspace.settings["calendar"]``).

"jalali" is written for every new workspace (``campaigns.services.workspaces.workspace_create``); a
workspace without the key counts Gregorian months. The schedule maths that use it: ``campaigns.chains.schedule``.
"""

GREGORIAN, JALALI = "gregorian", "jalali"
CALENDAR_SETTING = "calendar"  # Workspace.settings key


def workspace_calendar(workspace) -> str:
    """``Workspace.settings["calendar"]``: "jalali" or "gregorian" (absent)."""
    return JALALI if (workspace.settings or {}).get(CALENDAR_SETTING) == JALALI else GREGORIAN
