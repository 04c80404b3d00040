"""Every write of groups, chains and approval packages (transactions live here)."""
