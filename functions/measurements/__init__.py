"""Measurements (seed 002, "1:N relationships" and "Use case: Time Series Data"): device readings binned per device
and 400 ms (one slot a millisecond), each write within one write unit, 90 days of retention by TTL."""
