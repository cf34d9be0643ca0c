//! Connections spread evenly over a listener's serving threads. The threads share one listening
//! socket, and the kernel wakes every one of them for a new connection: the first awake takes it,
//! and a burst of connects (a client's pool opening, a load balancer's) can land mostly on one
//! thread. Each thread then serves its connections alone, so the loaded one queues requests while
//! the other idles. Measured (`docs/BENCHMARKS.md`): 32 keep-alive connections on two threads
//! split as unevenly as 4 / 29, and two connections posting 1 MiB bodies landed on one thread in
//! two runs of five, at half the rate.
//!
//! The rule: a thread accepts only while it serves no more connections than the least loaded
//! thread of its listener, and waits otherwise until a count changes. That is Envoy's
//! `exact_balance` (fewest connections first), kept on the accepting thread rather than handing
//! the socket across: no connection ever changes threads. Kernel `SO_REUSEPORT` sockets (nginx's
//! `reuseport`) were not chosen: they split by a hash of the peer's address, which leaves a few
//! long-lived connections (an ingress's pool) as uneven as before, and they let another process
//! of the same user bind the port unnoticed.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::Notify;

/// The live connections of each serving thread of one listener. A thread that is not accepting
/// (not started yet, stopped, or failed to start) has [`ABSENT`] added to its count, which puts it
/// above every serving thread's, so that it never holds the others back.
pub(crate) struct Balance {
    live: Box<[AtomicUsize]>,
    /// Each thread's wake-up, signalled when a change of count may let it accept.
    wake: Box<[Notify]>,
}

/// How far ahead of the least loaded thread a thread may be and still accept: by its own count
/// divided by this. A few long-lived connections (a pool) are spread exactly; many short ones
/// (a connection per request) do not make the threads take turns at every accept, which cost
/// a tenth of the rate when they did.
const SLACK: usize = 8;

/// Added to the count of a thread that is not accepting.
const ABSENT: usize = 1 << (usize::BITS - 1);

impl Balance {
    /// The seats of `threads` threads, one per thread, none of them accepting yet.
    pub(crate) fn seats(threads: usize) -> Vec<Seat> {
        let balance = Arc::new(Balance {
            live: (0..threads).map(|_| AtomicUsize::new(ABSENT)).collect(),
            wake: (0..threads).map(|_| Notify::new()).collect(),
        });
        (0..threads)
            .map(|me| Seat {
                balance: balance.clone(),
                me,
            })
            .collect()
    }

    /// Adds `n` to thread `me`'s count (subtracts it if not `up`) and wakes the threads the
    /// change may let accept. Whether a thread may accept depends on its own count and the
    /// least: a count that falls can only let its own thread accept, and one that rises can
    /// raise the least only if it was the least, so the others are woken only then (a change
    /// per connection, not a wake-up of every thread per connection).
    fn add(&self, me: usize, n: usize, up: bool) {
        if !up {
            self.live[me].fetch_sub(n, Ordering::Relaxed);
            self.wake[me].notify_waiters();
            return;
        }
        let was = self.live[me].fetch_add(n, Ordering::Relaxed);
        let others = self.live.iter().enumerate().filter(|&(i, _)| i != me);
        if others
            .clone()
            .all(|(_, c)| was <= c.load(Ordering::Relaxed))
        {
            for (i, _) in others {
                self.wake[i].notify_waiters();
            }
        }
    }
}

/// One thread's place in its listener's [`Balance`].
#[derive(Clone)]
pub(crate) struct Seat {
    balance: Arc<Balance>,
    me: usize,
}

impl Seat {
    /// Takes the seat while the returned guard lives: the thread accepts from now on.
    pub(crate) fn join(self) -> Accepting {
        self.balance.add(self.me, ABSENT, false);
        Accepting(self)
    }
}

/// A thread accepting on its [`Seat`]; dropped when its accept loop ends (or unwinds).
pub(crate) struct Accepting(Seat);

impl Accepting {
    /// Whether this thread may accept: it serves no more connections than any other accepting
    /// thread, give or take an eighth of its own ([`SLACK`]).
    pub(crate) fn is_least(&self) -> bool {
        let live = &self.0.balance.live;
        let mine = live[self.0.me].load(Ordering::Relaxed);
        let least = live.iter().map(|n| n.load(Ordering::Relaxed)).min();
        mine <= least.unwrap_or(0).saturating_add(mine / SLACK)
    }

    /// Returns once this thread may accept: when it is among the least loaded.
    pub(crate) async fn turn(&self) {
        loop {
            let changed = self.0.balance.wake[self.0.me].notified();
            let mut changed = std::pin::pin!(changed);
            // Registered before the test, so that a change between the two is not missed.
            changed.as_mut().enable();
            if self.is_least() {
                return;
            }
            changed.await;
        }
    }

