//! The budget: charges and releases, waits and refusals, never below zero, released on drop and
//! on every error path; buffers charged before they grow; the charged response body.

use std::time::Duration;

use http_body_util::BodyExt;
use prometheus::{IntCounter, IntGauge};

use super::*;
use crate::problem::ProblemKind;

const KIB: u64 = 1024;
const MIB: u64 = 1024 * KIB;

/// A budget of `bytes` waiting `wait_ms`, with its gauge and counter.
fn budget(bytes: u64, wait_ms: u64) -> (Budget, IntGauge, IntCounter) {
    let charged = IntGauge::new("charged", "charged").unwrap();
    let refusals = IntCounter::new("refusals", "refusals").unwrap();
    let wait = Duration::from_millis(wait_ms);
    let budget = Budget::new(bytes, wait, charged.clone(), refusals.clone());
    (budget, charged, refusals)
}

fn busy(result: Result<impl Sized, Problem>) -> bool {
    matches!(result, Err(p) if p.kind == ProblemKind::Busy && p.status.as_u16() == 503)
}

#[tokio::test]
async fn a_charge_is_released_when_dropped() {
    let (budget, gauge, refusals) = budget(10 * KIB, 0);
    assert_eq!(budget.capacity(), 10 * KIB);
    let a = budget.charge(4 * KIB).await.unwrap();
    let b = budget.charge(6 * KIB).await.unwrap();
    assert_eq!((a.bytes(), b.bytes()), (4 * KIB, 6 * KIB));
    assert_eq!((budget.charged(), gauge.get()), (10 * KIB, 10 * 1024));
    drop(a);
    assert_eq!(budget.charged(), 6 * KIB);
    drop(b);
    assert_eq!((budget.charged(), gauge.get(), refusals.get()), (0, 0, 0));
}

#[tokio::test]
async fn charges_round_up_to_a_kib_and_grow_only_by_the_difference() {
    let (budget, _, _) = budget(MIB, 0);
    let charge = budget.charge(1).await.unwrap();
    assert_eq!(charge.bytes(), KIB);
    charge.cover(KIB).await.unwrap();
    assert_eq!(budget.charged(), KIB);
    charge.cover(3 * KIB + 1).await.unwrap();
    assert_eq!((charge.bytes(), budget.charged()), (4 * KIB, 4 * KIB));
    // Covering less than what is held changes nothing.
    charge.cover(2 * KIB).await.unwrap();
    assert_eq!(budget.charged(), 4 * KIB);
}

#[tokio::test]
async fn a_full_budget_refuses_at_once_without_a_wait_and_counts_it() {
    let (budget, _, refusals) = budget(8 * KIB, 0);
    let held = budget.charge(8 * KIB).await.unwrap();
    assert!(busy(budget.charge(KIB).await));
    assert_eq!(refusals.get(), 1);
    // A refused growth leaves the charge as it was.
    let small = budget.empty();
    assert!(busy(small.cover(KIB).await));
    assert_eq!(
        (small.bytes(), budget.charged(), refusals.get()),
        (0, 8 * KIB, 2)
    );
    drop(held);
    small.cover(KIB).await.unwrap();
    assert_eq!(budget.charged(), KIB);
}

#[tokio::test]
async fn a_charge_waits_for_a_release_within_the_wait() {
    let (budget, _, refusals) = budget(8 * KIB, 5_000);
    let held = budget.charge(6 * KIB).await.unwrap();
    let waiting = tokio::spawn({
        let budget = budget.clone();
        async move { budget.charge(4 * KIB).await.map(|c| c.bytes()) }
    });
    tokio::task::yield_now().await;
    assert!(!waiting.is_finished());
    drop(held);
    assert_eq!(waiting.await.unwrap().unwrap(), 4 * KIB);
    assert_eq!((budget.charged(), refusals.get()), (0, 0));
}

#[tokio::test]
async fn a_charge_is_refused_after_the_wait() {
    let (budget, _, refusals) = budget(8 * KIB, 50);
    let _held = budget.charge(6 * KIB).await.unwrap();
    let started = std::time::Instant::now();
    assert!(busy(budget.charge(4 * KIB).await));
    assert!(started.elapsed() >= Duration::from_millis(50));
    assert_eq!((budget.charged(), refusals.get()), (6 * KIB, 1));
}

