//! `JoinSet`: tasks joined in the order they finish, panics and
//! cancellations as `JoinError`s, dropping the set aborts its tasks; and
//! `JoinError` is `Send + Sync`, as tokio's (`anyhow` needs it).

use std::sync::{Arc, Mutex as StdMutex};

use super::search;
use super::tokio;
use tokio::sync::oneshot;
use tokio::task::{JoinError, JoinSet};
use tokio::time::{self, Duration};

#[test]
fn tasks_are_joined_in_the_order_they_finish() {
    search(200, || {
        rankcheck_rt::future::block_on(async {
            let set: JoinSet<u64> = [30, 10, 20]
                .into_iter()
                .map(|ms| async move {
                    time::sleep(Duration::from_millis(ms)).await;
                    ms
                })
                .collect();
            let mut set = set;
            assert_eq!(set.len(), 3);
            let mut order = Vec::new();
            while let Some(result) = set.join_next().await {
                order.push(result.unwrap());
            }
            assert_eq!(order, [10, 20, 30]);
            assert!(set.is_empty());
        })
    });
}

#[test]
fn a_panic_and_an_abort_come_back_as_join_errors() {
    search(200, || {
        rankcheck_rt::future::block_on(async {
            let mut set = JoinSet::new();
            set.spawn(async { panic!("boom") });
            let forever = set.spawn(std::future::pending::<()>());
            let first = set.join_next().await.unwrap().unwrap_err();
            assert!(first.is_panic());
            forever.abort();
            let second = set.join_next().await.unwrap().unwrap_err();
            assert!(second.is_cancelled());
            assert!(set.join_next().await.is_none());
            assert!(set.try_join_next().is_none());
        })
    });
}

#[test]
fn dropping_the_set_aborts_its_tasks() {
    search(200, || {
        rankcheck_rt::future::block_on(async {
            let (tx, rx) = oneshot::channel::<()>();
            let mut set = JoinSet::new();
            set.spawn(async move {
                let _kept = tx;
                std::future::pending::<()>().await;
            });
            drop(set);
            // The task's future, and the sender in it, are dropped.
            assert!(rx.await.is_err());
        })
    });
}

#[test]
fn shutdown_and_join_all() {
    search(100, || {
        rankcheck_rt::future::block_on(async {
            let mut set = JoinSet::new();
            set.spawn(std::future::pending::<u32>());
            set.shutdown().await;
            assert!(set.is_empty());
            let seen = Arc::new(StdMutex::new(0));
            let mut set = JoinSet::new();
            for i in 1..=3 {
                let seen = seen.clone();
                set.spawn(async move {
                    *seen.lock().unwrap() += i;
                    i
                });
            }
            let mut all = set.join_all().await;
            all.sort_unstable();
            assert_eq!(all, [1, 2, 3]);
            assert_eq!(*seen.lock().unwrap(), 6);
        })
    });
}

#[test]
fn a_join_error_is_send_and_sync() {
    fn boxed(error: JoinError) -> Box<dyn std::error::Error + Send + Sync> {
        Box::new(error)
    }
    search(20, || {
        rankcheck_rt::future::block_on(async {
            let error = tokio::spawn(async { panic!("boom") }).await.unwrap_err();
            assert_eq!(
                boxed(error).to_string(),
                "task panicked with message \"boom\""
            );
        })
    });
}
