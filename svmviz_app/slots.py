"""Heavy-work slots: how many heavy computations of the server run at once.

Every request is bounded on its own (``svmviz_app.budget``), but a class can still send many of them
at once: thirty students opening a heavy link would compute thirty fits side by side on a 2-core
server, and every step click (a few milliseconds of CPU) would wait behind all of them. So a heavy
computation — a fit, shared result, figure or table not in the shared caches yet
(``svmviz_app.cache``) — first takes one of a few slots (by default one per CPU core,
``SVMVIZ_HEAVY_SLOTS``); when none is free it waits its turn, first come first served, and its page
says how many computations are ahead of it. Cheap work never asks for a slot: a cache hit returns
before, and a step click drawing an already computed result is not heavy work (``cache.step_view``:
a stepper's view).

While it waits, the computation's ``wait(ahead)`` is called at least once and then every
``POLL_S`` seconds and when the queue moves: the app's callback sends the message to the browser,
which is where Streamlit raises its ``StopException`` on Stop or a closed tab (as the progress bar's
calls do); the exception takes the waiter out of the queue without a slot.

A thread that holds a slot and starts another heavy computation inside it (a shared figure that fits
its models with ``cached_fit``) uses the slot it holds: asking for a second one could leave every
slot held by a computation waiting for a slot.
"""

from __future__ import annotations

import os
import threading
from collections import deque
from contextlib import contextmanager
from typing import Callable

SETTING = "SVMVIZ_HEAVY_SLOTS"
POLL_S = 0.5   # a waiting computation checks its own Stop (through ``wait``) this often


class Slots:
    """At most ``n`` holders at a time, the others served in their order of arrival."""

    def __init__(self, n: int):
        if n < 1:
            raise ValueError(f"{n} heavy slots: at least 1")
        self.n = n
        self._cond = threading.Condition()
        self._running = 0
        self._queue: deque[object] = deque()   # a ticket per waiting computation, oldest first
        self._held = threading.local()         # this thread's nesting depth inside its slot

    @property
    def running(self) -> int:
        return self._running

    @property
    def waiting(self) -> int:
        return len(self._queue)

    @contextmanager
    def hold(self, wait: Callable[[int], None] | None = None):
        """Run the body in a slot, waiting for one first when all are taken; ``wait(ahead)`` is
        called while waiting (``ahead``: the computations running or queued before this one). An
        exception from ``wait`` ends the wait: the computation leaves the queue, holding nothing.
        Yields whether it waited."""
        if getattr(self._held, "depth", 0):          # already inside a slot: the same slot
            self._held.depth += 1
            try:
                yield False
            finally:
                self._held.depth -= 1
            return
        waited = self._take(wait)
        self._held.depth = 1
        try:
            yield waited
        finally:
            self._held.depth = 0
            with self._cond:
                self._running -= 1
                self._cond.notify_all()

    def _take(self, wait) -> bool:
        ticket = object()
        with self._cond:
            if self._running < self.n and not self._queue:   # a free slot and nobody before us
                self._running += 1
                return False
            self._queue.append(ticket)
            try:
                while not self._its_turn(ticket):
                    if wait is not None:
                        ahead = self._running + self._queue.index(ticket)
                        self._cond.release()   # the callback talks to the browser: not under the lock
                        try:
                            wait(ahead)
                        finally:
                            self._cond.acquire()
                        if self._its_turn(ticket):   # a slot freed during the callback
                            break
                    self._cond.wait(POLL_S)
                self._queue.popleft()
                self._running += 1
                return True
            except BaseException:
                self._queue.remove(ticket)
                raise
            finally:
                self._cond.notify_all()   # the queue moved: the next waiter may be first now


    def _its_turn(self, ticket) -> bool:
        return self._running < self.n and self._queue[0] is ticket


def waiting_text(ahead: int) -> str:
    """What a page shows while its computation waits for a slot."""
    return f"Waiting for the server: {ahead} computation{'' if ahead == 1 else 's'} ahead of yours."


def configured(value: str | None = None) -> int:
    """The slots ``SVMVIZ_HEAVY_SLOTS`` asks for (``value``, else the environment's), or the CPU
    cores this process may use when it is empty: more heavy computations than cores only slow
    each other down and take the cores the step clicks need."""
    value = os.environ.get(SETTING, "") if value is None else value
    if not value.strip():
        try:
            return max(len(os.sched_getaffinity(0)), 1)
        except AttributeError:   # no affinity on this system
            return max(os.cpu_count() or 1, 1)
    try:
        n = int(value)
    except ValueError:
        n = 0
    if n < 1:
        raise ValueError(f"{SETTING}={value[:20]!r}: give a number of at least 1, e.g. 2")
    return n


_lock = threading.Lock()
_heavy: Slots | None = None


def heavy() -> Slots:
    """This server process's heavy-work slots, made at the first heavy computation from
    ``SVMVIZ_HEAVY_SLOTS`` (a bad value is reported there, as the page's error)."""
    global _heavy
    with _lock:
        if _heavy is None:
            _heavy = Slots(configured())
        return _heavy
