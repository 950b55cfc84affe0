//! A task woken from a `std::thread` the test spawned, which the search
//! does not see (triggered 0.1.3's `single_listen_first`): the wake is
//! taken by the run, which waits for it rather than call the awaiting
//! task a deadlock; a task no one can wake still is one.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use crate::support::panic_message;

/// triggered's shape: a flag and the wakers waiting for it, behind std's
/// mutex.
#[derive(Default)]
struct Trigger {
    fired: bool,
    waiting: Vec<Waker>,
}

/// Fires the trigger from a std thread after `delay`, and awaits it.
async fn fired_from_a_std_thread(delay: Duration) {
    let trigger = Arc::new(Mutex::new(Trigger::default()));
    let firing = {
        let trigger = trigger.clone();
        std::thread::spawn(move || {
            std::thread::sleep(delay);
            let mut trigger = trigger.lock().unwrap();
            trigger.fired = true;
            trigger.waiting.drain(..).for_each(Waker::wake);
        })
    };
    Listen(trigger).await;
    firing.join().unwrap();
}

/// Ready once the trigger fired.
struct Listen(Arc<Mutex<Trigger>>);

impl Future for Listen {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let mut trigger = self.0.lock().unwrap();
        if trigger.fired {
            return Poll::Ready(());
        }
        trigger.waiting.push(cx.waker().clone());
        Poll::Pending
    }
}

#[rankcheck_tokio::test(runs = 5, seed = 1)]
async fn a_task_woken_from_a_std_thread_after_a_sleep_passes() {
    fired_from_a_std_thread(Duration::from_millis(100)).await;
}

#[test]
fn a_task_no_one_wakes_is_still_a_deadlock() {
    let report = panic_message(|| {
        rankcheck_rt::Builder::new().runs(2).seed(1).check(|| {
            rankcheck_rt::future::block_on(std::future::poll_fn(|_| Poll::<()>::Pending));
        });
    })
    .expect("the run deadlocks");
    assert!(report.contains("deadlock"), "{report}");
}
