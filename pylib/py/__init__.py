"""rpy's stand-in for the `py` library, as far as RPython targets use it
at import time: `py.path.local(__file__)` names the target's file."""

from py import path
