//! Rendezvous channels (`sync_channel(0)`) behave as std's: a send returns
//! only once a receiver took the message, so a send nobody receives is a
//! deadlock; `try_send` succeeds only when a receiver waits; a receiver
//! that goes away hands the message back.

use rankcheck::sync::atomic::{AtomicBool, Ordering};
use rankcheck::sync::mpsc::{sync_channel, SendError, TrySendError};
use rankcheck::sync::Arc;
use rankcheck::{thread, Builder};
use rankcheck_rt as rankcheck;

use crate::support::panic_message;

fn search() -> Builder {
    Builder::new().runs(300).seed(3)
}

#[test]
fn a_send_nobody_receives_is_a_deadlock() {
    let report = panic_message(|| {
        search().check(|| {
            let (tx, rx) = sync_channel(0);
            tx.send(1).unwrap();
            drop(rx);
        });
    })
    .expect("the send waits for a receiver forever");
    assert!(report.starts_with("error[deadlock]"), "{report}");
    assert!(
        report.contains("waits for a receiver to take its message on"),
        "{report}"
    );
}

/// When `send` returns, the receiver has the message: the flag it sets
/// after receiving is seen once the receiver is joined, and the sender
/// never finds the channel holding a message after its send.
#[test]
fn a_send_returns_after_the_receiver_took_the_message() {
    search().check(|| {
        let (tx, rx) = sync_channel(0);
        let got = Arc::new(AtomicBool::new(false));
        let flag = got.clone();
        let receiver = thread::spawn(move || {
            assert_eq!(rx.recv(), Ok(7));
            flag.store(true, Ordering::SeqCst);
            rx
        });
        tx.send(7).unwrap();
        assert!(matches!(tx.try_send(8), Err(TrySendError::Full(8))));
        let rx = receiver.join().unwrap();
        assert!(got.load(Ordering::SeqCst));
        assert!(rx.try_recv().is_err(), "nothing was left queued");
    });
}

#[test]
fn try_send_needs_a_waiting_receiver() {
    search().check(|| {
        let (tx, rx) = sync_channel::<u32>(0);
        assert!(matches!(tx.try_send(1), Err(TrySendError::Full(1))));
        drop(rx);
        assert!(matches!(tx.try_send(2), Err(TrySendError::Disconnected(2))));
    });
}

/// Whether the receiver is dropped before the send or while the sender
/// waits, the send fails and hands the message back.
#[test]
fn a_receiver_gone_before_the_handoff_returns_the_message() {
    search().check(|| {
        let (tx, rx) = sync_channel(0);
        let dropper = thread::spawn(move || drop(rx));
        assert_eq!(tx.send(5), Err(SendError(5)));
        dropper.join().unwrap();
    });
}
