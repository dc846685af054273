//! Two independent halves of a large read, write or build on two threads.

/// Meshes of this many triangles or more split their work over two threads (ms14
/// tree blocks, spatial tree builds); below it, a thread costs more than it saves.
pub(crate) const THREADED_TRIANGLES: usize = 1 << 16;

/// Runs `a` here and `b` on a second thread when `threaded`, else one after the other.
pub(crate) fn beside<A, B: Send>(
    threaded: bool,
    a: impl FnOnce() -> A,
    b: impl FnOnce() -> B + Send,
) -> (A, B) {
    if !threaded {
        let a = a();
        return (a, b());
    }
    std::thread::scope(|scope| {
        let b = scope.spawn(b);
        let a = a();
        // `b` does not panic on any input; if it did, the panic carries on here.
        let b = b.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
        (a, b)
    })
}
