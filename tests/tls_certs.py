"""Certificates for the tests' local TLS servers: a CA made in the test and the server certificates it signs
(no network, no system trust store)."""

import datetime as dt

from cryptography import x509
from cryptography.hazmat.primitives import hashes


def tls_cert(subject: x509.Name, issuer: x509.Name, key, signer, *, ca: bool, alt_name=None) -> x509.Certificate:
    """A certificate for ``subject`` signed by ``signer`` (the CA's key, or its own for a CA), valid around now;
    ``alt_name``: the server's name or address (an ``x509.DNSName`` / ``x509.IPAddress``)."""
    now = dt.datetime.now(dt.UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    )
    if ca:
        builder = builder.add_extension(
            x509.KeyUsage(True, False, False, False, False, True, True, False, False), critical=True
        )
    if alt_name is not None:
        builder = builder.add_extension(x509.SubjectAlternativeName([alt_name]), critical=False)
    return builder.sign(signer, hashes.SHA256())
