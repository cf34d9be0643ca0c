//! The memory budget of buffered bodies (`limits.max_buffered_bytes`): one per process, shared
//! by every listener (proxy, `/v1/scan`, `/v1/sanitize`, `/authz/*`, the gRPC check).
//!
//! A request that buffers a body is charged before it allocates: a declared `Content-Length`
//! up front, a body without one as its buffer grows ([`Buffer`]), always
//! [`EVALUATION_FACTOR`] times the buffer's capacity. When the budget cannot cover a charge
//! within `limits.buffer_wait_seconds`, the request is refused with [`Problem::busy`] (503 with
//! `Retry-After`) and counted. A [`Charge`] is released when its last clone is dropped: the
//! request's future holds one, and the gate moves one into the evaluation (which may outlive a
//! request cut by the timeout), so the bytes are released when the buffers really are.
//!
//! Built on a tokio semaphore counting KiB: acquisitions are FIFO (a large body waiting is not
//! overtaken forever by small ones), and nothing is ever charged twice or released twice.

pub mod arenas;

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use prometheus::{IntCounter, IntGauge};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::problem::Problem;

/// What a buffered body costs while it is evaluated, as a multiple of its bytes: the body
/// itself, its decoded or rewritten copy (a coded body is evaluated decoded; a sanitized one is
/// rewritten into a new buffer) and the evaluation's own working memory (fields, findings, NFC
/// and lossy output), which the policy keeps proportional to the bytes it reads.
pub const EVALUATION_FACTOR: u64 = 3;

/// The budget counts whole KiB (a semaphore takes at most `u32::MAX` permits at once).
const UNIT: u64 = 1024;

/// The smallest step by which a buffer without a declared length grows.
const MIN_GROWTH: usize = 64 * 1024;

/// What a buffer of `capacity` bytes is charged: [`EVALUATION_FACTOR`] times its bytes.
fn cost(capacity: usize) -> u64 {
    (capacity as u64).saturating_mul(EVALUATION_FACTOR)
}

/// KiB to hold `bytes`, rounded up.
fn units(bytes: u64) -> u64 {
    bytes.div_ceil(UNIT)
}

/// The process's budget of buffered body bytes. Cheap to clone (one shared allocation).
#[derive(Clone)]
pub struct Budget {
    inner: Arc<Inner>,
}

struct Inner {
    permits: Arc<Semaphore>,
    /// The capacity, in units.
    units: u64,
    /// How long a charge waits for the budget before it is refused.
    wait: Duration,
    /// `utf8gate_budget_charged_bytes`.
    charged: IntGauge,
    /// `utf8gate_budget_refusals_total`.
    refusals: IntCounter,
}

impl Budget {
    /// A budget of `max_bytes` (rounded up to a KiB; at most `usize::MAX >> 3` KiB), whose
    /// charges wait at most `wait`, reported in `charged` (bytes) and `refusals`.
    pub fn new(max_bytes: u64, wait: Duration, charged: IntGauge, refusals: IntCounter) -> Budget {
        let units = units(max_bytes).min(Semaphore::MAX_PERMITS as u64);
        Budget {
            inner: Arc::new(Inner {
                permits: Arc::new(Semaphore::new(units as usize)),
                units,
                wait,
                charged,
                refusals,
            }),
        }
    }

    /// The capacity in bytes.
    pub fn capacity(&self) -> u64 {
        self.inner.units * UNIT
    }

    /// The bytes charged now, by every request (the gauge's value).
    pub fn charged(&self) -> u64 {
        u64::try_from(self.inner.charged.get()).unwrap_or(0)
    }

    /// A charge of nothing, to [`Charge::cover`] later.
    pub fn empty(&self) -> Charge {
        Charge(Arc::new(Held {
            budget: self.clone(),
            permit: Mutex::new(None),
        }))
    }

