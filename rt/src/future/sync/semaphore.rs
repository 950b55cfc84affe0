//! An async counting semaphore, as `tokio::sync::Semaphore`: fair (first
//! come, first served, a large request at the head holding up the rest),
//! closable.

use std::fmt;
use std::future::Future;
use std::panic::Location;
use std::sync::Arc;

use super::permits::{Acquire, Acquired, Permits};
use crate::object::{ObjectKind, SyncState};
use crate::op::Site;
use crate::trace::Operation;

/// As `tokio::sync::Semaphore`: a variable, its acquisitions and
/// releases scheduling points.
pub struct Semaphore {
    permits: Permits,
}

/// As `tokio::sync::SemaphorePermit`: its permits go back when dropped.
#[must_use]
pub struct SemaphorePermit<'a> {
    semaphore: &'a Semaphore,
    count: usize,
    site: Site,
}

/// As `tokio::sync::OwnedSemaphorePermit`.
#[must_use]
pub struct OwnedSemaphorePermit {
    semaphore: Arc<Semaphore>,
    count: usize,
    site: Site,
}

/// As `tokio::sync::AcquireError`: the semaphore was closed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AcquireError(());

impl fmt::Display for AcquireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "semaphore closed")
    }
}

impl std::error::Error for AcquireError {}

/// As `tokio::sync::TryAcquireError`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TryAcquireError {
    /// The semaphore was closed.
    Closed,
    /// Not enough permits now.
    NoPermits,
}

impl fmt::Display for TryAcquireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TryAcquireError::Closed => write!(f, "semaphore closed"),
            TryAcquireError::NoPermits => write!(f, "no permits available"),
        }
    }
}

impl std::error::Error for TryAcquireError {}

impl Semaphore {
    /// A semaphore of `permits` permits: a new variable, known by this
    /// call's site.
    #[track_caller]
    pub fn new(permits: usize) -> Semaphore {
        let handle =
            crate::future::create(ObjectKind::Semaphore, Location::caller(), SyncState::Memory);
        Semaphore {
            permits: Permits::new(handle, permits, false),
        }
    }

    /// Permits not handed out now; not a scheduling point.
    pub fn available_permits(&self) -> usize {
        self.permits.available()
    }

    /// Add `n` permits, serving the waiters in order: a scheduling point.
    #[track_caller]
    pub fn add_permits(&self, n: usize) {
        self.release(n, Location::caller());
    }

    /// Acquire a permit, waiting in line for it; `Err` once closed.
    #[track_caller]
    pub fn acquire(&self) -> impl Future<Output = Result<SemaphorePermit<'_>, AcquireError>> + '_ {
        self.acquire_many(1)
    }

    /// Acquire `n` permits at once, waiting in line for them.
    #[track_caller]
    pub fn acquire_many(
        &self,
        n: u32,
    ) -> impl Future<Output = Result<SemaphorePermit<'_>, AcquireError>> + '_ {
        let site = Location::caller();
        let acquire = self.wait_for(n as usize, site);
        async move {
            closed(acquire.await)?;
            Ok(SemaphorePermit {
                semaphore: self,
                count: n as usize,
                site,
            })
        }
    }

    /// Acquire a permit for an `Arc` of the semaphore: the permit owns it.
    #[track_caller]
    pub fn acquire_owned(
        self: Arc<Self>,
    ) -> impl Future<Output = Result<OwnedSemaphorePermit, AcquireError>> {
        let site = Location::caller();
        async move {
            closed(self.wait_for(1, site).await)?;
            Ok(OwnedSemaphorePermit {
                semaphore: self,
                count: 1,
                site,
            })
        }
    }

    /// Acquire a permit if one is free and nobody waits; never waits.
    #[track_caller]
    pub fn try_acquire(&self) -> Result<SemaphorePermit<'_>, TryAcquireError> {
        self.try_acquire_many(1)
    }

    /// Acquire `n` permits if they are free and nobody waits.
    #[track_caller]
    pub fn try_acquire_many(&self, n: u32) -> Result<SemaphorePermit<'_>, TryAcquireError> {
        let site = Location::caller();
        let operation = Operation::Lock(self.permits.handle().object);
        match self.permits.try_acquire(n as usize, operation, site) {
            Acquired::Yes => Ok(SemaphorePermit {
                semaphore: self,
                count: n as usize,
                site,
            }),
            Acquired::No => Err(TryAcquireError::NoPermits),
            Acquired::Closed => Err(TryAcquireError::Closed),
        }
    }

    /// Close it: waiting and later acquisitions fail. A scheduling point.
    #[track_caller]
    pub fn close(&self) {
        let object = self.permits.handle().object;
        crate::op::async_step(
            Some(self.permits.handle()),
            rankcheck_engine::EventKind::Broadcast,
            Operation::Disconnect(object),
            Location::caller(),
        );
        self.permits.close();
    }

    /// Whether it was closed; not a scheduling point.
    pub fn is_closed(&self) -> bool {
        self.permits.is_closed()
    }

    /// Wait in line for `wanted` permits.
    fn wait_for(&self, wanted: usize, site: Site) -> Acquire<'_> {
        let operation = Operation::Lock(self.permits.handle().object);
        self.permits.acquire(wanted, operation, "a permit of", site)
    }

    fn release(&self, count: usize, site: Site) {
        let operation = Operation::Unlock(self.permits.handle().object);
        self.permits.release(count, operation, site);
    }
}

/// An acquisition's end as tokio's: `Err` once the semaphore is closed.
fn closed(acquired: Acquired) -> Result<(), AcquireError> {
    match acquired {
        Acquired::Yes => Ok(()),
        Acquired::Closed | Acquired::No => Err(AcquireError(())),
    }
}

impl SemaphorePermit<'_> {
    /// Keep the permits out of the semaphore for good.
    pub fn forget(mut self) {
        self.count = 0;
    }

    /// How many permits it holds.
    pub fn num_permits(&self) -> usize {
        self.count
    }
}

impl Drop for SemaphorePermit<'_> {
    fn drop(&mut self) {
        if self.count > 0 {
            self.semaphore.release(self.count, self.site);
        }
    }
}

impl OwnedSemaphorePermit {
    /// Keep the permit out of the semaphore for good.
    pub fn forget(mut self) {
        self.count = 0;
    }
}

impl Drop for OwnedSemaphorePermit {
    fn drop(&mut self) {
        if self.count > 0 {
            self.semaphore.release(self.count, self.site);
        }
    }
}

impl fmt::Debug for Semaphore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Semaphore")
            .field("permits", &self.available_permits())
            .finish()
    }
}
