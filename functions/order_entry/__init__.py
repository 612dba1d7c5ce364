(  # the package's docstring, as one line: the explorer shows it
    "Order entry: Relational HR and order-entry schema as one adjacency-list table with overloaded GSI1 and "
    "write-sharded GSI2."
)
