"""A throw-away channel in one folder: the channel contract's proof (tests/platform/test_channel_contract.py).

Installed only by that test (``EXTRA_APPS=tests.channel_example.apps.ExampleChannelConfig``); no shared file
names it.
"""
