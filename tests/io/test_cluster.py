"""--cluster's addresses, and a scheduler nobody runs: a one-line error naming the address
(exit 2) after the connect timeout, never a hang."""

from __future__ import annotations

import socket

import pytest

from gradcalc.core.errors import InputError
from gradcalc.io.cluster import CONNECT_TIMEOUT, connect, parse_cluster

pytest.importorskip("distributed")


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ("local:1", (1, None)),
        (" local:64 ", (64, None)),
        ("tcp://127.0.0.1:8786", (None, "tcp://127.0.0.1:8786")),
        ("tls://scheduler.lake:8786", (None, "tls://scheduler.lake:8786")),
    ],
)
def test_addresses(text, parsed) -> None:
    assert parse_cluster(text) == parsed


@pytest.mark.parametrize("text", ["local:0", "local:65", "local:x", "tcp://", "host:8786", ""])
def test_other_addresses_are_refused(text) -> None:
    with pytest.raises(InputError, match="--cluster"):
        parse_cluster(text)


def test_an_unreachable_scheduler_is_an_error_naming_it() -> None:
    with socket.socket() as probe:  # a port that nothing listens on
        probe.bind(("127.0.0.1", 0))
        address = f"tcp://127.0.0.1:{probe.getsockname()[1]}"
    with pytest.raises(InputError) as error, connect(address):
        pass
    assert error.value.message.startswith(f"cannot reach the Dask scheduler at {address}")
    assert f"within {CONNECT_TIMEOUT} s" in error.value.message
