"""Every write and business rule of the campaigns app lives in this package."""
