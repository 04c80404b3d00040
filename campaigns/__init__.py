"""Product domain: workspaces (tenancy), members, targets, campaigns."""
