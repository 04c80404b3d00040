"""Webhook delivery over HTTPS to the pinned address: the guard resolves the host name once, the connection
goes to that address, and TLS still sends the host name (SNI) and checks the certificate against it. A local
TLS server with a certificate from a CA made in the test; no network, no DNS."""

import ssl
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from campaigns.platform import netguard, webhooks
from campaigns.platform.models import WebhookDelivery
from campaigns.platform.webhooks import webhook_delivery_attempt, webhook_endpoint_create, webhook_test_send
from tests.tls_certs import tls_cert

pytestmark = pytest.mark.django_db

HOST = "hooks.example.test"  # never in DNS: only the test's resolver knows it


def _name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])


def _cert(subject, issuer, key, signer, *, ca: bool, dns: str | None = None) -> x509.Certificate:
    return tls_cert(subject, issuer, key, signer, ca=ca, alt_name=x509.DNSName(dns) if dns else None)


def _pem(cert) -> bytes:
    return cert.public_bytes(serialization.Encoding.PEM)


@pytest.fixture(scope="module")
def ca(tmp_path_factory):
    """A CA of the test and a server certificate it signed for ``HOST``."""
    folder = tmp_path_factory.mktemp("tls")
    ca_key, server_key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca_cert = _cert(_name("test CA"), _name("test CA"), ca_key, ca_key, ca=True)
    server_cert = _cert(_name(HOST), ca_cert.subject, server_key, ca_key, ca=False, dns=HOST)
    (folder / "ca.pem").write_bytes(_pem(ca_cert))
    (folder / "server.pem").write_bytes(_pem(server_cert))
    key = server_key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    (folder / "server.key").write_bytes(key)
    return folder


class TLSReceiver:
    """A local HTTPS server on 127.0.0.1 that records each request with the SNI name its client sent."""

    def __init__(self, folder):
        self.received: list[dict] = []
        self.sni: list[str | None] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.received.append({"headers": dict(self.headers), "body": body})
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args):
                pass

        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(folder / "server.pem", folder / "server.key")
        context.sni_callback = lambda sock, name, ctx: receiver.sni.append(name)
        self.server = HTTPServer(("127.0.0.1", 0), Handler)
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def tls(ca, settings, monkeypatch, workspace):
    """The receiver, ``HOST`` resolved to 127.0.0.1 by a counting resolver, the test CA trusted."""
    receiver = TLSReceiver(ca)
    settings.WEBHOOK_ALLOWED_PRIVATE_HOSTS = [f"{HOST}:{receiver.port}"]
    lookups: list[str] = []

    def resolver(host, port):
        lookups.append(host)
        return ["127.0.0.1"] if host == HOST else []

    monkeypatch.setattr(netguard, "system_resolver", resolver)
    monkeypatch.setattr(webhooks, "tls_context", lambda: ssl.create_default_context(cafile=str(ca / "ca.pem")))
    receiver.lookups = lookups
    yield receiver
    receiver.close()


def _send(workspace, url: str, lookups: list[str]) -> WebhookDelivery:
    endpoint, _ = webhook_endpoint_create(workspace=workspace, url=url, events=["sms.delivered"])
    delivery = webhook_test_send(workspace=workspace, endpoint_id=endpoint.pk)
    lookups.clear()  # the endpoint's own check at creation aside: what one attempt resolves
    webhook_delivery_attempt(delivery_id=delivery.pk)
    return WebhookDelivery.objects.get(pk=delivery.pk)


def test_https_goes_to_the_pinned_address_with_the_host_name_for_sni_and_the_certificate(tls, workspace):
    delivery = _send(workspace, f"https://{HOST}:{tls.port}/hooks", tls.lookups)
    assert delivery.status == "delivered" and delivery.last_status_code == 200, delivery.last_error
    assert tls.lookups == [HOST]  # one resolution: the connection used the address the guard checked
    assert tls.sni == [HOST]  # the host name, not the address, in the TLS handshake
    (got,) = tls.received
    assert got["headers"]["Host"] == f"{HOST}:{tls.port}" and got["headers"]["Webhook-Id"] == str(delivery.event_id)


def test_a_certificate_for_another_name_is_refused(tls, workspace, monkeypatch, settings):
    other = "other.example.test"  # the same server (same address) reached by a name its certificate lacks
    monkeypatch.setattr(netguard, "system_resolver", lambda host, port: ["127.0.0.1"])
    settings.WEBHOOK_ALLOWED_PRIVATE_HOSTS = [f"{other}:{tls.port}"]
    delivery = _send(workspace, f"https://{other}:{tls.port}/hooks", [])
    assert delivery.status == "pending" and delivery.last_status_code is None
    assert delivery.last_error == "SSLCertVerificationError" and tls.sni == [other] and tls.received == []


def test_a_certificate_from_an_unknown_ca_is_refused(tls, workspace, monkeypatch):
    monkeypatch.setattr(webhooks, "tls_context", ssl.create_default_context)  # the system store only
    delivery = _send(workspace, f"https://{HOST}:{tls.port}/hooks", tls.lookups)
    assert delivery.status == "pending" and delivery.last_error == "SSLCertVerificationError"
    assert tls.received == []
