"""Ctrl-C or SIGTERM while a tree is being written: finish the file at hand, then stop.

Each file's writes already go through a temporary file and a rename, but some
steps come in twos (a backup then the port; with --rename, the new name then
removing the old one). Holding the signal until the step is done means an
interrupted run leaves no half-done pair, and no temporary file whose removal
a second Ctrl-C cut short. The signal is then raised as KeyboardInterrupt.
"""

from __future__ import annotations

import signal
import threading

try:
    # The C function signal.signal wraps: the wrapper's enum conversions cost more than the
    # call itself, and a tree run holds the signals around every file it writes.
    from _signal import SIG_DFL as _DEFAULT
    from _signal import signal as _set_handler
except ImportError:  # not CPython
    _DEFAULT, _set_handler = signal.SIG_DFL, signal.signal

_SIGNALS = tuple(int(s) for s in (getattr(signal, "SIGINT", None), getattr(signal, "SIGTERM", None)) if s is not None)


class HeldInterrupts:
    """with HeldInterrupts() as held: ... held.check() between steps raises a signal that came meanwhile."""

    def __init__(self) -> None:
        self.received: int | None = None
        self._previous: dict[int, object] = {}

    def __enter__(self) -> HeldInterrupts:
        if threading.current_thread() is threading.main_thread():  # only there can handlers be set
            for signum in _SIGNALS:
                self._previous[signum] = _set_handler(signum, self._hold)
        return self

    def _hold(self, signum, frame) -> None:
        self.received = signum

    def check(self) -> None:
        if self.received is not None:
            raise KeyboardInterrupt

    def __exit__(self, *exc) -> None:
        for signum, handler in self._previous.items():
            _set_handler(signum, handler if handler is not None else _DEFAULT)
        if exc[0] is None:
            self.check()
