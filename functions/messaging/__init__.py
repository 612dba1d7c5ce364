"""Messaging: Messaging app: bodies in the Messages table, Inbox/Outbox GSIs project only headers (1 RCU per page)."""
