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

_SIGNALS = tuple(s for s in (getattr(signal, "SIGINT", None), getattr(signal, "SIGTERM", None)) if s is not None)


class HeldInterrupts:
    """with HeldInterrupts() as held: ... held.check() between steps raises a signal that came meanwhile."""

    def __init__(self) -> None:
        self.received: int | None = None
        self._previous: dict[int, object] = {}

    def __enter__(self) -> "HeldInterrupts":
        if threading.current_thread() is threading.main_thread():  # only there can handlers be set
            for signum in _SIGNALS:
                self._previous[signum] = signal.signal(signum, self._hold)
        return self

    def _hold(self, signum, frame) -> None:
        self.received = signum

    def check(self) -> None:
        if self.received is not None:
            raise KeyboardInterrupt

    def __exit__(self, *exc) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler if handler is not None else signal.SIG_DFL)
        if exc[0] is None:
            self.check()
