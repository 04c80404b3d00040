"""Two-way SMS: replies read from the providers (poll or push), stored once, matched to targets, keyword opt-outs.

``keywords`` normalises a reply and decides opt-out / opt-in, ``models`` holds the stored replies, ``services``
stores a batch of received messages (docs/sms.md "Replies").
"""
