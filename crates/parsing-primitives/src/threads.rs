//! A second thread where one can start, the caller's thread where none can.
//!
//! Large reads and writes split their work over two threads (M3D's inflater beside its
//! parser, UNIGINE's spatial trees beside the geometry). Some targets start no thread
//! at all (`wasm32-unknown-unknown`: a browser page): there, and wherever the system
//! refuses a thread, the same work runs on the caller's thread and gives the same
//! result. [`one_thread`] forces that path on native targets, so tests can prove both
//! paths agree.

use std::cell::Cell;
use std::thread::{Builder, Scope, ScopedJoinHandle};

thread_local! {
    /// Set by [`one_thread`]: threads started from this thread are refused.
    static REFUSED: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` as if no thread could start (as on `wasm32-unknown-unknown`): every
/// [`spawn_scoped`] and [`beside`] called from this thread inside `f` runs its work on
/// this thread instead.
///
/// ```
/// use parsing_primitives::threads::{beside, one_thread};
/// let here = std::thread::current().id();
/// let (_, there) = one_thread(|| beside(true, || (), || std::thread::current().id()));
/// assert_eq!(there, here);
/// ```
pub fn one_thread<R>(f: impl FnOnce() -> R) -> R {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            REFUSED.with(|r| r.set(self.0));
        }
    }
    let _restore = Restore(REFUSED.with(|r| r.replace(true)));
    f()
}

/// True when threads may be started from this thread (not inside [`one_thread`]); the
/// system may still refuse one.
pub fn may_spawn() -> bool {
    !REFUSED.with(Cell::get)
}

/// Starts `f` on a new scoped thread; `None` when no thread can start (the target has
/// none, the system refused, or inside [`one_thread`]): `f` is dropped unrun and the
/// caller does the work itself.
pub fn spawn_scoped<'scope, 'env, T: Send + 'scope>(
    scope: &'scope Scope<'scope, 'env>,
    f: impl FnOnce() -> T + Send + 'scope,
) -> Option<ScopedJoinHandle<'scope, T>> {
    if !may_spawn() {
        return None;
    }
    Builder::new().spawn_scoped(scope, f).ok()
}

/// Runs `a` here and `b` on a second thread when `threaded`, else one after the other
/// (also when no thread can start); the results are the same either way.
///
/// ```
/// use parsing_primitives::threads::beside;
/// let data = [1u32, 2, 3, 4];
/// let (a, b) = beside(true, || data[..2].iter().sum::<u32>(), || data[2..].iter().sum::<u32>());
/// assert_eq!((a, b), (3, 7));
/// ```
pub fn beside<A, B: Send>(
    threaded: bool,
    a: impl FnOnce() -> A,
    b: impl FnOnce() -> B + Send,
) -> (A, B) {
    if !threaded || !may_spawn() {
        let a = a();
        return (a, b());
    }
    // `b` waits here until the thread takes it; if no thread can be started it is
    // still here, and runs inline.
    let slot = std::sync::Mutex::new(Some(b));
    let take = || slot.lock().ok().and_then(|mut s| s.take());
    std::thread::scope(|scope| {
        let spawned = spawn_scoped(scope, || take().map(|b| b()));
        let a = a();
        let done = match spawned {
            // `b` does not panic on any input; if it did, the panic carries on here.
            Some(h) => h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)),
            None => None,
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
    use super::{beside, one_thread, spawn_scoped};

    #[test]
    fn both_halves_run_on_one_thread_or_two() {
        let data = [1u32, 2, 3, 4];
        let here = std::thread::current().id();
        for (threaded, refused) in [(false, false), (true, false), (true, true)] {
            let run = || {
                beside(
                    threaded,
                    || data[..2].iter().sum::<u32>(),
                    || (data[2..].iter().sum::<u32>(), std::thread::current().id()),
                )
            };
            let (a, (b, there)) = if refused { one_thread(run) } else { run() };
            assert_eq!((a, b), (3, 7));
            assert_eq!(there == here, !threaded || refused, "{threaded} {refused}");
        }
    }

    #[test]
    fn one_thread_refuses_spawns_and_restores_after() {
        std::thread::scope(|s| {
            assert!(one_thread(|| spawn_scoped(s, || 1).is_none()));
            // Nested: still refused inside, and restored once the outer call ends.
            one_thread(|| one_thread(|| ()));
            let h = spawn_scoped(s, || 2);
            assert_eq!(h.map(|h| h.join().ok()), Some(Some(2)));
        });
    }
}
