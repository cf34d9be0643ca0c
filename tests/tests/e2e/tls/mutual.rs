//! Mutual TLS on the proxy listener (`tls.client_ca`): a client certificate the CA signed is
//! required (or, reloaded to `optional`, only asked for), its identity is the audit line's
//! `client`, and a missing or foreign certificate is refused at the handshake and counted.

use utf8gate_e2e::{Gateway, Pki, TlsConn, Upstream, exchange, request};

use super::{failures, server_pki, tls_toml, wait_metrics};

const SPIFFE: &str = "spiffe://utf8gate.test/ns/web/sa/client";

fn get_with_id(id: &str) -> Vec<u8> {
    request("GET", "/hello", &[("X-Request-Id", id.as_bytes())], b"")
}

/// The response of one GET over a new connection with `client`'s certificate, or the error.
async fn try_get(
    gw: &Gateway,
    pki: &Pki,
    client: Option<&utf8gate_e2e::Leaf>,
    id: &str,
) -> std::io::Result<utf8gate_e2e::RawResponse> {
    let config = pki.client(&["http/1.1"], client);
    let mut conn = TlsConn::connect(gw.proxy, config, "localhost").await?;
    // Under TLS 1.3 the server checks the client's certificate after the client has finished
    // its side of the handshake: a refusal arrives as an alert on the first read.
    conn.exchange(&get_with_id(id)).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_certificates_are_required_named_in_the_audit_line_and_refused_when_foreign() {
    let (pki, leaf) = server_pki("mutual");
    let client = pki.issue("client", &[], &[SPIFFE], 30, true);
    let named = pki.issue("named-client", &["svc.internal"], &[], 30, true);
    let foreign_ca = Pki::new("foreign");
    let foreign = foreign_ca.issue("intruder", &[], &["spiffe://elsewhere/x"], 30, true);
    let more = |auth: &str| {
        format!(
            "client_ca = {:?}\nclient_auth = \"{auth}\"\n",
            pki.ca.display().to_string()
        )
    };
    let upstream = Upstream::start().await;
    let gw = Gateway::start(&tls_toml(&leaf, &more("required")), Some(&upstream.url())).await;

    let ok = try_get(&gw, &pki, Some(&client), "mtls-1").await.unwrap();
    assert_eq!(ok.status, 200, "{}", ok.text());
    assert_eq!(gw.audit_line("mtls-1").await["client"], SPIFFE);
    let ok = try_get(&gw, &pki, Some(&named), "mtls-2").await.unwrap();
    assert_eq!(ok.status, 200);
    assert_eq!(gw.audit_line("mtls-2").await["client"], "svc.internal");

    assert!(
        try_get(&gw, &pki, None, "mtls-3").await.is_err(),
        "no certificate"
    );
    assert!(
        try_get(&gw, &pki, Some(&foreign), "mtls-4").await.is_err(),
        "foreign CA"
    );
    let m = wait_metrics(&gw, |m| {
        failures(m, "proxy", "no_certificate") >= 1.0
            && failures(m, "proxy", "bad_certificate") >= 1.0
    })
    .await;
    assert_eq!(failures(&m, "proxy", "no_certificate"), 1.0, "{}", m.text);
    assert_eq!(failures(&m, "proxy", "bad_certificate"), 1.0, "{}", m.text);
    assert_eq!(
        upstream.count(),
        2,
        "only the two authenticated requests went through"
    );

    // Reloaded to optional: a client without a certificate is served, anonymous; a foreign
    // certificate is still refused.
    gw.rewrite_config(&tls_toml(&leaf, &more("optional")));
    let reload = request("POST", "/admin/reload", &[], b"");
    let answered = exchange(gw.admin, &reload).await;
    assert_eq!(answered.status, 200, "{}", answered.text());
    let ok = try_get(&gw, &pki, None, "mtls-5").await.unwrap();
    assert_eq!(ok.status, 200);
    let line = gw.audit_line("mtls-5").await;
    assert!(line.get("client").is_none(), "{line}");
    assert!(try_get(&gw, &pki, Some(&foreign), "mtls-6").await.is_err());
}