    /// A charge of `bytes`, waited for as [`Charge::cover`] does.
    pub async fn charge(&self, bytes: u64) -> Result<Charge, Problem> {
        let charge = self.empty();
        charge.cover(bytes).await?;
        Ok(charge)
    }

    /// Counts a refusal and returns its problem.
    fn refuse(&self) -> Problem {
        self.inner.refusals.inc();
        Problem::busy()
    }
}

/// Bytes charged to the [`Budget`], released when the last clone is dropped. Grown by one
/// task at a time (the reader of the body); clones only keep it alive.
#[derive(Clone)]
pub struct Charge(Arc<Held>);

struct Held {
    budget: Budget,
    permit: Mutex<Option<OwnedSemaphorePermit>>,
}

impl Charge {
    /// The bytes charged.
    pub fn bytes(&self) -> u64 {
        self.lock().as_ref().map_or(0, |p| p.num_permits() as u64) * UNIT
    }

    /// Grows the charge to at least `bytes`. When the budget cannot cover the difference now,
    /// waits for it up to the budget's wait, then refuses ([`Problem::busy`], counted); a
    /// charge larger than the whole budget is refused at once. A refusal leaves the charge as
    /// it was.
    pub async fn cover(&self, bytes: u64) -> Result<(), Problem> {
        let budget = &self.0.budget;
        let inner = &budget.inner;
        let want = units(bytes);
        let have = self.bytes() / UNIT;
        if want <= have {
            return Ok(());
        }
        let Ok(more) = u32::try_from(want - have) else {
            return Err(budget.refuse());
        };
        if want > inner.units {
            return Err(budget.refuse());
        }
        let permits = Arc::clone(&inner.permits);
        let got = match Arc::clone(&permits).try_acquire_many_owned(more) {
            Ok(got) => got,
            Err(_) if inner.wait.is_zero() => return Err(budget.refuse()),
            Err(_) => {
                match tokio::time::timeout(inner.wait, permits.acquire_many_owned(more)).await {
                    Ok(Ok(got)) => got,
                    _ => return Err(budget.refuse()),
                }
            }
        };
        inner.charged.add((u64::from(more) * UNIT) as i64);
        let mut held = self.lock();
        match held.as_mut() {
            Some(permit) => permit.merge(got),
            None => *held = Some(got),
        }
        Ok(())
    }

