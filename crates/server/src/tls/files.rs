//! PEM files read into rustls's types, with errors that name the file and say what is wrong
//! with it; and a fingerprint of the files' state, to notice that one changed.

use std::path::Path;
use std::sync::Arc;

use rustls::crypto::CryptoProvider;
use rustls::sign::CertifiedKey;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};

use crate::ops::config::Pair;

/// Reads `path` whole, or says why not.
fn bytes(path: &Path) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("{}: cannot read it: {e}", path.display()))
}

/// Every certificate of the PEM file `path` (at least one).
pub fn certificates(path: &Path) -> Result<Vec<CertificateDer<'static>>, String> {
    let pem = bytes(path)?;
    let chain = CertificateDer::pem_slice_iter(&pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("{}: not a PEM certificate file: {e}", path.display()))?;
    if chain.is_empty() {
        return Err(format!("{}: holds no CERTIFICATE block", path.display()));
    }
    Ok(chain)
}

/// The private key of the PEM file `path`.
fn private_key(path: &Path) -> Result<PrivateKeyDer<'static>, String> {
    let pem = bytes(path)?;
    PrivateKeyDer::from_pem_slice(&pem).map_err(|e| {
        format!(
            "{}: no usable private key (PKCS#8, PKCS#1 or SEC1 PEM): {e}",
            path.display()
        )
    })
}

/// A chain and its key, checked to belong together, with the leaf's facts.
pub struct Loaded {
    /// What rustls serves.
    pub key: Arc<CertifiedKey>,
    /// The leaf certificate's facts.
    pub facts: super::der::Facts,
}

/// Loads `pair` with `provider`'s key loader: the key must be of a kind it signs with, and
/// must be the leaf certificate's key.
pub fn pair(pair: &Pair, provider: &CryptoProvider) -> Result<Loaded, String> {
    let chain = certificates(&pair.cert)?;
    let facts = super::der::read(&chain[0]).ok_or_else(|| {
        format!(
            "{}: its first certificate is not an X.509 certificate",
            pair.cert.display()
        )
    })?;
    let key = private_key(&pair.key)?;
    let signing = (provider.key_provider.load_private_key(key))
        .map_err(|e| format!("{}: the key cannot sign: {e}", pair.key.display()))?;
    let key = CertifiedKey::new(chain, signing);
    key.keys_match().map_err(|e| {
        format!(
            "{} and {}: the key is not the certificate's ({e})",
            pair.key.display(),
            pair.cert.display()
        )
    })?;
    Ok(Loaded {
        key: Arc::new(key),
        facts,
    })
}

/// The CA certificates of the PEM bundle `path`, as a root store.
pub fn roots(path: &Path) -> Result<rustls::RootCertStore, String> {
    let mut store = rustls::RootCertStore::empty();
    for certificate in certificates(path)? {
        store
            .add(certificate)
            .map_err(|e| format!("{}: a CA certificate is unusable: {e}", path.display()))?;
    }
    Ok(store)
}

/// What the files at `paths` are now: for each, its length, modification time and inode (a
/// secret volume's update swaps a symlink to a new file), or nothing if it cannot be read.
/// Two equal fingerprints: nothing to read again.
pub fn fingerprint<'a>(
    paths: impl Iterator<Item = &'a Path>,
) -> Vec<Option<(u64, std::time::SystemTime, u64)>> {
    paths
        .map(|path| {
            let meta = std::fs::metadata(path).ok()?;
            #[cfg(unix)]
            let inode = std::os::unix::fs::MetadataExt::ino(&meta);
            #[cfg(not(unix))]
            let inode = 0;
            Some((meta.len(), meta.modified().ok()?, inode))
        })
        .collect()
}
