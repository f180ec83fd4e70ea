//! Inputs read ahead of the code that consumes them: the threads of a reading pool read the inputs
//! in parallel while the calling thread takes the results one at a time, in input order, with a
//! bound on the bytes read but not yet taken.
//!
//! `warpsight ingest` reads its inputs this way: the reports of a batch are decoded on every core
//! while the calling thread checks their columns and keeps or writes their tables in input order.
//!
//! The readers are the threads of a rayon pool of their own, each running one reader loop
//! ([`read_ahead`]). A reader hands the decoding of its input's launch blocks to its own pool, so
//! that while it waits for a block another reader took, it decodes blocks of the other readers'
//! inputs. Plain threads (the readers until 2026-11-29) handed that work to rayon's global pool
//! and then waited for it without working; with 2 cores the 71-report batch of the `cores`
//! benchmark took 0.274 s this way against 0.295 s with three plain readers (10 interleaved
//! rounds, medians; docs/performance.md, session 23).

use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

/// How [`read_ahead`] reads: the bytes each input holds while it is read and until it is taken,
/// the most such bytes at once, and the number of reading threads.
#[derive(Debug, Clone)]
pub struct ReadAheadConfig {
    /// Per input, the bytes its reading holds (its size on disk, say); 0 for an input whose
    /// reading holds next to nothing (one the consumer reads itself).
    pub sizes: Vec<u64>,
    /// The most bytes of inputs being read, or read and not yet taken. The next input to be
    /// taken is always read, so that one input larger than this is read alone.
    pub budget_bytes: u64,
    /// Reading threads ([`reading_threads`] for one per core); with 0 each input is read by
    /// [`InOrder::next`] on the calling thread.
    pub workers: usize,
}

/// Runs `consume` on the calling thread with the results of `read(index)` for every input of
/// `config.sizes`, handed on in input order by [`InOrder::next`] while `config.workers` threads
/// read the inputs that follow. Returns what `consume` returns; the inputs it did not take are
/// not read (those being read when it returns are finished and dropped).
///
/// A panic of `read` is resumed on the calling thread when its input is taken; a panic of
/// `consume` stops the readers and goes on unwinding.
pub fn read_ahead<T, R>(
    config: &ReadAheadConfig,
    read: impl Fn(usize) -> T + Sync,
    consume: impl FnOnce(&mut InOrder<'_, T>) -> R,
) -> R
where
    T: Send,
{
    let inputs = config.sizes.len();
    let shared = Shared {
        state: Mutex::new(State {
            slots: std::iter::repeat_with(|| None).take(inputs).collect(),
            next: 0,
            held: 0,
            stop: false,
        }),
        changed: Condvar::new(),
        claimed: AtomicUsize::new(0),
    };
    let workers = config.workers.min(inputs);
    // The readers' stacks are those of the plain reading threads of `batch::read_many`: a
    // hostile input nested deep is decoded on them.
    let pool = (workers > 0)
        .then(|| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(workers)
                .stack_size(crate::batch::READER_STACK_BYTES)
                .thread_name(|_| "warpsight-read".into())
                .build()
        })
        .transpose()
        .unwrap_or_else(|err| {
            // The inputs are then read by `InOrder::next` on the calling thread.
            tracing::debug!("the reading threads could not be started: {err}");
            None
        });
    let take_in_order = || {
        let mut in_order = InOrder {
            shared: &shared,
            config,
            read: &read,
        };
        consume(&mut in_order)
        // `in_order` is dropped here, even when `consume` unwinds: it stops the readers, which
        // the scope then waits for.
    };
    match pool {
        // Each thread of the pool runs one reader loop, a broadcast job that no other thread can
        // take: a reader that waits inside its input (for a block another thread decodes, or for
        // polars' own pool) may run other jobs of the pool meanwhile, and those are pieces of
        // the other inputs, never a whole reader loop nested inside its own.
        Some(pool) => pool.in_place_scope(|scope| {
            scope.spawn_broadcast(|_, _| shared.work(config, &read));
            take_in_order()
        }),
        None => take_in_order(),
    }
}

/// One reader per core (rayon's thread count, which `RAYON_NUM_THREADS` sets), or none when there
/// is one input: [`InOrder::next`] then reads it on the calling thread.
pub fn reading_threads(inputs: usize) -> usize {
    if inputs > 1 {
        rayon::current_num_threads()
    } else {
        0
    }
}

/// The results of [`read_ahead`]'s readers, taken in input order.
pub struct InOrder<'a, T> {
    shared: &'a Shared<T>,
    config: &'a ReadAheadConfig,
    read: &'a (dyn Fn(usize) -> T + Sync),
}

