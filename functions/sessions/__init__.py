"""Sessions: Session store: tokens keyed by SessionToken, a user's sessions via UserIndex, expiry by TTL."""
