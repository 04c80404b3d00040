"""DRF API of the campaigns app and the platform-wide API conventions."""
