BEAT_SCHEDULE = {"example-poll": {"task": "channel_example.poll", "schedule": 60.0}}
