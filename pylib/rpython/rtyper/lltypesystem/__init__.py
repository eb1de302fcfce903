"""Low-level types (see lltype)."""
