"""The browser channel: accounts, proxies, platforms, browser tasks (browser-tasks.md)."""
