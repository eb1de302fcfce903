"""rpy's pure-Python stand-in for the parts of the RPython toolchain that
programs import (rpython.rlib, and rpython.rtyper.lltypesystem.lltype), so
that an RPython program runs untranslated under CPython 2.7 and 3:
`PYTHONPATH=pylib python3 prog.py`.

rpy itself never executes these files: when a program imports one of these
modules, rpy gives each name its translation meaning (see
passes/src/flow/rlib.rs).  Each function here has the behaviour the translated
program has, so that CPython is the oracle of the translated program.

rpython.rtyper holds the low-level helpers, which rpy does translate: the
RPython implementation of lists, strings and checked integer operations
(see rpython/rtyper/__init__.py).
"""
