"""Files as streams, as `rpython.rlib.streamio` offers them to translated
programs: `open_file_as_stream(path, mode)` and `fdopen_as_stream(fd,
mode)` give a stream with read, readall, readline, write, seek, tell and
close, written over the os functions so that it translates as the
program's own code does and runs unchanged under CPython."""

import os

BUFFER_SIZE = 8192


class StreamError(Exception):
    def __init__(self, message):
        self.message = message


def _flags(mode):
    """The os.open flags of a mode string ('r', 'w', 'a', '+', 'b')."""
    reading = False
    writing = False
    flags = 0
    for c in mode:
        if c == 'r':
            reading = True
        elif c == 'w':
            writing = True
            flags |= os.O_CREAT | os.O_TRUNC
        elif c == 'a':
            writing = True
            flags |= os.O_CREAT | os.O_APPEND
        elif c == '+':
            reading = True
            writing = True
        elif c == 'b':
            pass
        else:
            raise StreamError("invalid mode: " + mode)
    if reading and writing:
        flags |= os.O_RDWR
    elif writing:
        flags |= os.O_WRONLY
    else:
        flags |= os.O_RDONLY
    return flags


def open_file_as_stream(path, mode="r", buffering=-1, signal_checker=None):
    fd = os.open(path, _flags(mode), 0o666)
    return Stream(fd)


def fdopen_as_stream(fd, mode="r", buffering=-1, signal_checker=None):
    return Stream(fd)


class Stream(object):
    """An open file descriptor; reads are buffered so that readline
    does not read a byte at a time."""

    def __init__(self, fd):
        self.fd = fd
        self.buffered = ""
        self.closed = False

    def _fill(self):
        data = os.read(self.fd, BUFFER_SIZE)
        self.buffered += data
        return len(data) > 0

    def read(self, n):
        while len(self.buffered) < n:
            if not self._fill():
                break
        if n > len(self.buffered):
            n = len(self.buffered)
        assert n >= 0
        result = self.buffered[:n]
        self.buffered = self.buffered[n:]
        return result

    def readall(self):
        parts = [self.buffered]
        self.buffered = ""
        while True:
            data = os.read(self.fd, BUFFER_SIZE)
            if not data:
                break
            parts.append(data)
        return "".join(parts)

    def readline(self):
        while True:
            end = self.buffered.find("\n")
            if end >= 0:
                stop = end + 1
                line = self.buffered[:stop]
                self.buffered = self.buffered[stop:]
                return line
            if not self._fill():
                line = self.buffered
                self.buffered = ""
                return line

    def write(self, data):
        while data:
            written = os.write(self.fd, data)
            assert written >= 0
            data = data[written:]

    def tell(self):
        return os.lseek(self.fd, 0, 1) - len(self.buffered)

    def seek(self, offset, whence):
        if whence == 1:
            offset -= len(self.buffered)
        self.buffered = ""
        os.lseek(self.fd, offset, whence)

    def flush(self):
        pass

    def close(self):
        if not self.closed:
            self.closed = True
            os.close(self.fd)
