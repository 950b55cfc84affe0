//! A small request-counting service with a hot-reloadable configuration,
//! written against tokio. With the `rankcheck` feature the crate's
//! `tokio` is rankcheck's facade, and its tests run under the search.
//!
//! The bug it carries (a real one, in a corner window): a reload
//! replaces the configuration in two steps, first the limit then the
//! epoch, so a request that reads the configuration between them sees
//! the new limit under the old epoch. The configuration is touched a few
//! times a run, the request counter hundreds.
//!
//! `test.sh` runs its tests both ways, and its `measure` example gives the
//! rows of `results/async_service.csv`.

#[cfg(feature = "rankcheck")]
extern crate rankcheck_tokio as tokio;

use std::sync::Arc;

use tokio::sync::{Mutex, RwLock};

/// The request limit of configuration epoch `epoch`: what a consistent
/// configuration holds.
pub fn limit_of(epoch: u64) -> u64 {
    100 * epoch
}

/// The service's configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// Bumped by every reload.
    pub epoch: u64,
    /// Requests a client may make in this epoch.
    pub limit: u64,
}

/// What a request was served under.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Receipt {
    /// The request's number.
    pub number: u64,
    /// The configuration it saw.
    pub config: Config,
}

/// The service: a counter every request touches, and the configuration.
#[derive(Debug)]
pub struct Service {
    served: Mutex<u64>,
    limit: RwLock<u64>,
    epoch: RwLock<u64>,
}

impl Service {
    /// A service at epoch 1.
    pub fn new() -> Arc<Service> {
        Arc::new(Service {
            served: Mutex::new(0),
            limit: RwLock::new(limit_of(1)),
            epoch: RwLock::new(1),
        })
    }

    /// Serve one request that needs no configuration: it is counted.
    pub async fn ping(&self) -> u64 {
        let mut served = self.served.lock().await;
        *served += 1;
        *served
    }

    /// Serve one request under the current configuration.
    pub async fn request(&self) -> Receipt {
        let number = self.ping().await;
        let epoch = *self.epoch.read().await;
        let limit = *self.limit.read().await;
        Receipt {
            number,
            config: Config { epoch, limit },
        }
    }

    /// Move to the next configuration epoch. The bug: the limit and the
    /// epoch are two locks, written one after the other, so a request in
    /// between reads a configuration that never existed.
    pub async fn reload(&self) {
        let next = *self.epoch.read().await + 1;
        *self.limit.write().await = limit_of(next);
        *self.epoch.write().await = next;
    }

    /// Requests served so far.
    pub async fn served(&self) -> u64 {
        *self.served.lock().await
    }
}

/// The scenario the tests run: an admin task pings `hot` times and reloads
/// half-way; a client pings `warm` times, then makes one configured
/// request. The receipt, and the requests served in all.
pub async fn reload_during_traffic(hot: u64, warm: u64) -> (Receipt, u64) {
    let service = Service::new();
    let admin = tokio::spawn({
        let service = service.clone();
        async move {
            for i in 0..hot {
                service.ping().await;
                if i == hot / 2 {
                    service.reload().await;
                }
            }
        }
    });
    let client = tokio::spawn({
        let service = service.clone();
        async move {
            for _ in 0..warm {
                service.ping().await;
            }
            service.request().await
        }
    });
    admin.await.expect("the admin task does not panic");
    let receipt = client.await.expect("the client task does not panic");
    (receipt, service.served().await)
}
