"""Engine services: every write (keyword-only, typed, transactions here)."""
