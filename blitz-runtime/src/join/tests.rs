//! Tests of `join`: forks on started pools, promotion on request, eager publication, panics.

use crate::fork_context::ForkContext;
use crate::{ThreadPoolBuilder, Worker};
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};

fn tree(w: &Worker, depth: u32, ran: &[AtomicUsize]) -> u64 {
    if depth == 0 {
        ran[w.index()].fetch_add(1, Ordering::Relaxed);
        return 1;
    }
    let (a, b) = w.join(|w| tree(w, depth - 1, ran), |w| tree(w, depth - 1, ran));
    a + b
}

/// `a` waits for `b` to have run without ever reaching a poll point, which only a peer can
/// end by taking `b`: a published fork is taken without a request, where a private one
/// would wait for one of this worker's fork or join points. Meanwhile the peer is held
/// busy (so it raises no request) until the fork is recorded, and the eager publications
/// every new job starts with are spent, so only `join_published` itself can make the fork
/// public. (The deadlines only keep a regression from hanging the suite.)
#[test]
fn a_published_fork_is_taken_while_the_first_closure_polls_nothing() {
    use crate::registry::REQUEST_NONE;
    use std::sync::atomic::AtomicBool;
    use std::time::{Duration, Instant};
    let wait_for = |flag: &AtomicBool| {
        let deadline = Instant::now() + Duration::from_secs(20);
        while !flag.load(Ordering::Acquire) && Instant::now() < deadline {
            std::thread::yield_now();
        }
        flag.load(Ordering::Acquire)
    };
    let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let [peer_busy, release_peer, b_ran] = [(); 3].map(|()| AtomicBool::new(false));
    let hold_peer = |_: &Worker| {
        peer_busy.store(true, Ordering::Release);
        wait_for(&release_peer);
    };
    let test = |w: &Worker| {
        assert!(wait_for(&peer_busy), "the peer never took the holding job");
        while w.eager_budget() > 0 {
            w.join(|_| (), |_| ());
        }
        // The peer's refill request, raised when it took `hold_peer`.
        w.work_wanted_flag().store(REQUEST_NONE, Ordering::Relaxed);
        w.join_published(
            |w| {
                let public = !w.has_private_frames();
                release_peer.store(true, Ordering::Release);
                (public, wait_for(&b_ran))
            },
            |_| b_ran.store(true, Ordering::Release),
        )
    };
    let (((public, b_ran_meanwhile), ()), ()) =
        pool.install(|| crate::join::with_worker(|w| w.join(test, hold_peer)));
    assert!(public, "the fork was left private");
    assert!(b_ran_meanwhile, "the published fork waited for its owner");
}

/// Small enough for Miri: eager, promoted and private forks, stolen or not.
#[test]
fn join_on_a_started_pool() {
    let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let depth = if cfg!(miri) { 6 } else { 14 };
    for _ in 0..3 {
        let ran = [AtomicUsize::new(0), AtomicUsize::new(0)];
        assert_eq!(
            pool.install_with_worker(|w| tree(w, depth, &ran)),
            1 << depth
        );
        let leaves: usize = ran.iter().map(|r| r.load(Ordering::Relaxed)).sum();
        assert_eq!(leaves, 1 << depth);
    }
}

/// A deep, narrow recursion: far more pending forks than the window holds, with the
/// outer ones promoted and stolen while the owner keeps descending.
#[test]
fn deep_narrow_recursion_beyond_the_frame_window() {
    fn chain(w: &Worker, depth: u64, ran: &AtomicUsize) -> u64 {
        if depth == 0 {
            return 0;
        }
        let (rest, here) = w.join(
            |w| chain(w, depth - 1, ran),
            |_| {
                ran.fetch_add(1, Ordering::Relaxed);
                // Enough work per level that idle peers ask for (and steal) some.
                std::hint::black_box((0..200u64).fold(depth, |acc, x| acc ^ x));
                depth
            },
        );
        rest + here
    }
    // Debug-build frames are large, and a thief nests stolen frames on its own stack.
    let pool = ThreadPoolBuilder::new()
        .num_threads(2)
        .stack_size(16 << 20)
        .build()
        .unwrap();
    let depth: u64 = if cfg!(miri) { 40 } else { 2000 };
    for _ in 0..3 {
        let ran = AtomicUsize::new(0);
        let sum = pool.install_with_worker(|w| chain(w, depth, &ran));
        assert_eq!(sum, depth * (depth + 1) / 2);
        assert_eq!(ran.into_inner(), depth as usize);
    }
}

