"""A compile worker: `python -m tessel._worker`, started by `_compile_ahead.ProcessPool`.

It is tessel's own entry point, so starting one never re-runs the caller's `__main__` (a spawned
multiprocessing worker imports the caller's script, which re-runs an unguarded script's body: its
tuning, its benchmarks, its side effects). The parent talks to it over its stdin and stdout with
length-prefixed pickles:

    parent -> worker   [initializer] (a function, or None, in a list: a message, not the stream's end)
    worker -> parent   (None, True, None) once initialized, or (None, False, exception)
    parent -> worker   (job id, pickled (function, args)) per job
    worker -> parent   (job id, True, result) or (job id, False, exception)

Functions travel by reference (module and name), so they must be importable from the parent's
sys.path: the parent starts the worker with its sys.path as PYTHONPATH (`_compile_ahead`), so the
worker imports from the same places in the same order. A job that cannot be unpickled (a function of
the caller's `__main__`, say) fails alone.
What a job prints goes to stderr, never into the replies. The worker exits when its stdin closes
(the parent ended) and ignores Ctrl-C (the parent stops it).
"""
from __future__ import annotations

import os
import pickle
import signal
import struct
import sys

_HEADER = struct.Struct("<Q")


def read_message(stream):
    """The next message on `stream`, or None at its end."""
    header = stream.read(_HEADER.size)
    if len(header) < _HEADER.size:
        return None
    size = _HEADER.unpack(header)[0]
    data = stream.read(size)
    if len(data) < size:
        return None
    return pickle.loads(data)


def write_message(stream, obj) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(data)) + data)
    stream.flush()


def _portable(e: BaseException) -> BaseException:
    """`e` when it survives pickling, else a RuntimeError that names it."""
    try:
        pickle.loads(pickle.dumps(e))
        return e
    except Exception:  # noqa: BLE001 - any exception must reach the parent in some form
        return RuntimeError(f"{type(e).__name__}: {e}")


def main() -> None:
    # Ctrl-C reaches the whole process group: the parent stops its workers itself (or they see their
    # stdin close), so they need not print a traceback each.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    requests = os.fdopen(os.dup(0), "rb")
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # what jobs print goes to stderr, not into the replies
    sys.stdout = sys.stderr
    with open(os.devnull, "rb") as null:
        os.dup2(null.fileno(), 0)
    try:
        hello = read_message(requests)
        if hello is None:
            return
        [initializer] = hello
        if initializer is not None:
            initializer()
    except Exception as e:  # noqa: BLE001 - reported to the parent, which stops using this worker
        write_message(replies, (None, False, _portable(e)))
        return
    write_message(replies, (None, True, None))
    while True:
        message = read_message(requests)
        if message is None:
            return
        job, payload = message
        try:
            function, args = pickle.loads(payload)
            result = function(*args)
            pickle.dumps(result)
            reply = (job, True, result)
        except Exception as e:  # noqa: BLE001 - the parent's serial path handles this job
            reply = (job, False, _portable(e))
        write_message(replies, reply)


if __name__ == "__main__":
    main()
