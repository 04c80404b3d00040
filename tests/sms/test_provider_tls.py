"""A provider's HTTPS connection (sms.providers.base.post_form): the certificate and the host name are verified,
a server the trusted CAs do not vouch for is refused before any byte of the request leaves ("surely not sent":
``failed``, retryable, never ``unknown``), and a verified connection is kept alive for the next request. A local
TLS server with a certificate from a CA made in the test; no network."""

import ipaddress
import ssl
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from sms.providers import base
from sms.providers.base import POOL, post_form, transport_failure
from tests.tls_certs import tls_cert


def _cert(subject: str, issuer: x509.Name | None, key, signer, *, ca: bool, ip: str | None = None):
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)])
    address = x509.IPAddress(ipaddress.ip_address(ip)) if ip else None
    return tls_cert(name, issuer or name, key, signer, ca=ca, alt_name=address)


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    """A CA of the test and the server's certificate it signed for 127.0.0.1."""
    folder = tmp_path_factory.mktemp("sms-tls")
    ca_key, server_key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca_cert = _cert("test CA", None, ca_key, ca_key, ca=True)
    server_cert = _cert("127.0.0.1", ca_cert.subject, server_key, ca_key, ca=False, ip="127.0.0.1")
    (folder / "ca.pem").write_bytes(ca_cert.public_bytes(serialization.Encoding.PEM))
    (folder / "server.pem").write_bytes(server_cert.public_bytes(serialization.Encoding.PEM))
    (folder / "server.key").write_bytes(
        server_key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return folder


@pytest.fixture
def provider(certs, settings):
    """A provider host answering ``{"ok": true}`` over HTTPS/1.1 (kept alive); records requests and peers."""
    received: list[dict] = []
    peers: set = set()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self):
            received.append({"body": self.rfile.read(int(self.headers["Content-Length"]))})
            peers.add(self.client_address)
            body = b'{"ok": true}'
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(certs / "server.pem", certs / "server.key")
    server = HTTPServer(("127.0.0.1", 0), Handler)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    settings.SMS_HTTP_TIMEOUT = 2.0
    POOL.clear()
    yield f"https://127.0.0.1:{server.server_address[1]}/v1/K/sms/send.json", received, peers
    POOL.clear()
    server.shutdown()
    server.server_close()


def test_a_provider_host_whose_certificate_nobody_vouches_for_is_refused_before_the_request_leaves(provider):
    url, received, _ = provider
    outcome = post_form(url, {"receptor": "09121234567", "message": "سلام"})
    assert outcome.sent is False and "SSLCertVerificationError" in outcome.error
    failure = transport_failure(outcome)
    assert (failure.status, failure.error_code) == ("failed", "connection")  # surely not sent: retryable
    assert received == []  # not a byte of the request reached the server


def test_a_verified_provider_connection_is_kept_alive_for_the_next_request(provider, certs, monkeypatch):
    url, received, peers = provider
    monkeypatch.setattr(base, "_TLS", ssl.create_default_context(cafile=str(certs / "ca.pem")))
    for _ in range(3):
        outcome = post_form(url, {"receptor": "09121234567", "message": "سلام"})
        assert (outcome.status, outcome.body) == (200, {"ok": True})
    assert len(received) == 3 and len(peers) == 1  # three requests, one TLS connection
