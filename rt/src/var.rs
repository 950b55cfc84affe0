//! Variables without an alias analysis: every instance of a replacement
//! type is a variable, known in every run of a test by its type, its
//! creation site, the thread that created it and its place among that
//! thread's creations at that site. Threads are known by their spawner and
//! their place among its children. Ids are handed out in order of first
//! sight and stay for the whole test.

use std::collections::HashMap;
use std::panic::Location;

use rankcheck_engine::VarId;

/// What identifies a variable across runs.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct VarKey {
    kind: &'static str,
    file: &'static str,
    line: u32,
    column: u32,
    /// The creating thread's identity.
    thread: u32,
    /// Its place among that thread's creations at this site.
    index: u32,
}

/// A variable as reports show it.
#[derive(Clone, Debug)]
pub struct VarInfo {
    /// Its name: the type and line, with the instance and creating thread
    /// when they are not the first and `main`.
    pub name: String,
    /// The replacement type.
    pub kind: &'static str,
    /// Where it was created.
    pub site: &'static Location<'static>,
}

/// The variables and thread identities of one test, over all its runs.
#[derive(Default)]
pub struct Registry {
    /// Unique in the process (from 1): a value registered in several
    /// tests (a static) keeps its variable only within one.
    id: u64,
    ids: HashMap<VarKey, VarId>,
    vars: Vec<VarInfo>,
    /// Thread identities by (parent identity, place among its children);
    /// identity 0 is the test's main thread.
    threads: HashMap<(u32, u32), u32>,
    /// Each identity's name, for variable names.
    thread_names: Vec<String>,
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

    /// The variable of the `index`-th `kind` that the thread with identity
    /// `thread` created at `site`.
    pub fn var(
        &mut self,
        kind: &'static str,
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
        let name = self.new_name(&key, site);
        self.vars.push(VarInfo { name, kind, site });
        self.ids.insert(key, id);
        id
    }

    /// `Kind@line:column`, with the file when it is not the first
    /// variable's, the instance when it is not the first, and the creating
    /// thread when it is not `main`.
    fn new_name(&self, key: &VarKey, site: &'static Location<'static>) -> String {
        let first_file = self.vars.first().map_or(site.file(), |v| v.site.file());
        let mut name = if site.file() == first_file {
            format!("{}@{}:{}", key.kind, site.line(), site.column())
        } else {
            format!(
                "{}@{}:{}:{}",
                key.kind,
                short_file(site.file()),
                site.line(),
                site.column()
            )
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

/// A source file's name without its directories.
pub fn short_file(file: &str) -> &str {
    file.rsplit(['/', '\\']).next().unwrap_or(file)
}
