"""Strings (rpy_string: GcStruct {hash, length, ..Array(Char)})."""