impl<T> Iterator for InOrder<'_, T> {
    type Item = (usize, T);

    /// The next input's index and result, waiting for it to be read (or reading it here when no
    /// reader has claimed it); `None` after the last input.
    fn next(&mut self) -> Option<(usize, T)> {
        let shared = self.shared;
        let mut state = shared.lock();
        let index = state.next;
        if index >= state.slots.len() {
            return None;
        }
        while state.slots[index].is_none() {
            // No reader has claimed it (no thread could be started, or none was asked for): read
            // it here.
            if shared.claim_if_unclaimed(index) {
                drop(state);
                let result = catch_unwind(AssertUnwindSafe(|| (self.read)(index)));
                state = shared.lock();
                state.slots[index] = Some(result);
                break;
            }
            state = shared
                .changed
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
        }
        let result = state.slots[index].take();
        state.next += 1;
        state.held = state
            .held
            .saturating_sub(self.config.sizes.get(index).copied().unwrap_or(0));
        shared.changed.notify_all();
        drop(state);
        match result {
            Some(Ok(value)) => Some((index, value)),
            Some(Err(payload)) => resume_unwind(payload),
            // Unreachable: the loop above ends only with the slot filled.
            None => None,
        }
    }
}

impl<T> Drop for InOrder<'_, T> {
    fn drop(&mut self) {
        let mut state = self.shared.lock();
        state.stop = true;
        // The results not taken are dropped now rather than when the scope ends.
        state.slots.iter_mut().for_each(|slot| *slot = None);
        self.shared.changed.notify_all();
    }
}

/// What the readers and the consumer share.
struct Shared<T> {
    state: Mutex<State<T>>,
    /// Signalled when a result is stored, taken, or the reading stops.
    changed: Condvar,
    /// The inputs claimed so far, in order: the next reader takes input `claimed`.
    claimed: AtomicUsize,
}

/// The results and the budget, under the lock.
struct State<T> {
    /// Each input's result, once read and until taken (`Err`: the reading panicked).
    slots: Vec<Option<std::thread::Result<T>>>,
    /// The next input to be taken.
    next: usize,
    /// The bytes of the inputs being read, or read and not yet taken.
    held: u64,
    /// Set when the consumer is done: the readers start no other input.
    stop: bool,
}

