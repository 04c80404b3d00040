"""In-app notifications and follow-up activities (kernel level: every app may notify a member)."""