#[tokio::test]
async fn a_charge_over_the_whole_budget_is_refused_without_waiting() {
    let (budget, _, refusals) = budget(8 * KIB, 60_000);
    let started = std::time::Instant::now();
    assert!(busy(budget.charge(8 * KIB + 1).await));
    assert!(busy(budget.charge(u64::MAX).await));
    assert!(started.elapsed() < Duration::from_secs(30));
    assert_eq!((budget.charged(), refusals.get()), (0, 2));
}

#[tokio::test]
async fn a_dropped_waiter_takes_nothing() {
    let (budget, _, _) = budget(8 * KIB, 60_000);
    let held = budget.charge(8 * KIB).await.unwrap();
    let waiter = tokio::spawn({
        let budget = budget.clone();
        async move { budget.charge(8 * KIB).await.map(|c| c.bytes()) }
    });
    tokio::task::yield_now().await;
    waiter.abort();
    assert!(waiter.await.unwrap_err().is_cancelled());
    drop(held);
    assert_eq!(budget.charged(), 0);
    assert_eq!(budget.charge(8 * KIB).await.unwrap().bytes(), 8 * KIB);
}

#[tokio::test]
async fn clones_keep_a_charge_until_the_last_is_dropped() {
    let (budget, _, _) = budget(MIB, 0);
    let charge = budget.charge(5 * KIB).await.unwrap();
    let evaluation = charge.clone();
    let thread = std::thread::spawn(move || drop(evaluation));
    drop(charge);
    thread.join().unwrap();
    assert_eq!(budget.charged(), 0);
    let charge = budget.charge(5 * KIB).await.unwrap();
    let kept = charge.clone();
    drop(charge);
    assert_eq!((kept.bytes(), budget.charged()), (5 * KIB, 5 * KIB));
}

#[tokio::test]
async fn shrinking_releases_the_rest_and_never_goes_below_zero() {
    let (budget, gauge, _) = budget(MIB, 0);
    let charge = budget.charge(10 * KIB).await.unwrap();
    charge.shrink_to(3 * KIB);
    assert_eq!((charge.bytes(), budget.charged()), (3 * KIB, 3 * KIB));
    charge.shrink_to(0);
    charge.shrink_to(0);
    assert_eq!((charge.bytes(), budget.charged(), gauge.get()), (0, 0, 0));
    budget.empty().shrink_to(0);
    drop(charge);
    assert_eq!(gauge.get(), 0);
    // Every unit is there again.
    assert_eq!(budget.charge(MIB).await.unwrap().bytes(), MIB);
}

#[tokio::test]
async fn a_declared_length_is_charged_three_times_before_a_byte_is_read() {
    let (budget, _, _) = budget(30 * MIB, 0);
    let mut buffer = Buffer::new(&budget, 8 * MIB as usize);
    buffer.declare(8 * MIB).await.unwrap();
    assert_eq!(budget.charged(), 8 * MIB * EVALUATION_FACTOR);
    buffer.extend(&[b'a'; 1000]).await.unwrap();
    assert_eq!(budget.charged(), 24 * MIB);
    let (bytes, charge) = buffer.into_parts();
    assert_eq!((bytes.len(), charge.bytes()), (1000, 24 * MIB));
    drop(charge);
    assert_eq!(budget.charged(), 0);
    // A second body of the same size would not fit next to one: refused at once.
    let mut first = Buffer::new(&budget, 8 * MIB as usize);
    first.declare(8 * MIB).await.unwrap();
    let mut second = Buffer::new(&budget, 8 * MIB as usize);
    assert!(busy(second.declare(8 * MIB).await));
    drop(second);
    assert_eq!(budget.charged(), 24 * MIB);
}