fn mode_name<P>(mode: &super::ForkMode<'_, P>) -> &'static str {
    match mode {
        super::ForkMode::Join(_) => "join",
        super::ForkMode::Plain(_) => "plain",
        super::ForkMode::Serial => "serial",
    }
}

/// `n` recorded forks (their second closures count into `ran_b`), then `f` inside them.
fn nest(w: &Worker, n: usize, ran_b: &AtomicUsize, f: &mut dyn FnMut(&Worker)) {
    if n == 0 {
        return f(w);
    }
    w.join(
        |w| nest(w, n - 1, ran_b, f),
        |_| ran_b.fetch_add(1, Ordering::Relaxed),
    );
}

/// Jobs a test took off its worker's deque, standing in for a thief. If the test fails while
/// it holds them, they go back on the deque, so that the joins waiting for them finish and the
/// failure is reported instead of hanging the suite.
struct HeldJobs<'w> {
    worker: &'w Worker,
    jobs: Vec<crate::job::JobRef>,
}

impl Drop for HeldJobs<'_> {
    fn drop(&mut self) {
        for job in self.jobs.drain(..) {
            self.worker.push(job);
        }
    }
}

/// The decisions of generated fork points without record credit (see the next test for
/// the credit): a fork joins (is recorded) while fewer private records than the window are
/// pending; beyond the window the subtree runs plain. A
/// raised request promotes the oldest private records, which reopens the window; one
/// that finds nothing to offer is deferred to the next recorded fork, which publishes
/// itself. The peer is kept busy in a spinning job, so it neither steals nor asks.
#[test]
fn fork_mode_and_polls_follow_the_window_and_requests() {
    use crate::registry::{REQUEST_DEFERRED, REQUEST_NONE};
    use std::sync::atomic::AtomicBool;
    let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    for _ in 0..if cfg!(miri) { 2 } else { 20 } {
        let ran_b = AtomicUsize::new(0);
        let (peer_busy, done) = (AtomicBool::new(false), AtomicBool::new(false));
        // Releases the peer when dropped, also while a failed assertion unwinds.
        struct Release<'a>(&'a AtomicBool);
        impl Drop for Release<'_> {
            fn drop(&mut self) {
                self.0.store(true, Ordering::Release);
            }
        }
        let mut checks = |w: &Worker| {
            // Only once the checks are over may the peer go idle (and raise our flag).
            let _release = Release(&done);
            let window = w.record_window();
            let flag = w.work_wanted_flag();
            let state = || flag.load(Ordering::Relaxed);
            // The outermost fork is public; `window` private records above it.
            assert_eq!(w.frames.private(), window);
            w.forget_record_credit();
            assert_eq!(mode_name(&w.fork_mode()), "plain");
            w.raise_work_request();
            // The busy peer wants one job: the oldest record is promoted, which makes
            // room to record a fork here.
            assert_eq!(mode_name(&w.fork_mode()), "join");
            assert_eq!(state(), REQUEST_NONE, "request answered");
            assert_eq!(w.frames.private(), window - 1);
            // The promoted jobs are taken off our deque (as if stolen, so that each request
            // finds it empty) and put back, oldest first, before their joins.
            let mut promoted = HeldJobs {
                worker: w,
                jobs: vec![w.take_local_job().expect("the promoted record")],
            };
            // One more record fills the window again; inside it, the plain copy's polls
            // promote the remaining records one request at a time.
            nest(w, 1, &ran_b, &mut |w| {
                // The promotion above earned credit.
                w.forget_record_credit();
                let super::ForkMode::Plain(poll) = w.fork_mode() else {
                    panic!("not plain with a full window");
                };
                // The fork points of both instances of the plain copy poll (the earlier
                // branches of a plain fork run in the sibling instance).
                let sibling = ForkContext::sibling(poll);
                let fork_point = |left: usize| match left % 2 {
                    0 => mode_name(&ForkContext::fork_mode(&poll)),
                    _ => mode_name(&ForkContext::fork_mode(&sibling)),
                };
                for left in (0..window).rev() {
                    assert_eq!(fork_point(left), "plain");
                    assert_eq!(w.frames.private(), left + 1, "no request, nothing promoted");
                    w.raise_work_request();
                    assert_eq!(fork_point(left), "plain");
                    assert_eq!(state(), REQUEST_NONE);
                    assert_eq!(w.frames.private(), left);
                    promoted
                        .jobs
                        .push(w.take_local_job().expect("the promoted record"));
                }
                // Nothing left to offer: the request is deferred, and stays so for the
                // plain polls.
                w.raise_work_request();
                poll.poll();
                assert_eq!(state(), REQUEST_DEFERRED);
                poll.poll();
                assert_eq!(state(), REQUEST_DEFERRED);
                // With nothing private, a fork point records again, and the recorded fork
                // answers the deferred request by publishing itself.
                assert_eq!(mode_name(&w.fork_mode()), "join");
                w.join(
                    |w| {
                        assert_eq!(state(), REQUEST_NONE, "deferred request answered");
                        assert!(!w.has_private_frames(), "published itself");
                    },
                    |_| ran_b.fetch_add(1, Ordering::Relaxed),
                );
                // A request that finds enough jobs on our deque promotes nothing.
                for job in promoted.jobs.drain(..) {
                    w.push(job);
                }
                w.join(
                    |w| {
                        w.raise_work_request();
                        w.poll_work_request();
                        assert_eq!(state(), REQUEST_NONE);
                        assert!(w.has_private_frames(), "enough on offer already");
                    },
                    |_| ran_b.fetch_add(1, Ordering::Relaxed),
                );
            });
        };
        pool.install_with_worker(|w| {
            w.ignore_late_answers();
            // The outermost fork of a new call tree is published at once: the peer takes
            // its `b` and stays busy there, so it stops raising our flag.
            w.join(
                |w| {
                    while !peer_busy.load(Ordering::Acquire) {
                        std::hint::spin_loop();
                    }
                    w.work_wanted_flag().store(REQUEST_NONE, Ordering::Relaxed);
                    nest(w, w.record_window(), &ran_b, &mut checks);
                },
                |_| {
                    peer_busy.store(true, Ordering::Release);
                    while !done.load(Ordering::Acquire) {
                        std::hint::spin_loop();
                    }
                },
            )
        });
        // Every second closure ran once, promoted (and maybe stolen) or not.
        let window = pool.install_with_worker(|w| w.record_window());
        assert_eq!(ran_b.into_inner(), window + 3);
    }
}

