"""Table formats (schemas, metadata, atomic read/write) and, later, the bundled tables."""
