//! Models of the sleep protocol with real workers' waiting code: loom threads play the
//! workers (no OS threads are started; `Worker::new` does not touch the thread-local).
use super::*;
use crate::latch::Latch;
use loom::thread;

fn registry(num_threads: usize) -> Arc<Registry> {
    Registry::new(num_threads, Handlers::default())
}

/// A heap job that sets `ran` when it runs; the poster blocks on `ran`, so a lost wake-up
/// leaves every thread blocked and loom reports the deadlock.
fn job_setting(ran: &Arc<ParkLatch>) -> JobRef {
    let ran = Arc::clone(ran);
    let job = crate::job::HeapJob::new(move |_: &Worker| {
        // SAFETY: alive (Arc).
        unsafe { ParkLatch::set(&*ran) };
    });
    // SAFETY: executed exactly once, by whichever worker takes it.
    unsafe { job.into_job_ref() }
}

/// Ends a model: sets worker `index`'s wait latch and wakes it if it sleeps.
pub(crate) fn release(registry: &Registry, latch: &CoreLatch, index: usize) {
    // SAFETY: `latch` is alive for the call.
    if unsafe { CoreLatch::set(latch) } {
        registry.notify_worker_latch_is_set(index);
    }
}

/// Starts a loom thread that plays worker `index`, idle until `done` is set: it must find
/// (and run) whatever the model posts for it, going to sleep in between.
fn spawn_idle_worker(
    registry: &Arc<Registry>,
    index: usize,
    done: &Arc<CoreLatch>,
) -> thread::JoinHandle<()> {
    let registry = Arc::clone(registry);
    let done = Arc::clone(done);
    thread::spawn(move || {
        let worker = Worker::new(Arc::clone(&registry), index);
        worker.wait_until(&*done);
    })
}

/// ERRATA 1 on the real code path: worker 1 is idle and goes through the sleep rounds
/// while worker 0 spawns a job onto its own deque and then blocks until the job has been
/// *stolen and run* (it never runs the job itself). If the poster's wake-up were lost, both
/// would block forever and loom would report a deadlock. (Planting the reference design's
/// inert JEC, "increment if even" on both sides, makes this model fail. Removing fence #1
/// from the spawn's post does not: loom does not produce the store-buffer outcome that the
/// fence rules out, which Miri does, see `Sleep::new_unjoined_jobs`.)
#[test]
fn internal_job_wakes_a_worker_going_to_sleep() {
    loom::model(|| {
        let registry = registry(2);
        let ran = Arc::new(ParkLatch::new());
        let done = Arc::new(CoreLatch::new());
        let thief = spawn_idle_worker(&registry, 1, &done);
        let poster = Worker::new(Arc::clone(&registry), 0);
        poster.push_unjoined(job_setting(&ran));
        ran.wait(|| true);
        release(&registry, &done, 1);
        thief.join().unwrap();
    });
}

/// A batch of jobs published at once (as `answer_work_request` promotes them: pushed without
/// waking anyone, then posted together) while the only peer goes to sleep: the post must wake
/// it. The poster blocks until both jobs ran elsewhere, so the thief must find the second job
/// as well once it ran the first. (Posting the batch without flipping the JEC, or waking
/// nobody, makes this model fail.)
#[test]
fn published_batch_wakes_a_worker_going_to_sleep() {
    loom::model(|| {
        let registry = registry(2);
        let ran = [Arc::new(ParkLatch::new()), Arc::new(ParkLatch::new())];
        let done = Arc::new(CoreLatch::new());
        let thief = spawn_idle_worker(&registry, 1, &done);
        let poster = Worker::new(Arc::clone(&registry), 0);
        for latch in &ran {
            // SAFETY: the poster's own deque, pushed from its thread.
            unsafe { poster.deque().push(job_setting(latch).as_ptr()) };
        }
        registry.sleep.new_published_batch(2, true);
        for latch in &ran {
            latch.wait(|| true);
        }
        release(&registry, &done, 1);
        thief.join().unwrap();
    });
}

/// A job injected from outside while the only worker heads to sleep (fences #1 and #2): the
/// injector must wake it, since nobody else will run the job.
#[test]
fn injected_job_wakes_a_worker_going_to_sleep() {
    loom::model(|| {
        let registry = registry(1);
        // Start from an active JEC (as after earlier work), where only the fences protect
        // the injected job.
        registry.sleep.new_internal_jobs(1, true);
        let ran = Arc::new(ParkLatch::new());
        let done = Arc::new(CoreLatch::new());
        let worker_thread = spawn_idle_worker(&registry, 0, &done);
        registry.inject(job_setting(&ran));
        ran.wait(|| true);
        release(&registry, &done, 0);
        worker_thread.join().unwrap();
    });
}

