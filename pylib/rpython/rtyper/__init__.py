"""The low-level helpers of the rtyper, written in RPython over the lltype
primitives (malloc, fields, array items): the implementation of lists,
strings and checked integer operations that translated programs call.

rpy flows, annotates and rtypes these modules like the user's program
(passes/src/rtype/lowlevel_helpers.rs), one copy per low-level types of the
arguments, so the optimizers and the JIT see into them.  Under CPython they
run on the stand-in objects of rpython.rtyper.lltypesystem.lltype.
"""
