"""Each installed app's own settings: the module its ``AppConfig`` names (``settings_module``:
"automation.settings", "campaigns.chains.settings", "sms.settings", "workers.settings"), its UPPER_CASE names
gathered here, so an app (a channel too) brings its settings in its own folder and no shared settings file
names it (campaigns/platform/app_settings.py, docs/architecture.md "Settings beside their owners")."""

from importlib import import_module

from campaigns.platform.app_settings import settings_modules_in
from config.settings.base import INSTALLED_APPS

APP_SETTINGS = settings_modules_in(INSTALLED_APPS)

for _module_name in APP_SETTINGS:
    _module = import_module(_module_name)
    globals().update({name: value for name, value in vars(_module).items() if name.isupper()})
