"""The installation's signing identity and the digital signature of exported PDFs (pyHanko).

On first use a private key and a self-signed certificate are made in ``<data dir>/signing``;
every exported score sheet is signed with them, so any later change to the file is detectable.
"""

from __future__ import annotations

import datetime as dt
import io
import socket
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID

from webui.common.durable import write_atomically


@dataclass(frozen=True)
class SigningIdentity:
    """Paths of the installation's key and certificate."""

    key_path: Path
    cert_path: Path


def ensure_identity(data_dir: str | Path) -> SigningIdentity:
    """The installation's key and self-signed certificate, made on first call. A pair that
    cannot be read (left empty by a power cut before they were written durably) is kept
    aside as ``*.damaged-<time>`` and a new pair made, so the app starts and signs again."""
    folder = Path(data_dir) / "signing"
    key_path, cert_path = folder / "key.pem", folder / "cert.pem"
    if key_path.exists() and cert_path.exists():
        if _readable(key_path, cert_path):
            return SigningIdentity(key_path, cert_path)
        stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ")
        for path in (key_path, cert_path):
            path.replace(path.with_name(f"{path.name}.damaged-{stamp}"))
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    name = x509.Name([
        x509.NameAttribute(NameOID.COMMON_NAME, f"gintray on {socket.gethostname()}"[:64]),
        x509.NameAttribute(NameOID.ORGANIZATION_NAME, "gintray score sheets"),
    ])
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder().subject_name(name).issuer_name(name)
        .public_key(key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1)).not_valid_after(now + dt.timedelta(days=3650))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=True,
                                     key_encipherment=False, data_encipherment=False,
                                     key_agreement=False, key_cert_sign=True, crl_sign=False,
                                     encipher_only=False, decipher_only=False), critical=True)
        .sign(key, hashes.SHA256())
    )
    # the key first: a cut between the two leaves no certificate, and the next start makes a
    # new pair (nothing was signed with this one yet)
    write_atomically(key_path, key.private_bytes(serialization.Encoding.PEM,
                                                 serialization.PrivateFormat.PKCS8,
                                                 serialization.NoEncryption()), mode=0o600)
    write_atomically(cert_path, cert.public_bytes(serialization.Encoding.PEM))
    return SigningIdentity(key_path, cert_path)


def _readable(key_path: Path, cert_path: Path) -> bool:
    """Whether the key and certificate load and belong together."""
    try:
        # the key's own maths is not re-checked (slow): matching the certificate is the test
        key = serialization.load_pem_private_key(key_path.read_bytes(), None,
                                                 unsafe_skip_rsa_key_validation=True)
        cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
    except (OSError, ValueError, TypeError):
        return False
    return key.public_key() == cert.public_key()


def sign_pdf(pdf: bytes, identity: SigningIdentity, reason: str) -> bytes:
    """``pdf`` with an added PAdES signature by the installation's key."""
    from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
    from pyhanko.sign import signers

    signer = signers.SimpleSigner.load(str(identity.key_path), str(identity.cert_path))
    writer = IncrementalPdfFileWriter(io.BytesIO(pdf))
    meta = signers.PdfSignatureMetadata(field_name="GintraySheet", reason=reason,
                                        md_algorithm="sha256")
    return signers.sign_pdf(writer, meta, signer=signer).getvalue()


@dataclass(frozen=True)
class Verification:
    """Result of checking a signed PDF against the installation's certificate."""

    intact: bool
    valid: bool
    trusted: bool
    covers_whole_file: bool
    summary: str

    @property
    def ok(self) -> bool:
        return self.intact and self.valid and self.trusted and self.covers_whole_file


def verify_pdf(pdf: bytes, identity: SigningIdentity) -> Verification:
    """Check a PDF's signature; a damaged or altered file gives ``ok == False``, never raises."""
    from pyhanko.keys import load_cert_from_pemder
    from pyhanko.pdf_utils.reader import PdfFileReader
    from pyhanko.sign.validation import validate_pdf_signature
    from pyhanko.sign.validation.status import SignatureCoverageLevel
    from pyhanko_certvalidator import ValidationContext

    try:
        reader = PdfFileReader(io.BytesIO(pdf), strict=False)
        sigs = reader.embedded_signatures
        if not sigs:
            return Verification(False, False, False, False, "no signature")
        cert = load_cert_from_pemder(str(identity.cert_path))
        context = ValidationContext(trust_roots=[cert])
        status = validate_pdf_signature(sigs[-1], context)
        whole = status.coverage == SignatureCoverageLevel.ENTIRE_FILE
        return Verification(bool(status.intact), bool(status.valid), bool(status.trusted), whole,
                            status.summary())
    except Exception as exc:  # a damaged file is a failed check, not a crash
        return Verification(False, False, False, False, f"unreadable: {exc}")
