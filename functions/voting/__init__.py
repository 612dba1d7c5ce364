"""Voting (seed 002, "Real-time voting"): one ballot per user and poll, write-sharded totals aggregated from the
RawVotes stream exactly once, recount."""
