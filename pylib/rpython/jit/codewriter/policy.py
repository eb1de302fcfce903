"""`JitPolicy`, which a target's `jitpolicy(driver)` returns to tell the
JIT's code writer which functions to look inside. rpy's JIT looks inside
every function its hints do not exclude, so the policy only has to exist;
it is not translated."""


class JitPolicy(object):
    def __init__(self, jithookiface=None):
        self.jithookiface = jithookiface
        self.supports_floats = False
        self.supports_longlong = False
        self.supports_singlefloats = False

    def set_supports_floats(self, flag):
        self.supports_floats = flag

    def set_supports_longlong(self, flag):
        self.supports_longlong = flag

    def set_supports_singlefloats(self, flag):
        self.supports_singlefloats = flag

    def look_inside_function(self, func):
        return True
