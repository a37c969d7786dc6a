//! How far a script may grow its data, nest its calls and take the machine's memory, from the
//! generic dictionary's `commandline` keys, and the errors that name the key when it does.
//!
//! Rhai bounds a string, an array or a map as it checks each value it makes; it does not check
//! the map an index assignment (`m[k] = v`) adds a key to, so a memory guard on the whole
//! process, polled between operations, catches what the size checks miss before the
//! allocator aborts. Rhai's checks walk an array each time one is pushed to, so a runaway
//! push loop costs the square of its length: it reaches the default 100 000 items in about
//! a minute of a release build (a doubling loop in a fraction of a second), its memory
//! bounded all along.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use rhai::{Engine, EvalAltResult, ParseErrorType};

use crate::config::Dict;

/// What a script may grow and nest.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Limits {
    string: usize,
    array: usize,
    map: usize,
    calls: usize,
    /// 0: no limit.
    operations: u64,
    /// Resident bytes of the whole process.
    memory: u64,
}

/// The memory limit the progress callback reads: set at each input, read between operations.
#[derive(Debug, Clone)]
pub(super) struct MemoryGuard {
    limit: Arc<AtomicU64>,
    start: Instant,
    /// Milliseconds after `start` before which the guard does not look again.
    next_look: Arc<AtomicU64>,
}

impl Default for MemoryGuard {
    fn default() -> Self {
        MemoryGuard {
            limit: Arc::default(),
            start: Instant::now(),
            next_look: Arc::default(),
        }
    }
}

/// The guard reads the clock every this many operations (a few nanoseconds each time) ...
const CLOCK_POLL: u64 = 64;
/// ... and the process's memory, a small file of /proc, at most this often: a tight loop
/// pays well under one percent, and even 64 operations that each copy a 10 MB string add
/// little more than a gigabyte between two looks.
const MEMORY_POLL_MS: u64 = 5;

impl MemoryGuard {
    /// Why the script must stop: the process holds more than the limit. Looked at only every
    /// few milliseconds; `count` is Rhai's operation count.
    pub(super) fn over(&self, count: u64) -> Option<String> {
        if !count.is_multiple_of(CLOCK_POLL) {
            return None;
        }
        let limit = self.limit.load(Ordering::Relaxed);
        let now = u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX);
        if limit == 0 || now < self.next_look.load(Ordering::Relaxed) {
            return None;
        }
        self.next_look
            .store(now.saturating_add(MEMORY_POLL_MS), Ordering::Relaxed);
        let held = resident_bytes()?;
        (held > limit).then(|| {
            format!(
                "Script limit: hammer held {} MiB while the script ran, past {} MiB, the limit \
                 commandline:max_script_memory sets (0 is half of this machine's memory; giset \
                 commandline max_script_memory <MiB> changes it for the next input or script)",
                held >> 20,
                limit >> 20
            )
        })
    }
}

impl Limits {
    pub(super) fn read(g: &Dict) -> Self {
        let size = |key: &str| usize::try_from(g.get_u64(key)).unwrap_or(usize::MAX);
        let memory = match g.get_u64("max_script_memory") {
            0 => machine_bytes().map_or(0, |total| total / 2),
            mib => mib.saturating_mul(1 << 20),
        };
        Limits {
            string: size("max_string_size"),
            array: size("max_array_size"),
            map: size("max_map_size"),
            calls: size("max_call_levels"),
            operations: g.get_u64("max_operations"),
            memory,
        }
    }

    pub(super) fn apply(&self, engine: &mut Engine, guard: &MemoryGuard) {
        engine
            .set_max_string_size(self.string)
            .set_max_array_size(self.array)
            .set_max_map_size(self.map)
            .set_max_call_levels(self.calls)
            .set_max_operations(self.operations);
        guard.limit.store(self.memory, Ordering::Relaxed);
    }

    /// A literal longer than a limit, found as the input was read.
    pub(super) fn explain_parse(&self, e: &ParseErrorType) -> Option<String> {
        let ParseErrorType::LiteralTooLarge(what, _) = e else {
            return None;
        };
        let (limit, unit, key) = if what.contains("string") {
            (self.string, "bytes", "max_string_size")
        } else if what.contains("array") {
            (self.array, "items", "max_array_size")
        } else {
            (self.map, "entries", "max_map_size")
        };
        Some(format!(
            "Script limit: a literal holds more than {limit} {unit}, the limit \
             commandline:{key} sets (giset commandline {key} <n> raises it for the next input \
             or script)"
        ))
    }

