//! Certificates rotated without a restart, as a Kubernetes secret volume is updated: the files
//! are symlinks into a `..data` directory link that the kubelet swaps in one rename. While
//! requests run over keep-alive connections, new handshakes get the new certificate and no
//! request fails; a broken pair is refused (counted, told by `/readyz`) and the certificate in
//! use keeps serving; a reload whose files do not load is refused whole.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use utf8gate_e2e::{Gateway, Leaf, Pki, TlsConn, Upstream, exchange, get, request};

use super::{server_pki, tls_toml_files, wait_metrics};

/// A secret volume: `tls.crt` and `tls.key` links through `..data` to a timestamped directory.
struct SecretVolume {
    dir: PathBuf,
    generation: u32,
}

impl SecretVolume {
    fn new(pki: &Pki, leaf: &Leaf) -> SecretVolume {
        let dir = pki.dir().join("volume");
        std::fs::create_dir_all(&dir).unwrap();
        let mut volume = SecretVolume { dir, generation: 0 };
        volume.publish(&leaf.cert, &leaf.key);
        for name in ["tls.crt", "tls.key"] {
            std::os::unix::fs::symlink(format!("..data/{name}"), volume.dir.join(name)).unwrap();
        }
        volume
    }

    /// Writes a new generation and swaps `..data` to it in one rename, as the kubelet does.
    fn publish(&mut self, cert: &Path, key: &Path) {
        self.generation += 1;
        let name = format!("..2026_12_07_{:02}", self.generation);
        let generation = self.dir.join(&name);
        std::fs::create_dir_all(&generation).unwrap();
        std::fs::copy(cert, generation.join("tls.crt")).unwrap();
        std::fs::copy(key, generation.join("tls.key")).unwrap();
        let tmp = self.dir.join("..data_tmp");
        let _ = std::fs::remove_file(&tmp);
        std::os::unix::fs::symlink(&name, &tmp).unwrap();
        std::fs::rename(&tmp, self.dir.join("..data")).unwrap();
    }

    fn cert(&self) -> PathBuf {
        self.dir.join("tls.crt")
    }

    fn key(&self) -> PathBuf {
        self.dir.join("tls.key")
    }
}

/// The certificate a new handshake is given.
async fn presented(gw: &Gateway, pki: &Pki) -> Vec<u8> {
    let conn = TlsConn::connect(gw.proxy, pki.client(&["http/1.1"], None), "localhost").await;
    conn.unwrap().presented.to_vec()
}

