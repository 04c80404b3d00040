"""Each installed channel's own settings: the module its ``Channel`` declares (``Channel.settings``: "sms.settings",
"workers.settings"), its UPPER_CASE names gathered here, so a new channel brings its settings in its own folder
and no shared settings file names it (docs/architecture.md "A channel")."""

from importlib import import_module

from campaigns.platform.channels import channels_in
from config.settings.base import INSTALLED_APPS

CHANNEL_SETTINGS: tuple[str, ...] = tuple(c.settings for c in channels_in(INSTALLED_APPS) if c.settings)

for _module_name in CHANNEL_SETTINGS:
    _module = import_module(_module_name)
    globals().update({name: value for name, value in vars(_module).items() if name.isupper()})
