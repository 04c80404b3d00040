"""Campaign groups, follow-up chains and chain approval packages (stories 439–442)."""
