"""``report --scheduler tls://...``: the campaign runs over TLS with the CA, certificate and key options.

A Dask scheduler and worker on loopback require TLS with certificates this test makes (a
certificate authority, a certificate for the cluster, one for the client). The report must
run through them; a client without a certificate, one trusting another CA, or without the TLS
options is refused in one line with exit status 2 (an unreachable scheduler), never with a
traceback. Certificates are made with the ``cryptography`` package when it is installed, else
with the ``openssl`` command.
"""

from __future__ import annotations

import datetime
import ipaddress
import shutil
import subprocess
from pathlib import Path

import pytest

from verify.app.cli import main

distributed = pytest.importorskip("distributed")

pytestmark = [
    pytest.mark.slow,
    # distributed's comm layers may warn while the cluster shuts down; they say nothing about TLS.
    pytest.mark.filterwarnings("ignore:.*[Cc]losing.*:RuntimeWarning"),
    pytest.mark.filterwarnings("ignore:Port .* is already in use:UserWarning"),
]

CAMPAIGN = """\
[campaign]
examples = 2
worked = false
float_check = false
shrink = false
layer_budget = 20

[[family]]
name = "generic"
n = [3, 4]
d = [2]
"""


def _with_cryptography(folder: Path, names: list[str]) -> dict[str, tuple[Path, Path]]:
    # cryptography is optional (the openssl command stands in): imported only on this path.
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = datetime.datetime.now(datetime.timezone.utc)

    def write(name: str, key, cert) -> tuple[Path, Path]:  # type: ignore[no-untyped-def]
        cert_path, key_path = folder / f"{name}.pem", folder / f"{name}.key"
        cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
        key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                               serialization.NoEncryption()))
        return cert_path, key_path

    def build(subject: str, key, issuer_name, issuer_key, *, ca: bool):  # type: ignore[no-untyped-def]
        builder = (x509.CertificateBuilder()
                   .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
                   .issuer_name(issuer_name).public_key(key.public_key())
                   .serial_number(x509.random_serial_number())
                   .not_valid_before(now - datetime.timedelta(minutes=5))
                   .not_valid_after(now + datetime.timedelta(days=1))
                   .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
        if not ca:
            builder = builder.add_extension(
                x509.SubjectAlternativeName([x509.DNSName("localhost"),
                                             x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
        return builder.sign(issuer_key, hashes.SHA256())

    made: dict[str, tuple[Path, Path]] = {}
    for ca_name, leaves in (("ca", names), ("other-ca", ["other-client"])):
        ca_key = ec.generate_private_key(ec.SECP256R1())
        ca_subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"hardmax test {ca_name}")])
        made[ca_name] = write(ca_name, ca_key, build(f"hardmax test {ca_name}", ca_key, ca_subject, ca_key, ca=True))
        for leaf in leaves:
            key = ec.generate_private_key(ec.SECP256R1())
            made[leaf] = write(leaf, key, build(leaf, key, ca_subject, ca_key, ca=False))
    return made


def _with_openssl(folder: Path, names: list[str]) -> dict[str, tuple[Path, Path]]:
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("neither the cryptography package nor the openssl command is available")

    def run(*args: str) -> None:
        subprocess.run([openssl, *args], check=True, capture_output=True, cwd=folder)

    made: dict[str, tuple[Path, Path]] = {}
    (folder / "san.cnf").write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    for ca_name, leaves in (("ca", names), ("other-ca", ["other-client"])):
        run("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
            "-subj", f"/CN=hardmax test {ca_name}", "-keyout", f"{ca_name}.key", "-out", f"{ca_name}.pem")
        made[ca_name] = (folder / f"{ca_name}.pem", folder / f"{ca_name}.key")
        for leaf in leaves:
            run("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-subj", f"/CN={leaf}",
                "-keyout", f"{leaf}.key", "-out", f"{leaf}.csr")
            run("x509", "-req", "-in", f"{leaf}.csr", "-CA", f"{ca_name}.pem", "-CAkey", f"{ca_name}.key",
                "-CAcreateserial", "-days", "1", "-extfile", "san.cnf", "-out", f"{leaf}.pem")
            made[leaf] = (folder / f"{leaf}.pem", folder / f"{leaf}.key")
    return made


@pytest.fixture(scope="module")
def certificates(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, Path]]:
    folder = tmp_path_factory.mktemp("tls")
    names = ["cluster", "client"]
    try:
        import cryptography  # noqa: F401
    except ImportError:
        return _with_openssl(folder, names)
    return _with_cryptography(folder, names)


