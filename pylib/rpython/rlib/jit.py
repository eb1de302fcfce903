"""Hints for the tracing JIT generator.

Untranslated, every hint is a no-op: the decorators return the function they
decorate (after noting the hint on it, for tests that look), the value hints
return their argument, and the JitDriver's merge points do nothing.
"""


def _mark(func, hint):
    """Notes `hint` on `func` (as `func._jit_hints_`) and returns `func`."""
    hints = getattr(func, '_jit_hints_', ())
    func._jit_hints_ = hints + (hint,)
    return func


def elidable(func):
    """The function's result depends only on its arguments and it has no
    side effects visible to the program: the JIT may fold calls with
    constant arguments and remove repeated ones."""
    return _mark(func, 'elidable')


def dont_look_inside(func):
    """The JIT calls the function as a residual call instead of tracing it."""
    return _mark(func, 'dont_look_inside')


def look_inside(func):
    """The JIT traces into the function even if a policy would not."""
    return _mark(func, 'look_inside')


def unroll_safe(func):
    """The function's loops may be unrolled by the tracer."""
    return _mark(func, 'unroll_safe')


def loop_invariant(func):
    """The function's result does not change during one run of a loop."""
    return _mark(func, 'loop_invariant')


def not_in_trace(func):
    """Calls of the function are left out of traces (for side effects the
    interpreter needs only when not jitted)."""
    return _mark(func, 'not_in_trace')


def look_inside_iff(predicate):
    """Trace into the function only when `predicate(*args)` holds (the JIT
    evaluates it on the arguments at trace time)."""
    def decorate(func):
        func._look_inside_iff_ = predicate
        return _mark(func, 'look_inside_iff')
    return decorate


def elidable_promote(promote_args='all'):
    """`elidable` after promoting the arguments named by `promote_args`."""
    def decorate(func):
        return _mark(func, 'elidable_promote')
    return decorate


def oopspec(spec):
    """Names the operation the JIT may replace calls of the function with."""
    def decorate(func):
        func.oopspec = spec
        return func
    return decorate


def promote(x):
    """The JIT makes `x` a constant in the trace (with a guard); untranslated
    it is `x`."""
    return x


def promote_string(x):
    """`promote` for a string, compared by value."""
    return x


def hint(x, **kwds):
    """A hint on the value `x` (promote=True, access_directly=True, ...):
    untranslated, `x` itself."""
    return x


def isconstant(value):
    """Whether the JIT knows `value` as a constant: never, untranslated."""
    return False


def isvirtual(value):
    """Whether the JIT has `value` as a virtual: never, untranslated."""
    return False


def we_are_jitted():
    """True only in code the JIT generated: never, untranslated."""
    return False


def assert_green(value):
    """Checks, in a trace, that `value` is a constant; nothing untranslated."""
    pass


def loop_unrolling_heuristic(lst, size, cutoff=2):
    """Whether a loop over `lst` of length `size` is worth unrolling."""
    return isvirtual(lst) or (isconstant(size) and size <= cutoff)


class JitHintError(Exception):
    """A JitDriver declared or used inconsistently."""


class JitDriver(object):
    """Names the interpreter's main loop for the JIT: `greens` are the
    variables that identify a position in the user's program, `reds` the
    rest of the loop state.  Both merge-point calls are no-ops untranslated,
    after checking they name exactly the declared variables."""

    def __init__(self, greens=None, reds=None, virtualizables=None,
                 get_printable_location=None, confirm_enter_jit=None,
                 can_never_inline=None, should_unroll_one_iteration=None,
                 name='jitdriver', check_untranslated=True,
                 vectorize=False, get_unique_id=None, is_recursive=False,
                 get_location=None):
        # A class deriving from JitDriver may declare them as class
        # attributes instead.
        if greens is None:
            greens = getattr(self, 'greens', None)
        if reds is None:
            reds = getattr(self, 'reds', None)
        if virtualizables is None:
            virtualizables = getattr(self, 'virtualizables', None)
        if greens is None:
            raise JitHintError("a JitDriver needs its green variables")
        self.greens = list(greens)
        if reds == 'auto':
            self.autoreds = True
            self.reds = []
        else:
            if reds is None:
                raise JitHintError("a JitDriver needs its red variables "
                                   "(or reds='auto')")
            self.autoreds = False
            self.reds = list(reds)
        self.virtualizables = list(virtualizables or ())
        self.get_printable_location = get_printable_location
        self.confirm_enter_jit = confirm_enter_jit
        self.can_never_inline = can_never_inline
        self.should_unroll_one_iteration = should_unroll_one_iteration
        self.name = name
        self.check_untranslated = check_untranslated
        self.is_recursive = is_recursive

    def _check_live_vars(self, livevars, where):
        if not self.check_untranslated:
            return
        declared = set(self.greens)
        if not self.autoreds:
            declared.update(self.reds)
        # A green may be written as 'frame.field': the keyword is 'field'.
        declared = set(n.split('.')[-1] for n in declared)
        given = set(livevars)
        missing = declared - given
        # With reds='auto' the reds are not listed, so any other name is fine.
        extra = set() if self.autoreds else given - declared
        if missing or extra:
            raise JitHintError(
                "%s of %s: missing %s, unexpected %s"
                % (where, self.name, sorted(missing), sorted(extra)))

    def _freeze_(self):
        # A driver is a constant of the translated program, as in RPython.
        return True

    # `_self`, as in RPython: a red variable is often called `self`.
    def jit_merge_point(_self, **livevars):
        """The start of one iteration of the interpreter's loop."""
        _self._check_live_vars(livevars, 'jit_merge_point')

    def can_enter_jit(_self, **livevars):
        """A backward jump in the user's program: a loop may start here."""
        _self._check_live_vars(livevars, 'can_enter_jit')

    def loop_header(self):
        """Marks the header of a loop the JIT may unroll."""
        pass


def set_param(driver, name, value):
    """Tunes the JIT of `driver` (all drivers when None); untranslated,
    and translated without a JIT, there is nothing to tune."""


def set_user_param(driver, text):
    """Tunes the JIT from a command-line string ('threshold=10,...');
    a no-op where there is no JIT."""
