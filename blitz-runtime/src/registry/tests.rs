//! Tests of the worker's own bookkeeping around the jobs it finds while idle.

use crate::ThreadPoolBuilder;
use crate::join::timestamp;

/// Only jobs taken from a deque are judged for request pacing (see `crate::pacing`): not a
/// call from outside, however small, and nothing on a pool of one worker, which has nobody
/// to ask. (Counted rather than timed: whether a judged job pauses depends on the clock.)
#[test]
fn only_jobs_from_deques_are_judged_for_pacing() {
    let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    pool.install_with_worker(|w| {
        let judged = w.pacing.jobs_judged.get();
        w.found_job_done(timestamp(), true);
        assert_eq!(
            w.pacing.jobs_judged.get(),
            judged,
            "a job from the injector"
        );
        w.found_job_done(timestamp(), false);
        assert_eq!(w.pacing.jobs_judged.get(), judged + 1, "a job from a deque");
    });
    let alone = ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    alone.install_with_worker(|w| {
        w.found_job_done(timestamp(), false);
        assert_eq!(w.pacing.jobs_judged.get(), 0, "a worker without peers");
    });
}
