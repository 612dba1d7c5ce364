"""Measurements (seed 002, "1:N relationships" and "Use case: Time Series Data"): device readings binned per device
and 5 minutes, one write per bin, 90 days of retention by TTL."""