/// Two jobs injected into a pool of two idle workers, the first of which waits until the
/// second has run: whichever worker takes the first (alone, or with the second in one batch
/// from the injector) must not be counted on for the second, or it sits unclaimed while the
/// other worker sleeps (fence #3 in `Sleep::work_found`, and the batch post of
/// `take_injected_job`). (Skipping the injector check in `work_found`, counting the taker as
/// available for the rest of its batch, or posting the batch without fence #1, each makes
/// this model fail.)
#[test]
fn a_job_waiting_for_a_second_injected_job_gets_it_run() {
    use loom::sync::{Condvar, Mutex};
    loom::model(|| {
        let registry = registry(2);
        // The first job blocks its worker until the second has run (a `ParkLatch` wakes the
        // thread that made it, so a mutex and condvar stand between the two jobs).
        let second_ran = Arc::new((Mutex::new(false), Condvar::new()));
        let first_ran = Arc::new(ParkLatch::new());
        let done = [Arc::new(CoreLatch::new()), Arc::new(CoreLatch::new())];
        let workers = [
            spawn_idle_worker(&registry, 0, &done[0]),
            spawn_idle_worker(&registry, 1, &done[1]),
        ];
        let first = {
            let (second_ran, first_ran) = (Arc::clone(&second_ran), Arc::clone(&first_ran));
            crate::job::HeapJob::new(move |_: &Worker| {
                let (ran, cond) = &*second_ran;
                let mut ran = ran.lock().unwrap();
                while !*ran {
                    ran = cond.wait(ran).unwrap();
                }
                // SAFETY: alive (Arc).
                unsafe { ParkLatch::set(&*first_ran) };
            })
        };
        let second = {
            let second_ran = Arc::clone(&second_ran);
            crate::job::HeapJob::new(move |_: &Worker| {
                let (ran, cond) = &*second_ran;
                *ran.lock().unwrap() = true;
                cond.notify_one();
            })
        };
        // SAFETY: each executed exactly once, by whichever worker takes it.
        registry.inject(unsafe { first.into_job_ref() });
        registry.inject(unsafe { second.into_job_ref() });
        first_ran.wait(|| true);
        for (index, done) in done.iter().enumerate() {
            release(&registry, done, index);
        }
        for worker in workers {
            worker.join().unwrap();
        }
    });
}

/// A broadcast job for a worker that is going to sleep: the broadcaster must wake it. The
/// broadcaster blocks on a `ParkLatch` (not the worker wait, whose wake cascade could hide
/// a lost wake-up), so if the targeted worker slept through the push, loom reports a
/// deadlock. (Removing the wake loop of `inject_broadcast` makes this model fail.)
#[test]
fn broadcast_wakes_a_worker_going_to_sleep() {
    loom::model(|| {
        let registry = registry(2);
        let ran = Arc::new(ParkLatch::new());
        let done = Arc::new(CoreLatch::new());
        let sleeper = spawn_idle_worker(&registry, 1, &done);
        let broadcaster = Worker::new(Arc::clone(&registry), 0);
        let own = crate::job::HeapJob::new(|_: &Worker| {});
        // SAFETY: executed below by the broadcaster itself, exactly once.
        let own = unsafe { own.into_job_ref() };
        registry.inject_broadcast([own, job_setting(&ran)].into_iter());
        ran.wait(|| true);
        let mine = broadcaster.take_broadcast_job();
        assert_eq!(mine, Some(own), "job 0 is for worker 0 only");
        broadcaster.execute(own);
        release(&registry, &done, 1);
        sleeper.join().unwrap();
    });
}

/// OnceLatch set vs a worker waiting on it (ERRATA 5: the waiter goes to sleep on the
/// latch): the setter must wake it, and the waiter sees the data written before `set`.
#[test]
fn once_latch_set_vs_wait() {
    loom::model(|| {
        let registry = registry(2);
        let data = Arc::new(loom::sync::atomic::AtomicUsize::new(0));
        let owner = Worker::new(Arc::clone(&registry), 0);
        let latch = OnceLatch::new(&owner);
        let latch_ptr = &latch as *const OnceLatch<'_> as usize;
        let setter = {
            let registry = Arc::clone(&registry);
            let data = Arc::clone(&data);
            thread::spawn(move || {
                let _worker = Worker::new(registry, 1);
                data.store(7, Ordering::Relaxed);
                // SAFETY: the owner waits for this latch before leaving the frame that
                // holds it, and joins this thread before that.
                unsafe { OnceLatch::set(latch_ptr as *const OnceLatch<'_>) };
            })
        };
        owner.wait_until(&latch);
        assert_eq!(data.load(Ordering::Relaxed), 7);
        setter.join().unwrap();
    });
}