impl<T> Shared<T> {
    fn lock(&self) -> MutexGuard<'_, State<T>> {
        // A poisoned lock only means a panic while it was held; the state itself is whole (every
        // update under it is a single assignment).
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Claims `index` for the calling thread when no reader has claimed it yet.
    fn claim_if_unclaimed(&self, index: usize) -> bool {
        self.claimed
            .compare_exchange(index, index + 1, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    }

    /// A reader: claims the next input, waits until its bytes fit in the budget (or it is the
    /// next to be taken), reads it and stores the result; until every input is claimed or the
    /// consumer is done.
    fn work(&self, config: &ReadAheadConfig, read: &(impl Fn(usize) -> T + Sync))
    where
        T: Send,
    {
        loop {
            let index = self.claimed.fetch_add(1, Ordering::AcqRel);
            let Some(&size) = config.sizes.get(index) else {
                break;
            };
            let mut state = self.lock();
            while !state.stop
                && index != state.next
                && state.held > 0
                && state.held.saturating_add(size) > config.budget_bytes
            {
                state = self
                    .changed
                    .wait(state)
                    .unwrap_or_else(PoisonError::into_inner);
            }
            if state.stop {
                break;
            }
            state.held = state.held.saturating_add(size);
            drop(state);
            let result = catch_unwind(AssertUnwindSafe(|| read(index)));
            let mut state = self.lock();
            if !state.stop {
                state.slots[index] = Some(result);
            }
            self.changed.notify_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicU64;
    use std::time::Duration;

    use super::*;

    fn config(sizes: Vec<u64>, budget_bytes: u64, workers: usize) -> ReadAheadConfig {
        ReadAheadConfig {
            sizes,
            budget_bytes,
            workers,
        }
    }

    #[test]
    fn the_results_come_in_input_order_whatever_order_they_are_read_in() {
        for workers in [0, 1, 3] {
            let inputs = 12;
            let config = config(vec![1; inputs], 100, workers);
            // The first inputs take the longest to read.
            let read = |index: usize| {
                std::thread::sleep(Duration::from_millis((inputs - index) as u64));
                index * 10
            };
            let taken = read_ahead(&config, read, |results| results.collect::<Vec<_>>());
            let expected: Vec<(usize, usize)> = (0..inputs).map(|i| (i, i * 10)).collect();
            assert_eq!(taken, expected, "{workers} workers");
        }
    }

    #[test]
    fn the_inputs_read_and_not_taken_stay_within_the_budget() {
        // Inputs of 10 bytes read at once, a budget of 25, a slow consumer: without the budget
        // all twenty would be read before the second is taken.
        let held = AtomicU64::new(0);
        let most = AtomicU64::new(0);
        let config = config(vec![10; 20], 25, 4);
        let read = |_| {
            let now = held.fetch_add(10, Ordering::SeqCst) + 10;
            most.fetch_max(now, Ordering::SeqCst);
        };
        let taken = read_ahead(&config, read, |results| {
            let mut taken = 0;
            while results.next().is_some() {
                held.fetch_sub(10, Ordering::SeqCst);
                std::thread::sleep(Duration::from_millis(2));
                taken += 1;
            }
            taken
        });
        assert_eq!(taken, 20);
        // Two inputs within the budget, the next to be taken (always read), and the one just
        // taken, which a reader may replace before the consumer counts it off.
        assert!(most.load(Ordering::SeqCst) <= 40, "{most:?}");
    }

    #[test]
    fn an_input_larger_than_the_budget_is_read_alone() {
        let config = config(vec![100, 5, 100, 5], 10, 2);
        let taken = read_ahead(&config, |index| index, |results| results.count());
        assert_eq!(taken, 4);
    }

    #[test]
    fn a_consumer_that_stops_early_stops_the_readers() {
        let started = AtomicUsize::new(0);
        let config = config(vec![10; 1000], 30, 2);
        let read = |_| {
            started.fetch_add(1, Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(1));
        };
        let taken = read_ahead(&config, read, |results| {
            results.next();
            results.next();
            // Time enough for the readers to read dozens more, were they not bounded.
            std::thread::sleep(Duration::from_millis(30));
            2
        });
        assert_eq!(taken, 2);
        // Two taken, and after them at most the budget's worth (three) and the next to be taken.
        assert!(started.load(Ordering::SeqCst) <= 2 + 3 + 1, "{started:?}");
    }

    #[test]
    fn a_panic_while_reading_is_resumed_when_its_input_is_taken() {
        let config = config(vec![1; 5], 100, 2);
        let outcome = catch_unwind(|| {
            read_ahead(
                &config,
                |index| {
                    if index == 3 {
                        panic!("input 3 is bad");
                    }
                    index
                },
                |results| results.map(|(index, _)| index).collect::<Vec<_>>(),
            )
        });
        let payload = outcome.expect_err("the panic is resumed");
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"input 3 is bad"));
    }

    #[test]
    fn a_panic_of_the_consumer_stops_the_readers_and_unwinds() {
        let config = config(vec![1; 1000], 2, 2);
        let outcome = catch_unwind(|| {
            read_ahead(
                &config,
                |index| index,
                |results| {
                    results.next();
                    panic!("the consumer failed");
                },
            )
        });
        let payload: Box<dyn std::any::Any + Send> = match outcome {
            Ok(()) => panic!("the consumer's panic unwinds"),
            Err(payload) => payload,
        };
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"the consumer failed"));
    }

    #[test]
    fn readers_that_work_on_their_pool_never_read_one_input_inside_another() {
        use rayon::prelude::*;
        use std::cell::Cell;
        thread_local! {
            // The inputs being read on this thread, one inside another.
            static READING: Cell<usize> = const { Cell::new(0) };
        }
        let deepest = AtomicUsize::new(0);
        let inputs = 40;
        for workers in [1, 2, 4] {
            let config = config(vec![1; inputs], 1_000, workers);
            let read = |index: usize| {
                let depth = READING.with(|reading| {
                    reading.set(reading.get() + 1);
                    reading.get()
                });
                deepest.fetch_max(depth, Ordering::Relaxed);
                // Work split over the pool, whose pieces wait for one another: a reader waiting
                // for a piece that another thread took runs other jobs meanwhile.
                let sum: usize = (0..2_000usize)
                    .into_par_iter()
                    .with_max_len(8)
                    .map(|value| {
                        std::thread::yield_now();
                        value % 7
                    })
                    .sum();
                READING.with(|reading| reading.set(reading.get() - 1));
                (index, sum)
            };
            let taken = read_ahead(&config, read, |results| results.collect::<Vec<_>>());
            let expected: usize = (0..2_000).map(|value| value % 7).sum();
            assert_eq!(taken.len(), inputs, "{workers} workers");
            for (position, (index, (read_index, sum))) in taken.into_iter().enumerate() {
                assert_eq!((index, read_index, sum), (position, position, expected));
            }
        }
        assert_eq!(deepest.load(Ordering::Relaxed), 1);
    }

    #[test]
    fn one_input_is_read_on_the_calling_thread_and_several_by_one_reader_per_core() {
        assert_eq!(reading_threads(0), 0);
        assert_eq!(reading_threads(1), 0);
        // Rayon's thread count: `RAYON_NUM_THREADS` when set, else the cores this process may use.
        let cores = std::env::var("RAYON_NUM_THREADS")
            .ok()
            .and_then(|threads| threads.parse::<usize>().ok())
            .filter(|&threads| threads > 0)
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        assert_eq!(reading_threads(5), cores);
    }
}
