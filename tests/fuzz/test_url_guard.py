"""Property: the result-URL guard (adapters/http/download.py) never lets through a URL whose host is, or resolves
to, a private, loopback, link-local, multicast, reserved or unspecified address — whatever form the address takes
(IPv4 and IPv6 literals, IPv4-mapped and other embeddings, decimal, hex and octal forms the system resolver
accepts) — and raises nothing but ProviderError for any text at all."""

from __future__ import annotations

import contextlib
import ipaddress

from hypothesis import given
from hypothesis import strategies as st

from nailmirror_desktop.adapters.http.client import Timeouts
from nailmirror_desktop.adapters.http.download import DownloadPolicy, Origin, check_url
from nailmirror_desktop.core.generation.provider_port import ProviderError

TRUSTED = Origin("https", "dashscope.aliyuncs.com", 443)


def policy(resolve=None) -> DownloadPolicy:
    # Names resolve through the given function only: the property never depends on (or waits for) real DNS.
    return DownloadPolicy(frozenset({TRUSTED}), timeouts=Timeouts(1.0, 1.0),
                          resolve=resolve or (lambda host, port: ["203.0.113.7"]))


def embedded_ipv4(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    if isinstance(ip, ipaddress.IPv4Address):
        return []
    found = [a for a in (ip.ipv4_mapped, ip.sixtofour) if a is not None]
    if ip.teredo:
        found.extend(ip.teredo)
    if ip in ipaddress.ip_network("::/96") or ip in ipaddress.ip_network("64:ff9b::/96"):
        found.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    return found


def non_public(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    return any(not a.is_global or a.is_private or a.is_loopback or a.is_link_local or a.is_multicast
               or a.is_reserved or a.is_unspecified for a in [ip, *embedded_ipv4(ip)])


def url_for(host: str) -> str:
    return f"http://{host}/result.png?Expires=1&Signature=abc"


def ip_forms(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> list[str]:
    if isinstance(ip, ipaddress.IPv6Address):
        return [f"[{ip.compressed}]", f"[{ip.exploded}]"]
    value = int(ip)
    octets = [int(o) for o in str(ip).split(".")]
    return [str(ip), str(value), hex(value), ".".join(f"0{o:o}" for o in octets),
            f"{octets[0]}.{(value & 0xFFFFFF)}", f"[::ffff:{ip}]"]


def refused(url: str, resolve=None) -> bool:
    try:
        check_url(url, policy(resolve))
    except ProviderError:
        return True
    return False


@given(ip=st.ip_addresses())
def test_an_address_literal_in_any_form_is_refused_when_not_public(ip):
    for form in ip_forms(ip):
        if non_public(ip):
            assert refused(url_for(form)), form


@given(name=st.from_regex(r"[a-z][a-z0-9-]{0,20}\.(com|net|cn)", fullmatch=True),
       addresses=st.lists(st.ip_addresses(), min_size=1, max_size=3))
def test_a_name_is_refused_when_any_of_its_addresses_is_not_public(name, addresses):
    if any(non_public(a) for a in addresses):
        assert refused(url_for(name), lambda host, port: [str(a) for a in addresses])


@given(text=st.text(max_size=60) | st.builds(lambda host, rest: f"http://{host}{rest}", st.text(max_size=20),
                                              st.text(max_size=20)))
def test_any_text_is_checked_without_any_other_exception(text):
    with contextlib.suppress(ProviderError):  # anything else fails the test
        check_url(text, policy())