/// Beyond the window, generated fork points record on credit, as `Worker::join` does: a
/// spine of forks entered once (an unbalanced recursion) keeps every level on offer. Once
/// wasted records have spent the credit, the subtree runs plain. Driven on a worker of a
/// four-worker registry with no threads, so no peer steals or asks.
#[test]
fn fork_mode_records_beyond_the_window_on_credit() {
    use crate::registry::Registry;
    let worker = Worker::new(Registry::new(4, Default::default()), 0);
    let w = &worker;
    w.ignore_late_answers();
    let window = w.record_window();
    let ran_b = AtomicUsize::new(0);
    // A descent twice as deep as the window: every level is recorded.
    let mut modes = Vec::new();
    nest(w, 2 * window, &ran_b, &mut |w| {
        assert_eq!(w.frames.private(), 2 * window);
        modes.push(mode_name(&w.fork_mode()));
        w.forget_record_credit();
        modes.push(mode_name(&w.fork_mode()));
    });
    assert_eq!(modes, ["join", "plain"]);
    assert_eq!(ran_b.load(Ordering::Relaxed), 2 * window);
}

/// An eager publication (offered unasked) earns window credit but no record credit: only a
/// promotion a peer asked for shows that records beyond the window pay off.
#[test]
fn an_eager_publication_earns_no_record_credit() {
    use crate::registry::Registry;
    let worker = Worker::new(Registry::new(4, Default::default()), 0);
    let w = &worker;
    w.ignore_late_answers();
    let window = w.record_window();
    let ran_b = AtomicUsize::new(0);
    let mut checked = false;
    nest(w, window - 1, &ran_b, &mut |w| {
        w.forget_record_credit();
        w.arm_eager_publication();
        w.join(
            |w| {
                // This fork's record went in and the oldest one went out, to the deque.
                assert_eq!(w.frames.private(), window - 1);
                nest(w, 1, &ran_b, &mut |w| {
                    assert_eq!(w.frames.private(), window, "the window is full");
                    assert!(!w.join_records(), "the publication earned record credit");
                    checked = true;
                });
            },
            |_| ran_b.fetch_add(1, Ordering::Relaxed),
        );
    });
    assert!(checked);
    assert_eq!(ran_b.load(Ordering::Relaxed), window + 1);
}