#[tokio::test]
async fn a_buffer_without_a_length_is_charged_as_it_grows() {
    let (budget, _, _) = budget(MIB, 0);
    let mut buffer = Buffer::new(&budget, 256 * KIB as usize);
    buffer.declare(0).await.unwrap();
    assert_eq!(budget.charged(), 0);
    buffer.extend(&[1; 10]).await.unwrap();
    assert_eq!(budget.charged(), 3 * 64 * KIB, "grown by 64 KiB at least");
    buffer.extend(&[2; 64 * 1024]).await.unwrap();
    assert_eq!(budget.charged(), 3 * 128 * KIB, "doubled");
    buffer.extend(&[3; 100 * 1024]).await.unwrap();
    assert_eq!(
        budget.charged(),
        3 * 256 * KIB,
        "doubled, at most the limit"
    );
    assert!(budget.charged() >= EVALUATION_FACTOR * buffer.bytes.capacity() as u64);
    assert_eq!(buffer.room(), 256 * 1024 - 10 - 64 * 1024 - 100 * 1024);
    drop(buffer);
    assert_eq!(budget.charged(), 0);
}

#[tokio::test]
async fn error_paths_release_everything() {
    let (budget, _, refusals) = budget(MIB, 0);
    // Over the limit: 413, and the buffer's charge goes with it.
    let mut buffer = Buffer::new(&budget, 100 * KIB as usize);
    buffer.extend(&[0; 1000]).await.unwrap();
    let over = buffer.extend(&[0; 100 * 1024]).await;
    assert!(matches!(over, Err(p) if p.kind == ProblemKind::BodyTooLarge));
    let over = Buffer::new(&budget, 10).declare(11).await;
    assert!(matches!(over, Err(p) if p.kind == ProblemKind::BodyTooLarge));
    drop(buffer);
    assert_eq!(budget.charged(), 0);
    // Past the budget while growing: 503, and what was charged is released with the buffer.
    let mut buffer = Buffer::new(&budget, MIB as usize);
    buffer.extend(&[0; 200 * 1024]).await.unwrap();
    assert!(busy(buffer.extend(&[0; 200 * 1024]).await));
    assert!(budget.charged() > 0);
    drop(buffer);
    assert_eq!((budget.charged(), refusals.get()), (0, 1));
}

#[tokio::test]
async fn read_whole_charges_declared_and_chunked_bodies_and_releases_on_errors() {
    use crate::listen::layers::body_limit::read_whole;
    let (budget, _, _) = budget(MIB, 0);
    let body = http_body_util::Full::new(bytes::Bytes::from(vec![7u8; 100 * 1024]));
    let (bytes, charge) = read_whole(body, 200 * 1024, &budget).await.unwrap();
    assert_eq!((bytes.len(), charge.bytes()), (100 * 1024, 300 * KIB));
    drop((bytes, charge));
    // A body the budget cannot hold: 503, nothing left charged.
    let body = http_body_util::Full::new(bytes::Bytes::from(vec![7u8; 400 * 1024]));
    assert!(busy(read_whole(body, MIB as usize, &budget).await));
    assert_eq!(budget.charged(), 0);
    // A body that fails midway: 400, nothing left charged.
    let failing = Failing(Some(bytes::Bytes::from(vec![1u8; 1000])));
    let failed = read_whole(failing, MIB as usize, &budget).await;
    assert!(matches!(failed, Err(p) if p.kind == ProblemKind::BadBody));
    assert_eq!(budget.charged(), 0);
}

/// A body that sends its bytes, then fails (a client that resets).
struct Failing(Option<bytes::Bytes>);

impl hyper::body::Body for Failing {
    type Data = bytes::Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<hyper::body::Frame<bytes::Bytes>, std::io::Error>>> {
        std::task::Poll::Ready(Some(match self.0.take() {
            Some(data) => Ok(hyper::body::Frame::data(data)),
            None => Err(std::io::Error::other("reset")),
        }))
    }
}

#[tokio::test]
async fn the_charged_body_sends_every_byte_and_releases_when_dropped() {
    let (budget, _, _) = budget(MIB, 0);
    let charge = budget.charge(300 * KIB).await.unwrap();
    let bytes: Vec<u8> = (0..200 * 1024).map(|i| (i % 251) as u8).collect();
    let body = Charged::new(bytes.clone().into(), charge);
    assert_eq!(
        hyper::body::Body::size_hint(&body).exact(),
        Some(200 * 1024)
    );
    let sent = body.collect().await.unwrap().to_bytes();
    assert_eq!(sent.as_ref(), bytes.as_slice());
    assert_eq!(budget.charged(), 0);
}
