"""`py.path.local`: a file system path, as targets build one from their
`__file__` at import time."""

import os


class local(object):
    def __init__(self, path='.'):
        self.strpath = path

    def __str__(self):
        return self.strpath

    def basename(self):
        return os.path.basename(self.strpath)

    def dirpath(self):
        return local(os.path.dirname(self.strpath))

    def join(self, *parts):
        return local(os.path.join(self.strpath, *parts))

    def check(self):
        return os.path.exists(self.strpath)