/// Polls (at most 10 s) until new handshakes get `want`.
async fn wait_presented(gw: &Gateway, pki: &Pki, want: &Leaf) -> bool {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while tokio::time::Instant::now() < deadline {
        if presented(gw, pki).await == want.der.to_vec() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

const RELOADS_OK: &str = "utf8gate_tls_reloads_total{result=\"ok\"}";
const RELOADS_ERROR: &str = "utf8gate_tls_reloads_total{result=\"error\"}";
const FAILING: &str = "utf8gate_tls_certificate_files_failing";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_secret_update_rotates_the_certificate_under_load_and_a_broken_one_is_refused() {
    let (pki, first) = server_pki("rotation");
    let second = pki.issue("server-2", &["localhost"], &[], 60, false);
    let stranger = pki.issue("stranger", &["localhost"], &[], 60, false);
    let mut volume = SecretVolume::new(&pki, &first);
    let upstream = Upstream::start().await;
    let toml = tls_toml_files(&volume.cert(), &volume.key(), "");
    let gw = Gateway::start(&toml, Some(&upstream.url())).await;
    assert_eq!(presented(&gw, &pki).await, first.der.to_vec());

    // Four keep-alive connections send requests one after another until told to stop.
    let stop = Arc::new(AtomicBool::new(false));
    let (ok, failed) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
    let mut loops = Vec::new();
    for _ in 0..4 {
        let config = pki.client(&["http/1.1"], None);
        let mut conn = TlsConn::connect(gw.proxy, config, "localhost")
            .await
            .unwrap();
        let (stop, ok, failed) = (stop.clone(), ok.clone(), failed.clone());
        loops.push(tokio::spawn(async move {
            let mut sent = 0u32;
            // Bounded: stops when told, or after 20 000 requests.
            while !stop.load(Ordering::Relaxed) && sent < 20_000 {
                sent += 1;
                match conn.exchange(&get("/load")).await {
                    Ok(r) if r.status == 200 => ok.fetch_add(1, Ordering::Relaxed),
                    _ => failed.fetch_add(1, Ordering::Relaxed),
                };
            }
            conn.presented.to_vec()
        }));
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    volume.publish(&second.cert, &second.key);
    assert!(
        wait_presented(&gw, &pki, &second).await,
        "new handshakes get the new certificate"
    );
    let during = ok.load(Ordering::Relaxed);
    tokio::time::sleep(Duration::from_millis(300)).await;
    stop.store(true, Ordering::Relaxed);
    for handle in loops {
        // The connections made before the rotation keep the certificate they were given.
        assert_eq!(handle.await.unwrap(), first.der.to_vec());
    }
    assert_eq!(failed.load(Ordering::Relaxed), 0, "no request failed");
    assert!(
        ok.load(Ordering::Relaxed) > during,
        "requests went on after the rotation"
    );
    let m = gw.metrics().await;
    assert_eq!(m.value(RELOADS_OK), 1.0, "{}", m.text);
    let expiry = format!(
        "utf8gate_tls_certificate_expiry_seconds{{file=\"{}\",name=\"localhost\"}}",
        volume.cert().display()
    );
    assert_eq!(m.value(&expiry), second.not_after as f64);

    // A key that is not the certificate's: refused, the second certificate still served.
    volume.publish(&second.cert, &stranger.key);
    let m = wait_metrics(&gw, |m| m.value(RELOADS_ERROR) >= 1.0).await;
    assert_eq!(m.value(RELOADS_ERROR), 1.0, "{}", m.text);
    assert_eq!(m.value(FAILING), 1.0, "{}", m.text);
    assert_eq!(presented(&gw, &pki).await, second.der.to_vec());
    let ready = exchange(gw.admin, &get("/readyz")).await;
    assert_eq!(ready.status, 200);
    assert!(
        ready.text().contains("tls: the certificates in use stay"),
        "{}",
        ready.text()
    );
    assert!(
        ready.text().contains("the key is not the certificate's"),
        "{}",
        ready.text()
    );
    // Mended: loaded, and /readyz no longer mentions it.
    volume.publish(&stranger.cert, &stranger.key);
    assert!(wait_presented(&gw, &pki, &stranger).await);
    let ready = exchange(gw.admin, &get("/readyz")).await;
    assert!(!ready.text().contains("tls:"), "{}", ready.text());
    assert_eq!(gw.metrics().await.value(FAILING), 0.0);

    // A reload of a configuration whose key file is missing is refused whole.
    let missing = pki.dir().join("missing.key");
    gw.rewrite_config(&tls_toml_files(&volume.cert(), &missing, ""));
    let refused = exchange(gw.admin, &request("POST", "/admin/reload", &[], b"")).await;
    assert_eq!(refused.status, 422, "{}", refused.text());
    assert!(refused.text().contains("missing.key"), "{}", refused.text());
    assert_eq!(presented(&gw, &pki).await, stranger.der.to_vec());
    // SIGHUP with the files back: loaded again (the same certificate).
    gw.rewrite_config(&toml);
    gw.hangup();
    let m = wait_metrics(&gw, |m| {
        m.value("utf8gate_config_reloads_total{result=\"ok\"}") >= 1.0
    })
    .await;
    assert_eq!(
        m.value("utf8gate_config_reloads_total{result=\"ok\"}"),
        1.0,
        "{}",
        m.text
    );
    assert_eq!(presented(&gw, &pki).await, stranger.der.to_vec());
}
