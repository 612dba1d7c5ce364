"""Connected car: its entities, access patterns and rules, read from catalog.toml beside this file."""

from functions.shared.catalog import load

ENTITIES, COLUMNS, PATTERNS, RULES, EXAMPLES, STREAMS, PERSONA = load(__file__)
