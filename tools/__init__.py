"""Developer tools that are neither deployed nor part of the local runtime."""
