//! A deterministic, bounded mutation loop over the small fixtures: truncations at regular
//! steps, bit flips, size fields overwritten with huge values, oversized varints and spliced
//! byte ranges. Every mutant must decode to `Ok` or `Err` quickly, never panic.
//!
//! Set `NCU_REP_MUTANTS=<n>` to run `n` mutants per fixture instead of the default (for a longer
//! soak run, e.g. `NCU_REP_MUTANTS=2000000 cargo test --workspace mutation_loop -- --nocapture`;
//! see docs/reliability.md).

use std::time::{Duration, Instant};

use warpsight_ncu_rep::{LaunchStream, blocks, decode};

use super::support::report_bytes;

/// SplitMix64: a tiny deterministic generator, so every run tries the same mutants.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Offsets of the u32 size fields of the container: FileHeader, every BlockHeader and every
/// ProfileResult.
fn size_fields(bytes: &[u8]) -> Vec<usize> {
    let mut v = vec![4];
    for b in blocks(bytes).unwrap() {
        let b = b.unwrap();
        v.push(b.offset);
        for r in b.results() {
            v.push(r.unwrap().offset - 4);
        }
    }
    v
}

/// Runs `count` mutants of one fixture and returns (ok, err) counts.
fn mutate(name: &str, count: usize, seed: u64) -> (usize, usize) {
    let original = report_bytes(name);
    let sizes = size_fields(&original);
    let len = original.len();
    let step = (len / (count / 5).max(1)).max(1);
    let mut rng = Rng(seed);
    let (mut ok, mut err) = (0, 0);
    let mut slowest = Duration::ZERO;
    let start = Instant::now();
    let mut buf = Vec::with_capacity(len + 64);
    for i in 0..count {
        buf.clear();
        match i % 5 {
            // Truncation at every `step` bytes.
            0 => buf.extend_from_slice(&original[..(i / 5 * step) % len]),
            // One to four bit flips.
            1 => {
                buf.extend_from_slice(&original);
                for _ in 0..=rng.below(4) {
                    let p = rng.below(len);
                    buf[p] ^= 1 << rng.below(8);
                }
            }
            // A container size field overwritten with a huge or off-by-some value.
            2 => {
                buf.extend_from_slice(&original);
                let p = sizes[rng.below(sizes.len())];
                let old = u32::from_le_bytes([buf[p], buf[p + 1], buf[p + 2], buf[p + 3]]);
                let new = match rng.below(5) {
                    0 => u32::MAX,
                    1 => 0x7FFF_FFFF,
                    2 => len as u32 + 1,
                    3 => old.wrapping_add(1 + rng.below(16) as u32),
                    _ => old.saturating_sub(1 + rng.below(16) as u32),
                };
                buf[p..p + 4].copy_from_slice(&new.to_le_bytes());
            }
            // A varint-sized run of 0xFF / a large varint written over protobuf bytes.
            3 => {
                buf.extend_from_slice(&original);
                let p = rng.below(len);
                let patch: &[u8] = match rng.below(3) {
                    0 => &[0xFF; 10],
                    1 => &[0xFF, 0xFF, 0xFF, 0xFF, 0x0F],
                    _ => &[
                        0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01,
                    ],
                };
                let end = (p + patch.len()).min(len);
                buf[p..end].copy_from_slice(&patch[..end - p]);
            }
            // A byte range deleted or duplicated.
            _ => {
                let a = rng.below(len);
                let b = (a + 1 + rng.below(64)).min(len);
                if rng.below(2) == 0 {
                    buf.extend_from_slice(&original[..a]);
                    buf.extend_from_slice(&original[b..]);
                } else {
                    buf.extend_from_slice(&original[..b]);
                    buf.extend_from_slice(&original[a..]);
                }
            }
        }
        let t = Instant::now();
        match decode(&buf) {
            Ok(_) => ok += 1,
            Err(e) => {
                assert!(e.offset() <= buf.len(), "{name} mutant {i}: {e}");
                err += 1;
            }
        }
        // The streaming path must be just as safe.
        if i % 16 == 0
            && let Ok(stream) = LaunchStream::new(&buf)
        {
            for item in stream {
                if item.is_err() {
                    break;
                }
            }
        }
        slowest = slowest.max(t.elapsed());
    }
    let total = start.elapsed();
    eprintln!(
        "{name}: {count} mutants in {:.2?} ({:.0} exec/s), {ok} ok, {err} err, slowest {slowest:.2?}",
        total,
        count as f64 / total.as_secs_f64()
    );
    assert!(
        slowest < Duration::from_secs(2),
        "{name}: a mutant took {slowest:?}"
    );
    (ok, err)
}

/// The number of mutants per fixture: `NCU_REP_MUTANTS` or `default`.
fn mutants(default: usize) -> usize {
    std::env::var("NCU_REP_MUTANTS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

#[test]
fn mutation_loop_copy_basic() {
    let (ok, err) = mutate("copy_basic", mutants(20_000), 1);
    assert!(err > 0 && ok > 0);
}

#[test]
fn mutation_loop_regs_64_65() {
    let (_, err) = mutate("regs_64_65", mutants(20_000) / 20, 2);
    assert!(err > 0);
}
