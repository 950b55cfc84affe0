//! What published crates' tests needed of the sync types: `mpsc`'s
//! lengths and capacities, `reserve` and its `Permit`; and the types made
//! and used outside any run (a plain `#[test]`), as tokio's work outside a
//! runtime.

use super::tokio;
use super::{search, support::panic_message};
use tokio::sync::mpsc::{self, error::TrySendError};

#[test]
fn a_receiver_tells_its_length_capacity_and_whether_it_is_closed() {
    search(50, || {
        rankcheck_rt::future::block_on(async {
            let (tx, mut rx) = mpsc::channel(4);
            tx.send(1).await.unwrap();
            tx.send(2).await.unwrap();
            assert_eq!((rx.len(), rx.capacity(), rx.max_capacity()), (2, 2, 4));
            assert!(!rx.is_empty() && !rx.is_closed());
            drop(tx);
            assert!(rx.is_closed());
            assert_eq!(rx.recv().await, Some(1));
            let (utx, mut urx) = mpsc::unbounded_channel();
            utx.send(3).unwrap();
            assert_eq!(urx.len(), 1);
            urx.close();
            assert!(urx.is_closed());
            assert_eq!(urx.recv().await, Some(3));
        })
    });
}

#[test]
fn a_permit_reserves_room_and_sends_into_it() {
    search(100, || {
        rankcheck_rt::future::block_on(async {
            let (tx, mut rx) = mpsc::channel::<u32>(1);
            let permit = tx.reserve().await.unwrap();
            assert!(matches!(tx.try_reserve(), Err(TrySendError::Full(()))));
            drop(permit);
            let permit = tx.try_reserve().unwrap();
            // As tokio's: a message sent through a permit after the
            // receiver closed can still be received.
            rx.close();
            permit.send(7);
            assert_eq!(rx.recv().await, Some(7));
            assert!(tx.reserve().await.is_err());
        })
    });
}

#[test]
fn the_sync_types_work_outside_a_run_as_tokio_s_do_outside_a_runtime() {
    let (tx, mut rx) = mpsc::channel::<u32>(2);
    tx.try_send(1).unwrap();
    assert_eq!(rx.len(), 1);
    rx.close();
    assert!(rx.is_closed());
    assert_eq!(rx.try_recv(), Ok(1));
    let lock = tokio::sync::Mutex::new(5);
    assert_eq!(*lock.try_lock().unwrap(), 5);
    // Awaited under another executor, with its wakers.
    let (otx, orx) = tokio::sync::oneshot::channel();
    let sender = std::thread::spawn(move || otx.send(9).unwrap());
    assert_eq!(futures_lite_block_on(orx), Ok(9));
    sender.join().unwrap();
}

#[test]
fn an_object_made_outside_a_run_fails_the_run_that_uses_it() {
    let failure = panic_message(|| {
        let (tx, _rx) = mpsc::unbounded_channel::<u32>();
        let tx = std::sync::Mutex::new(Some(tx));
        search(1, move || {
            if let Some(tx) = tx.lock().unwrap().take() {
                let _ = tx.send(1);
            }
        });
    });
    assert!(
        failure
            .unwrap()
            .contains("made outside a test run was used inside one"),
        "another failure"
    );
}

/// A minimal executor: poll on this thread, park until woken.
fn futures_lite_block_on<F: std::future::Future>(future: F) -> F::Output {
    use std::task::{Context, Poll, Wake, Waker};
    struct Unpark(std::thread::Thread);
    impl Wake for Unpark {
        fn wake(self: std::sync::Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = Waker::from(std::sync::Arc::new(Unpark(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    let mut future = std::pin::pin!(future);
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return output;
        }
        std::thread::park();
    }
}