/// `Worker::join`'s cached decision to record (`Worker::join_records`) follows what it is
/// derived from through every step that changes it: records made and left, wasted
/// records spending the credit down to none, and a promotion earning some back. Driven on
/// a worker of a two-worker registry with no threads, so no peer steals or asks.
#[test]
fn cached_record_decision_follows_the_records() {
    use crate::registry::Registry;
    let worker = Worker::new(Registry::new(2, Default::default()), 0);
    let w = &worker;
    w.ignore_late_answers();
    let window = w.record_window();
    let ran_b = AtomicUsize::new(0);
    let consistent = |w: &Worker| assert_eq!(w.join_records(), w.join_records_now());
    // Inside `window` records the window is full: recording further depends on the
    // credit alone. Each round wastes `window + 1` records, so the credit runs out.
    let mut rounds = 0;
    let out_of_credit = loop {
        let mut out = false;
        nest(w, window, &ran_b, &mut |w| {
            consistent(w);
            out = !w.join_records();
            w.join(consistent, consistent);
        });
        consistent(w);
        rounds += 1;
        if out || rounds > 2000 {
            break out;
        }
    };
    assert!(out_of_credit, "wasted records never spent the credit");
    nest(w, window, &ran_b, &mut |w| {
        assert!(!w.join_records(), "full window, no credit");
        // A request promotes the oldest record: room in the window, and credit earned.
        w.raise_work_request();
        w.poll_work_request();
        assert!(w.join_records(), "the promotion reopened recording");
        w.join(consistent, consistent);
    });
    // The promoted job came back unstolen and ran inline.
    consistent(w);
    assert!(w.join_records() && w.frames.len() == 0);
    assert_eq!(ran_b.load(Ordering::Relaxed), (rounds + 1) * window);
}

