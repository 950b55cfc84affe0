//! `SyncSender::try_send` decides at its own scheduling point whether the
//! channel has room, and never blocks: on a rendezvous channel it succeeds
//! exactly when the receiver already waits in `recv`.

use std::collections::BTreeSet;
use std::sync::Mutex as StdMutex;

use rankcheck::sync::mpsc::{sync_channel, TrySendError};
use rankcheck::sync::Arc;
use rankcheck::{thread, Builder, Strategy};
use rankcheck_rt as rankcheck;

fn search() -> Builder {
    Builder::new().runs(300).seed(9)
}

/// Two threads each `try_send` once on a channel of one place that nobody
/// reads: exactly one finds room, the other finds it full, and neither
/// blocks.
#[test]
fn two_tries_on_one_place_never_block() {
    search().check(|| {
        let (tx, rx) = sync_channel::<u32>(1);
        let tries: Vec<_> = (0..2)
            .map(|i| {
                let tx = tx.clone();
                thread::spawn(move || {
                    thread::yield_now();
                    tx.try_send(i).is_ok()
                })
            })
            .collect();
        let sent = tries
            .into_iter()
            .filter_map(|t| t.join().unwrap().then_some(()))
            .count();
        assert_eq!(sent, 1);
        assert!(rx.try_recv().is_ok());
    });
}

/// A `try_send` retried while the receiver waits in `recv` on a rendezvous
/// channel goes through.
#[test]
fn a_rendezvous_try_send_reaches_a_waiting_receiver() {
    search().check(|| {
        let (tx, rx) = sync_channel::<u32>(0);
        let sender = thread::spawn(move || loop {
            match tx.try_send(7) {
                Ok(()) => break,
                Err(TrySendError::Full(_)) => thread::yield_now(),
                Err(TrySendError::Disconnected(_)) => panic!("the receiver is there"),
            }
        });
        assert_eq!(rx.recv().unwrap(), 7);
        sender.join().unwrap();
    });
}

/// One `try_send` on a rendezvous channel against a receiver that may or
/// may not wait yet: both outcomes come up.
#[test]
fn a_rendezvous_try_send_succeeds_or_not_by_the_order() {
    let seen = Arc::new(StdMutex::new(BTreeSet::new()));
    let record = seen.clone();
    search().strategy(Strategy::Random).check(move || {
        let (tx, rx) = sync_channel::<u32>(0);
        let receiver = thread::spawn(move || rx.recv().is_ok());
        let sent = tx.try_send(1).is_ok();
        drop(tx);
        assert_eq!(receiver.join().unwrap(), sent);
        record.lock().unwrap().insert(sent);
    });
    assert_eq!(*seen.lock().unwrap(), BTreeSet::from([false, true]));
}