    /// The limit an error of Rhai's met, in words with the key that raises it.
    pub(super) fn explain(&self, e: &EvalAltResult) -> Option<String> {
        let (what, limit, unit, key) = match e {
            EvalAltResult::ErrorDataTooLarge(what, _) if what.contains("string") => (
                "a string (or the strings within one array or map) grew past",
                self.string,
                "bytes",
                "max_string_size",
            ),
            EvalAltResult::ErrorDataTooLarge(what, _) if what.contains("array") => (
                "an array (with the arrays and maps within it) grew past",
                self.array,
                "items",
                "max_array_size",
            ),
            EvalAltResult::ErrorDataTooLarge(..) => (
                "an object map (with the maps within it) grew past",
                self.map,
                "entries",
                "max_map_size",
            ),
            EvalAltResult::ErrorStackOverflow(_) => (
                "functions called one inside another went deeper than",
                self.calls,
                "levels",
                "max_call_levels",
            ),
            EvalAltResult::ErrorTooManyOperations(_) => (
                "the script ran more than",
                usize::try_from(self.operations).unwrap_or(usize::MAX),
                "operations",
                "max_operations",
            ),
            _ => return None,
        };
        Some(format!(
            "Script limit: {what} {limit} {unit}, the limit commandline:{key} sets \
             (giset commandline {key} <n> raises it for the next input or script)"
        ))
    }
}

/// The process's resident memory (Linux's /proc/self/status), `None` where it cannot be read.
fn resident_bytes() -> Option<u64> {
    kib_field(
        &std::fs::read_to_string("/proc/self/status").ok()?,
        "VmRSS:",
    )
}

/// The machine's memory (Linux's /proc/meminfo), `None` where it cannot be read: then only
/// an explicit `max_script_memory` guards.
fn machine_bytes() -> Option<u64> {
    kib_field(&std::fs::read_to_string("/proc/meminfo").ok()?, "MemTotal:")
}

/// `name   1234 kB` of a /proc file, in bytes.
fn kib_field(text: &str, name: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(name))?;
    let kib: u64 = line[name.len()..].split_whitespace().next()?.parse().ok()?;
    kib.checked_mul(1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_fields_read_in_bytes() {
        let status = "Name:\thammer\nVmPeak:\t  9000 kB\nVmRSS:\t    1740 kB\n";
        assert_eq!(kib_field(status, "VmRSS:"), Some(1740 * 1024));
        assert_eq!(kib_field(status, "VmSwap:"), None);
        assert_eq!(kib_field("VmRSS: lots kB", "VmRSS:"), None);
        assert_eq!(kib_field("VmRSS: 99999999999999999999 kB", "VmRSS:"), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn this_process_and_machine_have_memory() {
        let held = resident_bytes().unwrap();
        let total = machine_bytes().unwrap();
        assert!(held > 0 && held < total, "{held} of {total}");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_guard_looks_every_few_milliseconds() {
        let guard = MemoryGuard::default();
        guard.limit.store(1, Ordering::Relaxed);
        assert_eq!(guard.over(CLOCK_POLL + 1), None);
        let why = guard.over(CLOCK_POLL).unwrap();
        assert!(why.contains("commandline:max_script_memory"), "{why}");
        // Not again until a few milliseconds have passed.
        assert_eq!(guard.over(2 * CLOCK_POLL), None);
        std::thread::sleep(std::time::Duration::from_millis(2 * MEMORY_POLL_MS));
        assert!(guard.over(3 * CLOCK_POLL).is_some());
        guard.limit.store(0, Ordering::Relaxed);
        std::thread::sleep(std::time::Duration::from_millis(2 * MEMORY_POLL_MS));
        assert_eq!(guard.over(4 * CLOCK_POLL), None);
        guard.limit.store(u64::MAX, Ordering::Relaxed);
        assert_eq!(guard.over(5 * CLOCK_POLL), None);
    }

    #[test]
    fn defaults_read_from_the_dictionary() {
        let s = crate::config::Settings::defaults();
        let l = Limits::read(&s.generic);
        assert_eq!(
            (l.string, l.array, l.map, l.calls, l.operations),
            (10_000_000, 100_000, 100_000, 64, 0)
        );
        if let Some(total) = machine_bytes() {
            assert_eq!(l.memory, total / 2);
        }
    }
}
