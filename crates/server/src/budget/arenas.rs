//! glibc's malloc arenas, capped at [`ARENAS`] unless `MALLOC_ARENA_MAX` is set.
//!
//! glibc gives each thread that allocates under contention an arena of its own (up to eight
//! per core), and what a blocking evaluation frees stays in that thread's arena, unused by the
//! others. Four 8 MiB hostile bodies at once then held 133–150 MiB above idle where the budget
//! promises 96 MiB; with two arenas, 83–86 MiB, at no throughput cost measured
//! (docs/BENCHMARKS.md, "One evaluation within twice its body"). The shipped image sets
//! `MALLOC_ARENA_MAX=2`; this does the same for a binary started any other way (systemd, a
//! shell), so the budget holds wherever the binary runs.

/// Arenas when the environment does not say otherwise.
pub const ARENAS: i32 = 2;

/// What [`cap`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arenas {
    /// The arenas are capped at this many.
    Capped(i32),
    /// `MALLOC_ARENA_MAX` is set: glibc reads it itself, and it is left as it is.
    FromEnvironment,
    /// glibc refused the setting (it answers 0).
    Refused,
    /// Not glibc: nothing to cap.
    NotGlibc,
}

/// Caps glibc's malloc arenas at [`ARENAS`] unless `MALLOC_ARENA_MAX` is set. Called once,
/// first thing in `main`, before any other thread exists.
pub fn cap() -> Arenas {
    if std::env::var_os("MALLOC_ARENA_MAX").is_some() {
        return Arenas::FromEnvironment;
    }
    set_arena_max(ARENAS)
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
fn set_arena_max(arenas: i32) -> Arenas {
    // SAFETY: `mallopt` takes two integers and touches only malloc's own parameters, under
    // malloc's lock; `M_ARENA_MAX` is a parameter every glibc since 2.10 knows. The gain is
    // measured above; `tests::capping_keeps_allocations_working` runs allocations on many
    // threads after it, and tests/tests/e2e/memory.rs measures the peak without the variable.
    let accepted = unsafe { libc::mallopt(libc::M_ARENA_MAX, arenas) };
    if accepted == 1 {
        Arenas::Capped(arenas)
    } else {
        Arenas::Refused
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn set_arena_max(_arenas: i32) -> Arenas {
    Arenas::NotGlibc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capping_keeps_allocations_working() {
        let expected = if cfg!(all(target_os = "linux", target_env = "gnu")) {
            Arenas::Capped(2)
        } else {
            Arenas::NotGlibc
        };
        assert_eq!(set_arena_max(2), expected);
        // Eight threads allocate and free at once, sharing the two arenas.
        let sums: Vec<usize> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..8)
                .map(|t| {
                    s.spawn(move || {
                        (0..1000)
                            .map(|i| vec![t as u8; 1 + (i * 37) % 4096].len())
                            .sum::<usize>()
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let one: usize = (0..1000).map(|i| 1 + (i * 37) % 4096).sum();
        assert_eq!(sums, vec![one; 8]);
    }
}
