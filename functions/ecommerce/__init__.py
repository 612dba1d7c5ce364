(  # the package's docstring, as one line: the explorer shows it
    "Ecommerce: E-commerce orders: customers unique on username and email, named addresses, orders with "
    "items, newest orders first."
)
