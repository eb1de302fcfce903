"""The checks of the os functions where a handler catches OSError, as the
original's rposix raises it: the C call (a runtime leaf, `rpy_os_<name>`)
gave -1 (or a null string) and the errno it failed with; the message is
CPython's `str()` of the error ("[Errno 2] No such file or directory",
with ": 'path'" for calls on a path).
"""

import os

from rpython.rtyper.lltypesystem.lltype import malloc, typeOf


def _ll_message(e):
    return "[Errno " + str(e) + "] " + os.strerror(e)


def ll_os_check(r, e):
    """The result r of an os call returning an int, or its OSError."""
    if r < 0:
        raise OSError(_ll_message(e))
    return r


def ll_os_check_path(r, e, path):
    """The same for a call on a path, which the message names."""
    if r < 0:
        msg = _ll_message(e) + ": '"
        n = len(msg)
        m = len(path)
        res = malloc(typeOf(path).TO, n + m + 1)
        i = 0
        while i < n:
            res[i] = msg[i]
            i += 1
        j = 0
        while j < m:
            res[n + j] = path[j]
            j += 1
        res[n + m] = "'"
        raise OSError(res)
    return r


def ll_os_check_str(s, e):
    """The string an os call read, or its OSError (the leaf gave null)."""
    if not s:
        raise OSError(_ll_message(e))
    return s
