"""Actions the automation app itself ships (channels ship theirs in their own app)."""
