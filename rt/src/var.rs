//! Variables without an alias analysis: every instance of a replacement
//! type is a variable, known in every run of a test by its type, its
//! creation site, the thread that created it and its place among that
//! thread's creations at that site. Threads are known by their spawner and
//! their place among its children. Ids are handed out in order of first
//! sight and stay for the whole test.
//!
//! A value made by a `const fn new` is registered on its first use, when
//! which thread made it is unknown (crate::lazy): its variable is the
//! site's `index`-th such value in the run, whichever thread uses it
//! first (keyed as if the main thread made it). A variable is named by
//! the binding or field its creation initialises (crate::source_name),
//! else by its site. The registry also numbers the `spawn` call sites: a
//! spawn's place, so that kind-weighted SURW weighs the threads of one
//! call as one kind.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::panic::Location;

use rankcheck_engine::scheduler::Loc;
use rankcheck_engine::{FuncId, VarId};

use crate::object::ObjectKind;
use crate::source_name::source_name;

/// What identifies a variable across runs.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct VarKey {
    kind: ObjectKind,
    file: &'static str,
    line: u32,
    column: u32,
    /// The creating thread's identity.
    thread: u32,
    /// Its place among that thread's creations at this site.
    index: u32,
}

/// Where a variable was made, by address: its kind, and the `Location`'s
/// address, with the creating thread and place. Equal addresses are equal
/// sites, so a hit here is the [`VarKey`] lookup's answer without hashing
/// the file name (every object of every run asks).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct SiteKey {
    kind: ObjectKind,
    site: usize,
    thread: u32,
    index: u32,
}

/// A multiply-rotate hasher for the registry's small keys (FxHash's
/// scheme): much cheaper than SipHash, and the keys come from the test's
/// own code, never from an adversary.
#[derive(Clone, Copy, Default)]
struct FastHasher(u64);

impl Hasher for FastHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }

    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FastHasher>>;

/// A variable as reports show it.
#[derive(Clone, Debug)]
pub struct VarInfo {
    /// Its name: the type and line, with the instance and creating thread
    /// when they are not the first and `main`.
    pub name: String,
    /// The replacement type.
    pub kind: ObjectKind,
    /// Where it was created.
    pub site: &'static Location<'static>,
    /// The name the source gives it there (crate::source_name), if any.
    pub source: Option<String>,
}

/// The variables and thread identities of one test, over all its runs.
#[derive(Default)]
pub struct Registry {
    /// Unique in the process (from 1): a value registered in several
    /// tests (a static) keeps its variable only within one.
    id: u64,
    ids: FastMap<VarKey, VarId>,
    /// The same ids by site address: the fast path of [`Registry::var`].
    by_address: FastMap<SiteKey, VarId>,
    vars: Vec<VarInfo>,
    /// Thread identities by (parent identity, place among its children);
    /// identity 0 is the test's main thread.
    threads: FastMap<(u32, u32), u32>,
    /// Each identity's name, for variable names.
    thread_names: Vec<String>,
    /// The places `spawn` was called from, numbered in order of first use.
    spawn_sites: FastMap<&'static Location<'static>, u32>,
    /// The same numbers by the address of the `Location`: equal addresses
    /// are equal places, so a spawn hashes no file name once its call was
    /// seen (one place may have several addresses: a miss falls back to
    /// `spawn_sites`).
    spawn_addresses: FastMap<usize, u32>,
}

/// The identity of every test's main thread.
pub const MAIN_IDENTITY: u32 = 0;

impl Registry {
    /// An empty registry whose main thread is known.
    pub fn new() -> Registry {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        Registry {
            id: NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            thread_names: vec!["main".to_owned()],
            ..Registry::default()
        }
    }

    /// The registry's id, unique in the process.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The identity of the `index`-th child of the thread with identity
    /// `parent`; `name` names it the first time.
    pub fn child(&mut self, parent: u32, index: u32, name: impl FnOnce() -> String) -> u32 {
        let next = self.thread_names.len() as u32;
        let id = *self.threads.entry((parent, index)).or_insert(next);
        if id == next {
            self.thread_names.push(name());
        }
        id
    }

