//! Loading a scenario costs memory in proportion to its file: a file listing a million points
//! peaks at no more than 10 times its own size (the file's text included). A counting global
//! allocator tracks the live bytes; this file is its own test binary (one test), so nothing
//! else allocates while it counts.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use throng_engine::Scenario;

struct Peak;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(bytes: usize) {
    let live = LIVE.fetch_add(bytes, Ordering::Relaxed) + bytes;
    PEAK.fetch_max(live, Ordering::Relaxed);
}

unsafe impl GlobalAlloc for Peak {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // Counted as the new block allocated before the old one is freed, as a move does.
        grew(new_size);
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Peak = Peak;

/// A scenario listing `n` spawn points, written as compactly as TOML allows (about 8 bytes a
/// point), the worst case for memory per byte of file.
fn listed(n: usize, inside_list: &str) -> String {
    let points: Vec<String> = (0..n).map(|i| format!("[{},{}]", i % 100, (i / 100) % 100)).collect();
    format!(
        "version = 1\nname = \"listed\"\nseed = 1\ndt = 0.1\nticks = 1\n\n[bounds]\nkind = \"open\"\n\
         min = [-200, -200]\nmax = [200, 200]\n\n[[groups]]\nname = \"g\"\n\
         spawn = {{ kind = \"points\", points = [{inside_list}\n{}] }}\n\
         max_speed = 1.0\nmax_force = 1.0\nradius = 0.3\n\n[[groups.behaviours]]\nkind = \"wander\"\n",
        points.join(",")
    )
}

/// Peak live bytes while `text` is parsed, counting the text itself.
fn peak_parsing(text: &str) -> (usize, Scenario) {
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let scenario = Scenario::parse(text, "listed.toml").expect("the scenario is valid");
    (PEAK.load(Ordering::Relaxed) - before + text.len(), scenario)
}

#[test]
fn loading_a_million_listed_points_costs_at_most_ten_times_the_file() {
    let n = 1_000_000;
    let text = listed(n, "");
    let (peak, scenario) = peak_parsing(&text);
    assert_eq!(scenario.agent_count(), n as u64);
    let ratio = peak as f64 / text.len() as f64;
    eprintln!("{} bytes of file, peak {} bytes while loading: {ratio:.2}x", text.len(), peak);
    assert!(ratio <= 10.0, "loading peaked at {ratio:.2}x the file's size ({peak} bytes)");
    drop(scenario);

    // A comment inside the list sends it through the TOML parser's tree instead: the same
    // points, at many times the memory (what every list cost before).
    let commented = listed(n, "# the points\n");
    let (tree_peak, tree_scenario) = peak_parsing(&commented);
    eprintln!(
        "through the TOML tree: peak {tree_peak} bytes, {:.1}x",
        tree_peak as f64 / commented.len() as f64
    );
    assert_eq!(tree_scenario.agent_count(), n as u64);
    assert!(tree_peak > 3 * peak, "the fast path saves most of the memory ({tree_peak} vs {peak})");
}
