"""Execute a notebook in a test so that Ctrl-C and SIGTERM still stop the test run (issue 24, item 12).

``nbclient.NotebookClient.execute`` adds handlers for SIGINT and SIGTERM to the main thread's
event loop (``NotebookClient.async_setup_kernel``) that only shut the kernel down: a Ctrl-C or a
``kill`` during a notebook test raised nothing in pytest, that test failed on its dead kernel and
the run went on with the next one (a contributor's Ctrl-C was ignored test after test, and SIGTERM
with them).  Here the notebook runs in a thread, where asyncio cannot add signal handlers (nbclient
then adds none), while the main thread waits for it: a Ctrl-C raises KeyboardInterrupt there, the
kernel's process group (the kernel and any worker processes it started) is killed, and the
interrupt goes on to pytest, which stops; SIGTERM ends pytest as it does in any other test (the
kernel, which polls its parent, exits with it).
"""
from __future__ import annotations

import atexit
import os
import signal
import threading

from nbclient import NotebookClient


def kill_kernel(client: NotebookClient) -> None:
    """SIGKILL to the process group of the client's kernel (jupyter_client starts it in a session
    of its own), if it is running."""
    provisioner = getattr(client.km, "provisioner", None) if client.km is not None else None
    pgid = getattr(provisioner, "pgid", None) or getattr(provisioner, "pid", None)
    if pgid:
        try:
            os.killpg(pgid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def execute_notebook(nb, cwd, timeout: int = 600):
    """Execute ``nb`` (an nbformat notebook, changed in place and returned) with the python3 kernel
    in the working folder ``cwd``, ``timeout`` seconds at most per cell; an error in a cell raises
    as ``NotebookClient.execute`` does."""
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": str(cwd)}})
    failure: list = []

    def run():
        try:
            client.execute()
        except BaseException as exc:  # (handed to the main thread)
            failure.append(exc)

    thread = threading.Thread(target=run, name="notebook", daemon=True)
    thread.start()
    try:
        while thread.is_alive():
            thread.join(0.2)  # (a signal interrupts the wait: the handler runs in the main thread)
    except BaseException:
        kill_kernel(client)
        thread.join(2)
        kill_kernel(client)  # (one the thread was starting meanwhile)
        atexit.unregister(client._cleanup_kernel)  # (nbclient's, for a run that did not end)
        raise
    if failure:
        raise failure[0]
    return nb