    /// Where a `spawn` called at `site` happened, as the engine's
    /// schedulers see it: the same place whenever the same call spawns,
    /// so threads spawned by one call count as one kind (kind-weighted
    /// SURW). There is no instruction: the call's number is the function.
    pub fn spawn_site(&mut self, site: &'static Location<'static>) -> Loc {
        let address = std::ptr::from_ref(site) as usize;
        let number = match self.spawn_addresses.get(&address) {
            Some(&number) => number,
            None => {
                let next = self.spawn_sites.len() as u32;
                let number = *self.spawn_sites.entry(site).or_insert(next);
                self.spawn_addresses.insert(address, number);
                number
            }
        };
        Loc {
            func: FuncId(number),
            pc: 0,
        }
    }

    /// The variable of the `index`-th `kind` that the thread with identity
    /// `thread` created at `site`.
    pub fn var(
        &mut self,
        kind: ObjectKind,
        site: &'static Location<'static>,
        thread: u32,
        index: u32,
    ) -> VarId {
        let address = SiteKey {
            kind,
            site: std::ptr::from_ref(site) as usize,
            thread,
            index,
        };
        if let Some(&id) = self.by_address.get(&address) {
            return id;
        }
        let id = self.var_by_key(kind, site, thread, index);
        self.by_address.insert(address, id);
        id
    }

    /// [`Registry::var`] by the site's file, line and column: the same
    /// site may come at more than one address (a `Location` inlined into
    /// two places).
    fn var_by_key(
        &mut self,
        kind: ObjectKind,
        site: &'static Location<'static>,
        thread: u32,
        index: u32,
    ) -> VarId {
        let key = VarKey {
            kind,
            file: site.file(),
            line: site.line(),
            column: site.column(),
            thread,
            index,
        };
        if let Some(&id) = self.ids.get(&key) {
            return id;
        }
        let id = VarId(self.vars.len() as u32);
        let source = source_name(site);
        let name = self.new_name(&key, site, source.as_deref());
        self.vars.push(VarInfo {
            name,
            kind,
            site,
            source,
        });
        self.ids.insert(key, id);
        id
    }

    /// The name the source gives the variable (`Stats.limit`, `hits`),
    /// with `@line:column` when another site has that name; else
    /// `Kind@line:column`. The place has the file when it is not the first
    /// variable's. Then the instance when it is not the first, and the
    /// creating thread when it is not `main`.
    fn new_name(
        &self,
        key: &VarKey,
        site: &'static Location<'static>,
        source: Option<&str>,
    ) -> String {
        let first_file = self.vars.first().map_or(site.file(), |v| v.site.file());
        let place = if site.file() == first_file {
            format!("{}:{}", site.line(), site.column())
        } else {
            format!(
                "{}:{}:{}",
                short_file(site.file()),
                site.line(),
                site.column()
            )
        };
        let taken = |name: &str| {
            self.vars
                .iter()
                .any(|v| v.source.as_deref() == Some(name) && !same_site(v.site, site))
        };
        let mut name = match source {
            Some(source) if !taken(source) => source.to_owned(),
            Some(source) => format!("{source}@{place}"),
            None => format!("{}@{place}", key.kind.name()),
        };
        if key.index > 0 {
            name.push_str(&format!("#{}", key.index + 1));
        }
        if key.thread != MAIN_IDENTITY {
            name.push_str(&format!(" in {}", self.thread_names[key.thread as usize]));
        }
        name
    }

    /// Every variable so far, by id.
    pub fn vars(&self) -> &[VarInfo] {
        &self.vars
    }

    /// The number of variables so far: `Q` once the preparatory runs are done.
    pub fn len(&self) -> usize {
        self.vars.len()
    }

    /// The name of `var`.
    pub fn name_of(&self, var: VarId) -> &str {
        &self.vars[var.index()].name
    }
}

/// Whether two sites are one place in the source: the same `Location`,
/// or one line and column of one file (the file compared last: most sites
/// differ in line or column, and comparing names takes a `memcmp`).
pub(crate) fn same_site(a: &Location<'_>, b: &Location<'_>) -> bool {
    std::ptr::eq(a, b) || (a.line(), a.column(), a.file()) == (b.line(), b.column(), b.file())
}

/// A source file's name without its directories.
pub fn short_file(file: &str) -> &str {
    file.rsplit(['/', '\\']).next().unwrap_or(file)
}