/// The window narrows to its first record once its records keep being left unpromoted
/// (`WINDOW_CREDIT`), and a promotion widens it again. Read through `fork_mode`, the choice
/// of `#[parallel]` code (`Worker::join` may record beyond the window on its own credit).
/// Driven on a worker of a four-worker registry with no threads, so no peer steals or asks.
#[test]
fn window_narrows_while_its_records_are_wasted() {
    use crate::registry::Registry;
    let worker = Worker::new(Registry::new(4, Default::default()), 0);
    let w = &worker;
    w.ignore_late_answers();
    let window = w.record_window();
    assert!(window >= 3);
    let ran_b = AtomicUsize::new(0);
    let mode_inside_one_record = |w: &Worker| {
        let mut mode = "";
        nest(w, 1, &ran_b, &mut |w| mode = mode_name(&w.fork_mode()));
        mode
    };
    assert_eq!(
        mode_inside_one_record(w),
        "join",
        "a fresh worker keeps a wide window"
    );
    // Each round leaves `window` records unpromoted.
    let mut rounds = 0;
    while mode_inside_one_record(w) == "join" {
        nest(w, window, &ran_b, &mut |_| {});
        rounds += 1;
        assert!(rounds < 10_000, "wasted records never narrowed the window");
    }
    assert!(rounds > 1, "narrowed before its credit was spent");
    nest(w, 1, &ran_b, &mut |w| {
        assert_eq!(
            mode_name(&w.fork_mode()),
            "plain",
            "one record is the window"
        );
        // A request promotes that record and earns credit: forks entered now are recorded
        // as deep as the whole window again.
        w.raise_work_request();
        w.poll_work_request();
        assert!(!w.has_private_frames());
        nest(w, window - 1, &ran_b, &mut |w| {
            assert_eq!(w.frames.private(), window - 1);
            assert_eq!(mode_name(&w.fork_mode()), "join");
        });
    });
    let forks = 2 + rounds * window + 1 + (window - 1) + rounds;
    assert_eq!(ran_b.load(Ordering::Relaxed), forks);
}

/// Which outermost forks are published without a request (see `Worker::eager_budget`):
/// the first of a new call tree (the peer is busy, so the budget is one); after one whose
/// `b` came back unstolen, the next only if `a` ran long; after one whose `b` was stolen
/// and that took long enough to be worth splitting (`COARSE_FORK`), the next. The peer is
/// kept busy (so it neither steals nor asks) except where a steal is wanted.
#[test]
fn outermost_forks_are_published_when_armed() {
    use crate::registry::REQUEST_NONE;
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;
    let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    // Releases the peer when dropped, also while a failed assertion unwinds.
    struct Release(Arc<AtomicBool>);
    impl Drop for Release {
        fn drop(&mut self) {
            self.0.store(true, Ordering::Release);
        }
    }
    // Runs a job on the peer that spins until the returned guard is dropped; returns once
    // it runs. From outside the pool the job is injected and the idle worker takes it; from
    // inside, it goes onto our deque and the idle peer steals it (we do not pop meanwhile).
    let occupy_peer = || {
        let started = Arc::new(AtomicBool::new(false));
        let release = Arc::new(AtomicBool::new(false));
        let (s, r) = (Arc::clone(&started), Arc::clone(&release));
        pool.spawn(move || {
            s.store(true, Ordering::Release);
            while !r.load(Ordering::Acquire) {
                std::hint::spin_loop();
            }
        });
        while !started.load(Ordering::Acquire) {
            std::hint::spin_loop();
        }
        Release(release)
    };
    // Whether the outermost fork's `b` was published: inside its `a`, nothing is private.
    let published = |w: &Worker| !w.has_private_frames();
    let release = occupy_peer();
    pool.install_with_worker(|w| {
        w.ignore_late_answers();
        // The peer asked for work before it got busy; it asks no more.
        w.work_wanted_flag().store(REQUEST_NONE, Ordering::Relaxed);
        // Longer than `LONG_FIRST_CLOSURE` and `COARSE_FORK`.
        let run_long = || {
            let long = if cfg!(miri) { 300 } else { 2 };
            std::thread::sleep(std::time::Duration::from_millis(long));
        };
        let long_a = |w: &Worker| {
            assert!(published(w), "the first fork of a new call tree");
            run_long();
        };
        w.join(long_a, |_| ());
        w.join(
            |w| assert!(published(w), "after a long `a`, unstolen"),
            |_| (),
        );
        // A short `a` ends the publication. A fork whose stamp and join straddle a preemption,
        // or a move to a core whose clock reads behind, is judged long: allow a few of those.
        let stopped = (0..100).any(|_| {
            let mut private = false;
            w.join(|w| private = !published(w), |_| ());
            private
        });
        assert!(stopped, "after a short `a`, unstolen");
        drop(release);

        // Now the idle peer asks: answer until it has taken `b`, and take long enough for
        // the split to have been worth it.
        let b_ran = AtomicBool::new(false);
        w.join(
            |w| {
                while !b_ran.load(Ordering::Acquire) {
                    w.poll_work_request();
                    std::hint::spin_loop();
                }
                run_long();
            },
            |_| b_ran.store(true, Ordering::Release),
        );
        let release = occupy_peer();
        w.work_wanted_flag().store(REQUEST_NONE, Ordering::Relaxed);
        w.join(|w| assert!(published(w), "after a stolen `b`"), |_| ());
        drop(release);
    });
}

