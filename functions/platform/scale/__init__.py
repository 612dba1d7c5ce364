"""The scale model's verdict (model.py: DynamoDB's limits and prices, judged on what a workload adds up to) and the
explorer's what-if (what_if.py: a model's rows at another rate, from functions/platform/scale-basis.json). `make
scale` (bench/scale/) builds the workloads and judges them with the same code
(docs/adr/0120-scale-what-if-in-the-explorer.md)."""

# The highest rate the what-if takes, a second: far above any table's default quota (40,000 units a second), so a
# design's limits all fall below it. The route's work does not grow with the rate (it scales sums), the numbers do.
MAX_RATE_PER_S = 100_000_000
