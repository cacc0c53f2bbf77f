"""The address a phone on the store network would reach this kiosk at."""

from __future__ import annotations

import ipaddress
import socket

# A documentation address (RFC 5737): connecting a UDP socket sends nothing, it only asks the routing table
# which local address would be used, i.e. the kiosk's address on its default network.
_PROBE_TARGET = ("192.0.2.1", 9)


def lan_address() -> str | None:
    """This machine's address on its default network, or None when it has none a phone could use (no network,
    or only loopback / link-local)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(_PROBE_TARGET)
            address = str(probe.getsockname()[0])
    except OSError:
        return None
    parsed = ipaddress.ip_address(address)
    if parsed.is_loopback or parsed.is_link_local or parsed.is_unspecified:
        return None
    return address