    /// Counts a connection accepted on this thread until the returned guard is dropped.
    pub(crate) fn opened(&self) -> Counted {
        self.0.balance.add(self.0.me, 1, true);
        Counted(self.0.clone())
    }
}

impl Drop for Accepting {
    fn drop(&mut self) {
        self.0.balance.add(self.0.me, ABSENT, true);
    }
}

/// A connection counted on its thread while it lives.
pub(crate) struct Counted(Seat);

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.balance.add(self.0.me, 1, false);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::future::Future;
    use std::task::{Context, Poll, Waker};

    /// Whether `turn` is ready at once.
    fn ready(seat: &Accepting) -> bool {
        let turn = std::pin::pin!(seat.turn());
        let mut cx = Context::from_waker(Waker::noop());
        turn.poll(&mut cx).is_ready()
    }

    fn joined(threads: usize) -> Vec<Accepting> {
        Balance::seats(threads)
            .into_iter()
            .map(Seat::join)
            .collect()
    }

    #[test]
    fn only_the_least_loaded_threads_may_accept() {
        let seats = joined(3);
        assert!(seats.iter().all(ready), "no connection yet: every thread");
        let a = seats[0].opened();
        assert!(!ready(&seats[0]) && ready(&seats[1]) && ready(&seats[2]));
        let b = seats[1].opened();
        assert!(!ready(&seats[0]) && !ready(&seats[1]) && ready(&seats[2]));
        let c = seats[2].opened();
        assert!(seats.iter().all(ready), "one each: every thread");
        drop((b, c));
        assert!(!ready(&seats[0]) && ready(&seats[1]) && ready(&seats[2]));
        drop(a);
        assert!(seats.iter().all(ready));
    }

    #[test]
    fn a_thread_may_lead_by_an_eighth_of_its_own_connections() {
        let seats = joined(2);
        let mut held: Vec<Counted> = (0..16).map(|_| seats[1].opened()).collect();
        held.extend((0..17).map(|_| seats[0].opened()));
        assert!(ready(&seats[0]), "17 against 16: within 17 / 8");
        held.push(seats[0].opened());
        assert!(ready(&seats[0]), "18 against 16: within 18 / 8");
        held.push(seats[0].opened());
        assert!(!ready(&seats[0]), "19 against 16: beyond 19 / 8");
        assert!(ready(&seats[1]));
    }

    #[test]
    fn a_thread_that_is_not_accepting_holds_no_other_back() {
        let mut seats = Balance::seats(3).into_iter();
        let (first, second) = (seats.next().unwrap().join(), seats.next().unwrap());
        // The third never started; the second has not started yet.
        let held = first.opened();
        assert!(ready(&first), "alone: it accepts whatever it serves");
        let second = second.join();
        assert!(!ready(&first) && ready(&second));
        let other = second.opened();
        assert!(ready(&first));
        drop(second);
        let more = first.opened();
        assert!(
            ready(&first),
            "the second stopped: the first accepts alone again"
        );
        drop((held, other, more));
    }

    /// Two joined threads, the first holding one connection and waiting for its turn (checked
    /// to wait): its wait, its connection and the second thread.
    async fn first_waiting() -> (tokio::task::JoinHandle<()>, Counted, Accepting) {
        let mut seats = joined(2).into_iter();
        let (first, second) = (seats.next().unwrap(), seats.next().unwrap());
        let held = first.opened();
        let waiting = tokio::spawn(async move { first.turn().await });
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished(), "thread 0 serves more: it waits");
        (waiting, held, second)
    }

    /// `waiting` ends within 5 s.
    async fn woken(waiting: tokio::task::JoinHandle<()>) {
        tokio::time::timeout(std::time::Duration::from_secs(5), waiting)
            .await
            .expect("woken")
            .expect("no panic");
    }

    #[tokio::test]
    async fn a_waiting_thread_is_woken_when_it_becomes_the_least_loaded() {
        let (waiting, held, second) = first_waiting().await;
        // The other thread taking a connection evens the counts.
        let other = second.opened();
        woken(waiting).await;
        drop((held, other));
    }

    #[tokio::test]
    async fn a_waiting_thread_is_woken_when_one_of_its_own_connections_ends() {
        let (waiting, held, second) = first_waiting().await;
        drop(held);
        woken(waiting).await;
        drop(second);
    }

    #[test]
    fn turn_is_pending_rather_than_ready_for_a_loaded_thread() {
        let seats = joined(2);
        let _held = seats[0].opened();
        let turn = std::pin::pin!(seats[0].turn());
        let mut cx = Context::from_waker(Waker::noop());
        assert!(matches!(turn.poll(&mut cx), Poll::Pending));
    }
}