/// A call tree started on an idle pool publishes its first forks at once, one per idle
/// peer (see `Worker::eager_budget`), instead of one until a peer asks for more.
#[test]
fn a_new_call_tree_on_an_idle_pool_publishes_one_fork_per_idle_peer() {
    let pool = ThreadPoolBuilder::new().num_threads(4).build().unwrap();
    while pool.sleeping_threads() != 4 {
        std::thread::yield_now();
    }
    let ran_b = AtomicUsize::new(0);
    pool.install_with_worker(|w| {
        // The install woke one worker (us); the other three sleep.
        assert_eq!(w.eager_budget(), 3);
        let b = |_: &Worker| {
            ran_b.fetch_add(1, Ordering::Relaxed);
        };
        w.join(
            |w| {
                w.join(
                    |w| {
                        w.join(
                            |w| assert!(!w.has_private_frames(), "all three published"),
                            b,
                        )
                    },
                    b,
                )
            },
            b,
        );
    });
    assert_eq!(ran_b.into_inner(), 3);
}

#[test]
fn panics_propagate_after_both_sides_finish() {
    let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    for depth in [0u32, 1, 2, 5] {
        let finished = AtomicUsize::new(0);
        // The panicking fork sits at `depth`: published at once at depth 0 (the outermost
        // fork of a new call tree), private or promoted on request below.
        fn nest(w: &Worker, depth: u32, finished: &AtomicUsize) {
            if depth > 0 {
                return w.join(|w| nest(w, depth - 1, finished), |_| ()).0;
            }
            w.join(
                |_| {
                    finished.fetch_add(1, Ordering::SeqCst);
                    panic!("a");
                },
                |_| {
                    finished.fetch_add(1, Ordering::SeqCst);
                    panic!("b");
                },
            );
        }
        let err = panic::catch_unwind(AssertUnwindSafe(|| {
            pool.install_with_worker(|w| nest(w, depth, &finished))
        }))
        .unwrap_err();
        assert_eq!(err.downcast_ref::<&str>(), Some(&"a"), "depth {depth}");
        assert_eq!(finished.load(Ordering::SeqCst), 2, "depth {depth}");
    }
    assert_eq!(pool.join(|| 1, || 2), (1, 2));
}

/// The same through the rayon-style [`crate::join`], whose plain path is compiled apart from
/// `Worker::join`'s: at every depth the panicking fork's `b` still runs (and its own panic
/// is discarded), the outer `b`s all run, and `a`'s payload is the one that surfaces.
#[test]
fn free_join_panics_propagate_after_both_sides_finish_at_every_depth() {
    let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    fn nest(depth: u32, finished: &AtomicUsize) {
        if depth > 0 {
            crate::join(
                || nest(depth - 1, finished),
                || {
                    finished.fetch_add(1, Ordering::SeqCst);
                },
            );
            return;
        }
        crate::join(
            || {
                finished.fetch_add(1, Ordering::SeqCst);
                panic!("a");
            },
            || {
                finished.fetch_add(1, Ordering::SeqCst);
                panic!("b");
            },
        );
    }
    for depth in [0u32, 1, 3, 12] {
        let finished = AtomicUsize::new(0);
        let err = panic::catch_unwind(AssertUnwindSafe(|| pool.install(|| nest(depth, &finished))))
            .unwrap_err();
        assert_eq!(err.downcast_ref::<&str>(), Some(&"a"), "depth {depth}");
        assert_eq!(
            finished.load(Ordering::SeqCst),
            depth as usize + 2,
            "depth {depth}"
        );
    }
    assert_eq!(pool.join(|| 1, || 2), (1, 2));
}