@pytest.fixture(scope="module")
def tls_scheduler(certificates: dict[str, tuple[Path, Path]]):  # type: ignore[no-untyped-def]
    """A LocalCluster on loopback that accepts TLS connections only, with client certificates required."""
    ca, (cluster_cert, cluster_key) = certificates["ca"][0], certificates["cluster"]
    security = distributed.Security(
        tls_ca_file=str(ca), tls_scheduler_cert=str(cluster_cert), tls_scheduler_key=str(cluster_key),
        tls_worker_cert=str(cluster_cert), tls_worker_key=str(cluster_key),
        tls_client_cert=str(cluster_cert), tls_client_key=str(cluster_key), require_encryption=True)
    # Worker threads in this process (processes=False): fast to start; every connection, the
    # report command's included, still goes through the TLS listener.
    cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, protocol="tls://",
                                       host="127.0.0.1", security=security, dashboard_address=None,
                                       scheduler_kwargs={"dashboard_address": "127.0.0.1:0"})
    try:
        address = cluster.scheduler_address
        assert address.startswith("tls://127.0.0.1:"), address
        yield address
    finally:
        cluster.close()


def _report(args: list[str], tmp_path: Path) -> list[str]:
    (tmp_path / "campaign.toml").write_text(CAMPAIGN)
    return ["report", "--config", str(tmp_path / "campaign.toml"), "--out", str(tmp_path / "out"),
            "--runs", str(tmp_path / "none"), "--connect-timeout", "5", *args]


def test_a_campaign_runs_over_tls_with_the_client_certificate(tls_scheduler: str, certificates, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    ca = certificates["ca"][0]
    cert, key = certificates["client"]
    status = main(_report(["--scheduler", tls_scheduler, "--tls-ca-file", str(ca), "--tls-cert", str(cert),
                           "--tls-key", str(key)], tmp_path))
    err = capsys.readouterr().err
    assert status == 0, err
    results = (tmp_path / "out" / "results.json").read_text()
    assert '"examples": 2' in results
    assert "--tls-ca-file" in results  # the equivalent command records the TLS options


@pytest.mark.parametrize("case, fragment", [
    ("client trusts another CA", "cannot connect"),
    ("client certificate of another CA", "cannot connect"),
    ("no client certificate", "--tls-cert"),
    ("no TLS options", "--tls-ca-file"),
])
def test_a_client_the_scheduler_does_not_accept_is_refused_in_one_line(tls_scheduler: str, certificates, case: str,
                                                                       fragment: str, tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    ca = str(certificates["ca"][0])
    cert, key = map(str, certificates["client"])
    options = {
        "client trusts another CA": ["--tls-ca-file", str(certificates["other-ca"][0]), "--tls-cert", cert,
                                     "--tls-key", key],
        "client certificate of another CA": ["--tls-ca-file", ca, "--tls-cert", str(certificates["other-client"][0]),
                                             "--tls-key", str(certificates["other-client"][1])],
        "no client certificate": ["--tls-ca-file", ca],
        "no TLS options": [],
    }[case]
    status = main(_report(["--scheduler", tls_scheduler, *options], tmp_path))
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    assert status == 2, err
    assert len(lines) == 1 and lines[0].startswith("error:") and "Traceback" not in err, err
    assert fragment in lines[0], err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("args, option", [
    (["--scheduler", "tcp://127.0.0.1:8786", "--tls-ca-file", "{ca}"], "--scheduler"),
    (["--jobs", "1", "--tls-ca-file", "{ca}"], "--tls-ca-file"),
    (["--scheduler", "tls://127.0.0.1:8786", "--tls-key", "{key}"], "--tls-key"),
])
def test_tls_options_without_a_tls_address_are_refused_before_connecting(args: list[str], option: str, certificates,
                                                                         tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    filled = [a.format(ca=certificates["ca"][0], key=certificates["client"][1]) for a in args]
    status = main(_report(filled, tmp_path))
    err = capsys.readouterr().err
    assert status == 2, err
    assert err.startswith(f"error: {option}:"), err