    /// Shrinks the charge to `bytes` (rounded up to a KiB), releasing the rest now.
    pub fn shrink_to(&self, bytes: u64) {
        let want = units(bytes) as usize;
        let mut held = self.lock();
        let Some(permit) = held.as_mut() else {
            return;
        };
        let have = permit.num_permits();
        if have > want {
            let released = permit.split(have - want);
            let freed = released.map_or(0, |r| r.num_permits() as u64);
            self.0.budget.inner.charged.sub((freed * UNIT) as i64);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<OwnedSemaphorePermit>> {
        self.0.permit.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        let permit = self
            .permit
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(permit) = permit.take() {
            let freed = permit.num_permits() as u64 * UNIT;
            self.budget.inner.charged.sub(freed as i64);
        }
    }
}

/// A body read into one buffer whose capacity is charged [`EVALUATION_FACTOR`] times before
/// it is allocated; at most `limit` bytes.
pub struct Buffer {
    bytes: Vec<u8>,
    charge: Charge,
    limit: usize,
    /// The declared length, charged already, allocated at the first append (a body that
    /// arrives in one frame is kept as it is: [`Buffer::whole`], nothing allocated).
    declared: usize,
}

impl Buffer {
    /// An empty buffer of at most `limit` bytes, charged to `budget`.
    pub fn new(budget: &Budget, limit: usize) -> Buffer {
        Buffer {
            bytes: Vec::new(),
            charge: budget.empty(),
            limit,
            declared: 0,
        }
    }

    /// Room for a declared length of `declared` bytes (at most the limit), charged now and
    /// allocated at the first append.
    pub async fn declare(&mut self, declared: u64) -> Result<(), Problem> {
        let declared = usize::try_from(declared).unwrap_or(usize::MAX);
        if declared > self.limit {
            return Err(Problem::too_large(self.limit as u64));
        }
        self.charge.cover(cost(declared)).await?;
        self.declared = declared;
        Ok(())
    }

    /// Bytes that can still be appended within the limit.
    pub fn room(&self) -> usize {
        self.limit - self.bytes.len()
    }

    /// Appends `data`, growing the buffer (charged first) when it is full: by doubling, at
    /// least [`MIN_GROWTH`], at most to the limit. Past the limit it is [`Problem::too_large`].
    pub async fn extend(&mut self, data: &[u8]) -> Result<(), Problem> {
        if data.len() > self.room() {
            return Err(Problem::too_large(self.limit as u64));
        }
        let needed = self.bytes.len() + data.len();
        if needed > self.bytes.capacity() {
            let grown = match self.bytes.capacity() == 0 && self.declared >= needed {
                true => self.declared,
                false => (self.bytes.capacity().saturating_mul(2))
                    .max(MIN_GROWTH)
                    .max(needed)
                    .min(self.limit),
            };
            self.reserve(grown).await?;
        }
        self.bytes.extend_from_slice(data);
        Ok(())
    }

    /// Makes the capacity at least `capacity` bytes, charged before the allocation.
    async fn reserve(&mut self, capacity: usize) -> Result<(), Problem> {
        self.charge.cover(cost(capacity)).await?;
        let more = capacity.saturating_sub(self.bytes.len());
        self.bytes.reserve_exact(more);
        Ok(())
    }

    /// Whether nothing has been appended yet.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// The bytes and their charge: hold the charge until the bytes and every copy made of
    /// them are dropped.
    pub fn into_parts(self) -> (bytes::Bytes, Charge) {
        (self.bytes.into(), self.charge)
    }

    /// `data`, all of a body that arrived in one piece, kept as it is instead of copied into
    /// this (empty) buffer: the limit holds as for [`Buffer::extend`], and the charge covers
    /// `data` as it would cover a buffer of its length.
    pub async fn whole(self, data: bytes::Bytes) -> Result<(bytes::Bytes, Charge), Problem> {
        if data.len() > self.room() {
            return Err(Problem::too_large(self.limit as u64));
        }
        self.charge.cover(cost(data.len())).await?;
        Ok((data, self.charge))
    }
}

/// The slices a [`Charged`] body is sent in.
const SLICE: usize = 64 * 1024;

/// A response body of buffered bytes that holds their charge until it is dropped. It is sent
/// in copies of [`SLICE`] bytes, so that what the connection still queues when the body ends
/// is its own (and small) and the buffer itself is freed with the charge.
pub struct Charged {
    bytes: bytes::Bytes,
    sent: usize,
    _charge: Charge,
}

impl Charged {
    /// `bytes` to send, holding `charge` until they are.
    pub fn new(bytes: bytes::Bytes, charge: Charge) -> Charged {
        Charged {
            bytes,
            sent: 0,
            _charge: charge,
        }
    }
}

impl hyper::body::Body for Charged {
    type Data = bytes::Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<hyper::body::Frame<bytes::Bytes>, Self::Error>>> {
        let this = &mut *self;
        let end = (this.sent + SLICE).min(this.bytes.len());
        let slice = &this.bytes[this.sent..end];
        if slice.is_empty() {
            return std::task::Poll::Ready(None);
        }
        let frame = hyper::body::Frame::data(bytes::Bytes::copy_from_slice(slice));
        this.sent = end;
        std::task::Poll::Ready(Some(Ok(frame)))
    }

    fn is_end_stream(&self) -> bool {
        self.sent == self.bytes.len()
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        hyper::body::SizeHint::with_exact((self.bytes.len() - self.sent) as u64)
    }
}

#[cfg(test)]
mod tests;
