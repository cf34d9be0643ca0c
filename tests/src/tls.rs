//! TLS for the end-to-end tests: [`Pki`], a certificate authority made by the test (rcgen;
//! nothing committed) that writes PEM files, and [`TlsConn`], a rustls client connection that
//! sends raw HTTP/1.1 bytes and reads responses, telling what the server presented.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    SanType,
};
use rustls_pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use tokio::io::{AsyncWriteExt, ReadHalf, WriteHalf};
use tokio::net::TcpStream;
use tokio_rustls::client::TlsStream;

use crate::client::ResponseReader;
use crate::{RawResponse, ScratchDir};

/// A certificate authority and the files of what it issued, in a scratch directory.
pub struct Pki {
    dir: ScratchDir,
    issuer: Issuer<'static, KeyPair>,
    /// The CA certificate's PEM file.
    pub ca: PathBuf,
    ca_der: CertificateDer<'static>,
}

/// An issued certificate: its files and its DER.
#[derive(Clone, Debug)]
pub struct Leaf {
    /// The chain's PEM file (the leaf alone).
    pub cert: PathBuf,
    /// The private key's PEM file.
    pub key: PathBuf,
    /// The certificate.
    pub der: CertificateDer<'static>,
    /// Its `notAfter`, as Unix time.
    pub not_after: i64,
    key_der: Vec<u8>,
}

impl Pki {
    /// A new CA named `label` (ECDSA P-256, as every key it issues).
    pub fn new(label: &str) -> Pki {
        let dir = ScratchDir::new(&format!("pki-{label}"));
        let mut params = CertificateParams::new(Vec::<String>::new()).expect("params");
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params
            .distinguished_name
            .push(DnType::CommonName, format!("utf8gate test CA {label}"));
        let key = KeyPair::generate().expect("CA key");
        let cert = params.self_signed(&key).expect("CA certificate");
        let ca = dir.write("ca.pem", cert.pem().as_bytes());
        Pki {
            issuer: Issuer::new(params, key),
            ca,
            ca_der: cert.der().clone(),
            dir,
        }
    }

    /// Issues a certificate for `dns` names (and 127.0.0.1) with the URI names `uris`, valid
    /// for `days`, written as `<file>.pem` and `<file>.key`; `client`: for client auth.
    pub fn issue(&self, file: &str, dns: &[&str], uris: &[&str], days: i64, client: bool) -> Leaf {
        let names: Vec<String> = dns.iter().map(|s| s.to_string()).collect();
        let mut params = CertificateParams::new(names).expect("params");
        params
            .subject_alt_names
            .push(SanType::IpAddress([127, 0, 0, 1].into()));
        for uri in uris {
            let uri = (*uri).try_into().expect("an IA5 URI");
            params.subject_alt_names.push(SanType::URI(uri));
        }
        params.distinguished_name.push(DnType::CommonName, file);
        let now = time::OffsetDateTime::now_utc();
        params.not_before = now - time::Duration::days(1);
        params.not_after = now + time::Duration::days(days);
        params.extended_key_usages = vec![if client {
            ExtendedKeyUsagePurpose::ClientAuth
        } else {
            ExtendedKeyUsagePurpose::ServerAuth
        }];
        let key = KeyPair::generate().expect("key");
        let cert = params.signed_by(&key, &self.issuer).expect("certificate");
        Leaf {
            cert: self
                .dir
                .write(&format!("{file}.pem"), cert.pem().as_bytes()),
            key: self
                .dir
                .write(&format!("{file}.key"), key.serialize_pem().as_bytes()),
            der: cert.der().clone(),
            not_after: params.not_after.unix_timestamp(),
            key_der: key.serialize_der(),
        }
    }

    /// The directory the files are in.
    pub fn dir(&self) -> &std::path::Path {
        self.dir.path()
    }

    /// A client configuration that trusts this CA, offers `alpn`, and presents `client`.
    pub fn client(&self, alpn: &[&str], client: Option<&Leaf>) -> Arc<rustls::ClientConfig> {
        let mut roots = rustls::RootCertStore::empty();
        roots.add(self.ca_der.clone()).expect("CA root");
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let builder = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .expect("versions")
            .with_root_certificates(roots);
        let mut config = match client {
            None => builder.with_no_client_auth(),
            Some(leaf) => {
                let key = PrivateKeyDer::try_from(leaf.key_der.clone()).expect("key");
                (builder.with_client_auth_cert(vec![leaf.der.clone()], key)).expect("client cert")
            }
        };
        config.alpn_protocols = alpn.iter().map(|p| p.as_bytes().to_vec()).collect();
        Arc::new(config)
    }
}

/// A TLS connection that sends raw HTTP/1.1 bytes.
pub struct TlsConn {
    reader: ResponseReader<ReadHalf<TlsStream<TcpStream>>>,
    writer: WriteHalf<TlsStream<TcpStream>>,
    /// The certificate the server presented (its leaf).
    pub presented: CertificateDer<'static>,
    /// The protocol ALPN chose, if any.
    pub alpn: Option<Vec<u8>>,
    /// The TLS version, as rustls names it (`TLSv1_3`).
    pub version: String,
}

impl TlsConn {
    /// Connects to `addr` and runs the handshake for `server_name` within 10 s.
    pub async fn connect(
        addr: SocketAddr,
        config: Arc<rustls::ClientConfig>,
        server_name: &str,
    ) -> std::io::Result<TlsConn> {
        let name = ServerName::try_from(server_name.to_string())
            .map_err(|e| std::io::Error::other(e.to_string()))?;
        let handshake = async {
            let tcp = TcpStream::connect(addr).await?;
            tcp.set_nodelay(true)?;
            tokio_rustls::TlsConnector::from(config)
                .connect(name, tcp)
                .await
        };
        let stream = tokio::time::timeout(Duration::from_secs(10), handshake)
            .await
            .map_err(|_| std::io::Error::other("handshake timed out"))??;
        let (_, connection) = stream.get_ref();
        let presented = (connection.peer_certificates())
            .and_then(|c| c.first().cloned())
            .ok_or_else(|| std::io::Error::other("no server certificate"))?;
        let alpn = connection.alpn_protocol().map(<[u8]>::to_vec);
        let version = (connection.protocol_version()).map_or(String::new(), |v| format!("{v:?}"));
        let (read, writer) = tokio::io::split(stream);
        Ok(TlsConn {
            reader: ResponseReader::new(read),
            writer,
            presented: presented.into_owned(),
            alpn,
            version,
        })
    }

    /// Sends `bytes` and reads one response, within 10 s.
    pub async fn exchange(&mut self, bytes: &[u8]) -> std::io::Result<RawResponse> {
        self.writer.write_all(bytes).await?;
        self.writer.flush().await?;
        tokio::time::timeout(Duration::from_secs(10), self.reader.read_response())
            .await
            .map_err(|_| std::io::Error::other("no response in time"))?
    }
}
