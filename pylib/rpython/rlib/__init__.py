"""The RPython library modules a program may import: jit, rarithmetic,
objectmodel and debug."""
