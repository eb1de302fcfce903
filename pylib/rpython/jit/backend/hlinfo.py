"""Where a translated program tells the JIT's tools about itself: the
original's targets store the executable's path here (`highleveljitinfo.
sys_executable = argv[0]`) for its log viewer.  An ordinary prebuilt
instance: storing to it translates like any attribute."""


class HighLevelJITInfo(object):
    sys_executable = None


highleveljitinfo = HighLevelJITInfo()
