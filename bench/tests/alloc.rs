//! No heap allocation per tick after warm-up: a counting global allocator around the system
//! one, and ticks of the standard crowd counted after 20 warm-up ticks. This file is its own
//! test binary (one test), so nothing else allocates while it counts.
//!
//! The grid backend allocates nothing at all once warm. The k-d backend allocates only inside
//! kiddo's tree construction (`ImmutableKdTree::new_from_slice` has no rebuild-in-place), a
//! fixed handful of O(N) buffers per tree built (on sensing ticks), never per agent.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use throng_bench::crowd;
use throng_engine::IndexKind;

struct Counting;

static COUNTING: AtomicBool = AtomicBool::new(false);
static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Allocations during `ticks` ticks of the crowd at `agents`, after 20 warm-up ticks.
fn allocations_per_tick(index: IndexKind, agents: u64, threads: usize, ticks: u64) -> f64 {
    let mut sim = crowd(agents, threads, index);
    for _ in 0..10 {
        sim.step().expect("finite state");
    }
    ALLOCATIONS.store(0, Ordering::SeqCst);
    COUNTING.store(true, Ordering::SeqCst);
    for _ in 0..ticks {
        sim.step().expect("finite state");
    }
    COUNTING.store(false, Ordering::SeqCst);
    ALLOCATIONS.load(Ordering::SeqCst) as f64 / ticks as f64
}

#[test]
fn no_allocation_per_tick_after_warm_up() {
    for threads in [1, 2] {
        let grid = allocations_per_tick(IndexKind::Grid, 10_000, threads, 20);
        assert_eq!(grid, 0.0, "grid backend, {threads} threads: allocations per tick");
        let kd = allocations_per_tick(IndexKind::Kd, 10_000, threads, 20);
        // kiddo's tree construction: a few buffers per tick, independent of the agent count.
        let kd_big = allocations_per_tick(IndexKind::Kd, 40_000, threads, 5);
        println!("{threads} threads: grid {grid}, kd {kd} (10k) / {kd_big} (40k) allocations per tick");
        assert!(kd <= 64.0, "kd backend, {threads} threads: {kd} allocations per tick");
        assert!(
            kd_big <= kd * 1.5 + 4.0,
            "kd allocations grow with the agent count: {kd} at 10k, {kd_big} at 40k"
        );
    }
}
