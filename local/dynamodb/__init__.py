"""DynamoDB: moto's, corrected where it behaves unlike DynamoDB (`fidelity`), with consumed capacity computed by
DynamoDB's rules (`capacity`) and TTL deletions (`ttl`), which nothing local does by itself.
"""
