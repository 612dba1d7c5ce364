"""Contacts (seed "A Modeling Approach for AWS DynamoDB"): persons, addresses and their relationships over time, one
table with overloaded keys and three indexes."""
