"""What every command's start shares, below hipport.launch (the fast check) and hipport.cli (click):
no click here, so the fast path stays free of it."""

from __future__ import annotations

import sys

INTERRUPTED = "hipport: interrupted"


def interrupted_message(exc: BaseException) -> str:
    """The line Ctrl-C ends a command with: what convert wrote, and how to finish (its advice)."""
    advice = getattr(exc, "advice", None)
    if advice is None:
        return INTERRUPTED
    return f"{INTERRUPTED}; each file written is complete, and none is partly written; {advice}"


def print_names_as_bytes() -> None:
    """A file name that is not UTF-8 holds lone surrogates: print its bytes as they are, as a
    compiler does, instead of failing (stdout) or printing \\udcff (stderr) for them."""
    for stream in (sys.stdout, sys.stderr):
        if (
            hasattr(stream, "reconfigure")
            and getattr(stream, "errors", None) in ("strict", "backslashreplace")
            and (getattr(stream, "encoding", "") or "").lower().replace("-", "") == "utf8"
        ):
            stream.reconfigure(errors="surrogateescape")


class Progress:
    """A progress line for a person watching a long run: a bar, counts, the rate and the time left,
    and the item at hand, redrawn in place on stderr at most ten times a second.

        with Progress("convert", "files") as progress:
            progress.update(done, total, current)

    It says nothing unless stderr is a terminal (a pipe, a file or CI get the results alone) and
    the run has lasted SHOW_AFTER seconds (a quick run draws nothing), and it leaves no trace:
    closing it erases the line, so what the command prints next starts on a clean one.
    """

    SHOW_AFTER = 0.4
    INTERVAL = 0.1
    BAR = 24

    def __init__(self, label: str, unit: str = "files", enabled: bool = True, stream=None) -> None:
        self.label, self.unit = label, unit
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled and shows_progress(self.stream)
        self.done = self.total = 0
        self.current = ""
        self._started = _now()
        self._drawn_at = 0.0
        self._drawn = False

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def update(self, done: int, total: int | None = None, current: str = "") -> None:
        self.done = done
        if total is not None:
            self.total = total
        self.current = current or self.current
        if not self.enabled:
            return
        now = _now()
        if now - self._started < self.SHOW_AFTER or (now - self._drawn_at < self.INTERVAL and done < self.total):
            return
        self._drawn_at = now
        self._draw(now)

    def advance(self, count: int = 1, current: str = "") -> None:
        self.update(self.done + count, None, current)

    def close(self) -> None:
        if self._drawn:
            self._write("\r\x1b[K")
            self._drawn = False

    def line(self, now: float, width: int) -> str:
        """The text drawn: `label [####......] 412/1,000 files  41%  130/s  ~4s left  item`."""
        total = max(self.total, self.done)
        elapsed = now - self._started
        parts = [self.label]
        if total:
            filled = int(self.BAR * self.done / total)
            parts.append("[" + "#" * filled + "." * (self.BAR - filled) + "]")
            parts.append(f"{self.done:,}/{total:,} {self.unit}  {100 * self.done // total}%")
        else:
            parts.append(f"{self.done:,} {self.unit}")
        if self.done and elapsed > 0:
            rate = self.done / elapsed
            parts.append(f"{rate:,.0f}/s" if rate >= 10 else f"{rate:.1f}/s")
            if total > self.done:
                parts.append(f"~{_duration((total - self.done) / rate)} left")
        text = "  ".join(parts)
        room = width - len(text) - 3
        if self.current and room > 8:
            current = self.current if len(self.current) <= room else "..." + self.current[-(room - 3) :]
            text += "  " + current
        return text[: max(width - 1, 0)]

    def _draw(self, now: float) -> None:
        self._write("\r" + self.line(now, self._width()) + "\x1b[K")
        self._drawn = True

    def _width(self) -> int:
        """The terminal's width, asked of the stream drawn on: stdout may be a pipe meanwhile."""
        import os

        columns = os.environ.get("COLUMNS", "")
        if columns.isdigit() and int(columns) > 0:
            return int(columns)
        try:
            return os.get_terminal_size(self.stream.fileno()).columns
        except (AttributeError, OSError, ValueError):
            return 80

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):  # the terminal went away: the run itself goes on
            self.enabled = False


def shows_progress(stream=None) -> bool:
    """Progress only for a person watching: stderr a terminal, not in CI, not a dumb terminal."""
    import os

    stream = stream if stream is not None else sys.stderr
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):
        return False
    return tty and not os.environ.get("CI") and os.environ.get("TERM") != "dumb"


def _duration(seconds: float) -> str:
    if seconds < 60:
        return f"{max(1, round(seconds))}s"
    minutes, seconds = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes}m{seconds:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"


def _now() -> float:
    import time

    return time.monotonic()
