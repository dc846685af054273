//! Two independent halves of a large read, write or build on two threads.

/// Meshes of this many triangles or more split their work over two threads (ms14
/// tree blocks, spatial tree builds); smaller ones stay on the caller's thread.
pub(crate) const THREADED_TRIANGLES: usize = 1 << 16;

/// Runs `a` here and `b` on a second thread when `threaded`, else one after the other
/// (also when the system cannot start a thread).
pub(crate) fn beside<A, B: Send>(
    threaded: bool,
    a: impl FnOnce() -> A,
    b: impl FnOnce() -> B + Send,
) -> (A, B) {
    if !threaded {
        let a = a();
        return (a, b());
    }
    // `b` waits here until the thread takes it; if no thread can be started it is
    // still here, and runs inline.
    let slot = std::sync::Mutex::new(Some(b));
    let take = || slot.lock().ok().and_then(|mut s| s.take());
    std::thread::scope(|scope| {
        let spawned = std::thread::Builder::new().spawn_scoped(scope, || take().map(|b| b()));
        let a = a();
        let done = match spawned {
            // `b` does not panic on any input; if it did, the panic carries on here.
            Ok(h) => h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)),
            Err(_) => None,
        };
        match done.or_else(|| take().map(|b| b())) {
            Some(b) => (a, b),
            // A started thread always finds `b` (nothing else takes it first, and
            // nothing panics while holding the lock), and an unstarted one leaves it.
            None => unreachable!("beside: the second half neither ran nor waited"),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::beside;

    #[test]
    fn both_halves_run_on_one_thread_or_two() {
        let data = [1u32, 2, 3, 4];
        for threaded in [false, true] {
            let here = std::thread::current().id();
            let (a, (b, there)) = beside(
                threaded,
                || data[..2].iter().sum::<u32>(),
                || (data[2..].iter().sum::<u32>(), std::thread::current().id()),
            );
            assert_eq!((a, b), (3, 7));
            assert_eq!(there == here, !threaded);
        }
    }
}
