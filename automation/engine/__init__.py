"""The engine core: registries, graph, validator, handlers, runner, scheduler.

Nothing here names a channel: actions, guards, variables, condition operators
and retry strategies plug in through ``automation.engine.registry``.
"""
