//! Threads: running the pipeline's work on its own pool, and keeping the helpers awake between
//! passes while a loop of ticks runs inside [`Pipeline::enter`].

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::Passes;
use super::Pipeline;

/// How long a helper worker inside [`Pipeline::enter`] keeps looking for work before it backs
/// off to 100 µs sleeps: far longer than any gap inside a tick, far shorter than a pause for
/// output between ticks.
pub const STAY_AWAKE: Duration = Duration::from_millis(1);

impl<V: Passes> Pipeline<V> {
    /// Runs `f` on this pipeline's worker threads.
    pub fn install<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        self.pool.install(f)
    }

    /// Whether [`Pipeline::enter`] keeps the other workers awake (by default: with 2 or more
    /// threads and no more threads than cores). A caller running several pipelines at once
    /// on the same cores turns it off, so that waiting helpers do not take cores from the
    /// workers with work to do. Results are the same either way.
    pub fn set_keep_awake(&mut self, on: bool) {
        self.keep_awake = on && self.threads > 1;
    }

    /// Runs `f` with this pipeline on one of its own worker threads, where every `step` and
    /// `install` inside runs at once instead of handing its work to the pool and waiting for
    /// it: a loop of ticks inside one `enter` skips a hand-over and a wake-up per tick.
    ///
    /// With 2 or more threads (and no more threads than cores), the other workers also stay
    /// awake for the whole of `f`, stealing its pieces as they appear, instead of going back
    /// to sleep whenever a pass ends and being woken for the next: left to itself, a rayon
    /// worker sleeps after some 30 µs without work, and a 10k-agent tick has a dozen such
    /// gaps (a pass's tail, the checks between passes). A worker idle for longer than
    /// [`STAY_AWAKE`] (file output between ticks, say) backs off to short sleeps. Results
    /// are the same bits either way: which thread runs which piece never changes a result.
    /// Measurements: docs/benchmarks.md.
    pub fn enter<R: Send>(&mut self, f: impl FnOnce(&mut Pipeline<V>) -> R + Send) -> R {
        let pool = self.pool();
        let keep_awake = self.keep_awake;
        enter_pool(&pool, keep_awake, || f(self))
    }

    /// The pool the passes run on (shared, so a caller can hold it while it lends out the
    /// pipeline, as [`enter_pool`] does).
    pub fn pool(&self) -> Arc<rayon::ThreadPool> {
        Arc::clone(&self.pool)
    }

    /// Whether [`Pipeline::enter`] keeps the other workers awake.
    pub fn keeps_awake(&self) -> bool {
        self.keep_awake
    }
}

/// Runs `f` on worker 0 of `pool`, the other workers kept awake for the whole of `f` when
/// `keep_awake` (see [`Pipeline::enter`]); at once when already on one of its workers.
pub fn enter_pool<R: Send>(pool: &rayon::ThreadPool, keep_awake: bool, f: impl FnOnce() -> R + Send) -> R {
    if pool.current_thread_index().is_some() {
        return f(); // already on one of its workers: nothing to hand over
    }
    if !keep_awake {
        return pool.install(f);
    }
    /// Marks `f` finished however it ends, a panic included, so the helpers stop.
    struct Finished<'a>(&'a AtomicBool);
    impl Drop for Finished<'_> {
        fn drop(&mut self) {
            self.0.store(true, Ordering::Release);
        }
    }
    let job = Mutex::new(Some(f));
    let out = Mutex::new(None);
    let finished = AtomicBool::new(false);
    pool.broadcast(|ctx| {
        if ctx.index() == 0 {
            let _finished = Finished(&finished);
            let f = job.lock().expect("not poisoned").take().expect("worker 0 takes it once");
            *out.lock().expect("not poisoned") = Some(f());
            return;
        }
        let mut idle_since: Option<Instant> = None;
        while !finished.load(Ordering::Acquire) {
            if rayon::yield_now() == Some(rayon::Yield::Executed) {
                idle_since = None;
            } else if idle_since.get_or_insert_with(Instant::now).elapsed() < STAY_AWAKE {
                std::thread::yield_now();
            } else {
                std::thread::sleep(Duration::from_micros(100));
            }
        }
    });
    out.into_inner().expect("not poisoned").expect("worker 0 ran f")
}
