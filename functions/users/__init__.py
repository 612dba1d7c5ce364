"""Users: Users with unique email (1:1 key-value lookups by id and by email)."""
