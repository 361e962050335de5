"""The Dask cluster a run uses (``--cluster ADDRESS`` or ``GRADCALC_CLUSTER``): ``local`` or
``local:N`` starts a ``distributed.LocalCluster`` of N worker processes on 127.0.0.1 for the
run (dashboard off); ``tcp://HOST:PORT`` connects to a running scheduler (``dask scheduler``)
within :data:`CONNECT_TIMEOUT` seconds, or fails naming the address.

dask is imported only here, only when a cluster is asked for
(``pip install 'gradcalc[dask]'``).

>>> parse_cluster("local:2"), parse_cluster("tcp://10.0.0.5:8786")
((2, None), (None, 'tcp://10.0.0.5:8786'))
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from gradcalc.core.errors import InputError, reason_of

CONNECT_TIMEOUT = 5  # seconds to reach a scheduler before the run fails (exit 2)
MAX_LOCAL = 64  # worker processes local:N may start
EXTRA = "pip install 'gradcalc[dask]'"
SCHEMES = ("tcp://", "tls://", "inproc://")


def distributed() -> Any:
    """The ``distributed`` module, or an :class:`InputError` naming the extra to install."""
    try:
        import dask.dataframe  # noqa: F401 (the extra's other half: checked together)
        import distributed as dist
    except ImportError:
        raise InputError(f"--cluster runs on Dask: {EXTRA}") from None
    return dist


def parse_cluster(text: str) -> tuple[int | None, str | None]:
    """``(workers, None)`` for ``local`` / ``local:N`` (``local``: one per CPU, at most 4),
    ``(None, address)`` for a scheduler's address.

    Raises:
        InputError: anything else, or N out of 1..64.
    """
    spec = text.strip()
    if spec == "local":
        return min(os.cpu_count() or 1, 4), None
    if spec.startswith("local:"):
        count = spec[len("local:") :]
        if not count.isdigit() or not 1 <= int(count) <= MAX_LOCAL:
            raise InputError(f"--cluster {text}: local:N takes N from 1 to {MAX_LOCAL} workers")
        return int(count), None
    if spec.startswith(SCHEMES) and len(spec) > spec.index("//") + 2:
        return None, spec
    raise InputError(
        f"--cluster {text}: give local, local:N (N worker processes here) or a scheduler's "
        "address such as tcp://HOST:8786"
    )


@contextmanager
def connect(text: str) -> Iterator[Any]:
    """A ``distributed.Client`` for ``--cluster text``, open while in the block (a local
    cluster is started for it and stopped after).

    Raises:
        InputError: no Dask installed, or the scheduler not reached in time.
    """
    workers, address = parse_cluster(text)
    dist = distributed()
    import dask

    timeout = f"{CONNECT_TIMEOUT}s"
    settings = {"distributed.comm.timeouts.connect": timeout, "logging.distributed": "error"}
    with dask.config.set(settings):
        if workers is not None:
            with _local(dist, workers) as client:
                yield client
            return
        try:
            client = dist.Client(address, timeout=timeout)
        except (OSError, TimeoutError) as error:
            raise InputError(
                f"cannot reach the Dask scheduler at {address} within {CONNECT_TIMEOUT} s "
                f"({reason_of(error)}): start one with dask scheduler, or use --cluster local"
            ) from None
        with client:
            yield client


@contextmanager
def _local(dist: Any, workers: int) -> Iterator[Any]:
    """A LocalCluster of ``workers`` single-threaded processes on 127.0.0.1 and its client."""
    logging.getLogger("distributed").setLevel(logging.ERROR)
    cluster = dist.LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
        silence_logs=logging.ERROR,
    )
    with cluster, dist.Client(cluster) as client:
        yield client
