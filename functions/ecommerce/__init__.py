"""Ecommerce: E-commerce orders: customers unique on username and email, named addresses, orders with items, newest orders first."""
